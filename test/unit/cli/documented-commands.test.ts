import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../helpers/integration.js';

/**
 * The docs cannot drift from the CLI: every `driftwatch …` command line shown in README.md and docs/
 * (code blocks and inline code) names a command that exists and options that command has, read from
 * the built CLI's own --help. Commands that run locally without AWS run for real in the CLI tests
 * (cli.test.ts, findings-cli.test.ts, recognisable-cli.test.ts, init-cli.test.ts) and the demo test.
 */
const DOCS = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((file) => join('docs', file))].filter(
  (file) => file.endsWith('.md'),
);

interface Shown {
  file: string;
  line: string;
}

/** Command lines in code: whole lines of code blocks (continued lines joined) and inline code spans. */
function shownCommands(): Shown[] {
  const shown: Shown[] = [];
  for (const file of DOCS) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    const lines = text.split('\n');
    let fence = false;
    let pending = '';
    for (const raw of lines) {
      if (raw.trimStart().startsWith('```')) {
        fence = !fence;
        pending = '';
        continue;
      }
      if (fence) {
        // A synopsis continues on indented lines (`           [--region R] …`) or after a backslash.
        const continued = pending !== '' && /^\s{4,}[[(|-]/.test(raw);
        const line = continued ? `${pending} ${raw.trim()}` : raw.replace(/^\$\s+/, '').trim();
        if (commandOf(line) !== undefined) {
          if (continued) shown.pop();
          shown.push({ file, line: line.replace(/\\$/, '').trim() });
          pending = line.replace(/\\$/, '');
        } else pending = '';
        continue;
      }
      for (const match of raw.matchAll(/`([^`]+)`/g))
        if (commandOf(match[1]!) !== undefined) shown.push({ file, line: match[1]! });
    }
  }
  return shown;
}

const DRIFTWATCH = /^(?:npx\s+)?driftwatch\s+([a-z][a-z-]*)(?:\s+([a-z][a-z-]*))?/;

function commandOf(line: string): string[] | undefined {
  const match = DRIFTWATCH.exec(line.trim());
  if (!match) return undefined;
  return [match[1]!, ...(match[2] ? [match[2]] : [])];
}

/** The options a --help text lists (`-s, --store <dir>` → --store; `--no-x` also names --x). */
function optionsIn(help: string): Set<string> {
  return new Set([...help.matchAll(/(?:^|[\s,])(--[a-z][a-z0-9-]*)/gm)].map((match) => match[1]!));
}

describe('commands shown in the docs', () => {
  it('exist, with the options their --help lists', async () => {
    const shown = shownCommands();
    // The docs show the commands a newcomer needs; if this drops, the extraction broke.
    expect(shown.length).toBeGreaterThan(40);

    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const commands = new Set([...top.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((match) => match[1]!));
    const helps = new Map<string, Promise<Set<string>>>();
    const helpOf = (path: string[]) => {
      const key = path.join(' ');
      if (!helps.has(key))
        helps.set(
          key,
          runCli([...path, '--help']).then((run) => {
            expect(run.code, `driftwatch ${key} --help: ${run.stderr}`).toBe(0);
            return optionsIn(run.stdout);
          }),
        );
      return helps.get(key)!;
    };

    const problems: string[] = [];
    for (const { file, line } of shown) {
      const [command, second] = commandOf(line)!;
      if (!commands.has(command!)) {
        problems.push(`${file}: \`${line}\`: no command '${command}'`);
        continue;
      }
      // `findings show`, `providers mirror`: a subcommand when its own --help answers.
      let path = [command!];
      if (second) {
        const sub = await runCli([command!, second, '--help']);
        if (sub.code === 0 && sub.stdout.includes(`driftwatch ${command} ${second}`))
          path = [command!, second];
      }
      const known = await helpOf(path);
      const parent = path.length > 1 ? await helpOf([command!]) : new Set<string>();
      for (const option of line.matchAll(/(?:^|[\s[(|])(--[a-z][a-z0-9-]*)/g)) {
        const name = option[1]!;
        if (['--help', '--debug', '--version'].includes(name)) continue;
        if (!known.has(name) && !parent.has(name))
          problems.push(`${file}: \`${line}\`: 'driftwatch ${path.join(' ')}' has no option ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
