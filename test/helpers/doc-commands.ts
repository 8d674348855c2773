import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './integration.js';

/**
 * The `driftwatch …` command lines README.md and docs/ show (test/unit/cli/documented-commands.test.ts
 * checks them against --help and runs the ones that run locally).
 */
export const DOC_FILES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs')).map((file) => join('docs', file)),
].filter((file) => file.endsWith('.md'));

export interface ShownCommand {
  file: string;
  line: string;
}

// `driftwatch x`, `npx driftwatch x y`, `driftwatch --version`, `COLUMNS=100 driftwatch findings`.
const DRIFTWATCH =
  /^(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:npx\s+)?driftwatch\s+(--?[a-z][a-z-]*|[a-z][a-z-]*)(?:\s+([a-z][a-z-]*))?/;

/** The command (and the word after it, maybe a subcommand) a shown line runs; undefined if none. */
export function commandOf(line: string): string[] | undefined {
  const match = DRIFTWATCH.exec(line.trim());
  if (!match) return undefined;
  return [match[1]!, ...(match[2] ? [match[2]] : [])];
}

/** Command lines in code: whole lines of code blocks (continued lines joined) and inline code spans. */
export function shownCommands(text: string, file: string): ShownCommand[] {
  const shown: ShownCommand[] = [];
  let fence = false;
  let pending = '';
  const prose: string[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trimStart().startsWith('```')) {
      fence = !fence;
      pending = '';
      prose.push('');
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
    prose.push(raw);
  }
  // Inline code is paired across a paragraph's lines (a span may open on one line and close on the
  // next); a line break inside a span reads as a space, as Markdown renders it.
  for (const paragraph of prose.join('\n').split(/\n\s*\n/))
    for (const match of paragraph.matchAll(/`([^`]+)`/g)) {
      const line = match[1]!.replace(/\s*\n\s*/g, ' ');
      if (commandOf(line) !== undefined) shown.push({ file, line });
    }
  return shown;
}

export function shownInDocs(): ShownCommand[] {
  return DOC_FILES.flatMap((file) => shownCommands(readFileSync(join(REPO_ROOT, file), 'utf8'), file));
}

/**
 * The shell command lines one shown line stands for. A concrete example (`driftwatch findings
 * --format sarif … > out.sarif`) is itself; a synopsis (`driftwatch init (--bucket B | --root <dir>)
 * [--out f]`) becomes its shortest forms: optional `[…]` parts dropped, one line per alternative of
 * a `( … | … )` group or of a top-level ` | --option`, the first of `a|b` values. What follows two
 * spaces or a `#` is a description, `npx` is dropped (the test puts `driftwatch` on PATH).
 */
export function commandForms(line: string): string[] {
  let command = line
    .replace(/\s+#.*$/, '')
    .split(/\s{2,}/)[0]!
    .replace(/(^|\s)npx\s+driftwatch\b/, '$1driftwatch')
    .trim();
  // `<id|prefix>` is one placeholder, `<id>`.
  command = command.replace(/<([^<>|]*)\|[^<>]*>/g, '<$1>');
  while (/\[[^[\]]*\]/.test(command)) command = command.replace(/\s*\[[^[\]]*\]/g, '');
  const group = /\(([^()]*\|[^()]*)\)/.exec(command);
  if (group)
    return group[1]!
      .split(' | ')
      .flatMap((alternative) =>
        commandForms(
          `${command.slice(0, group.index)}${alternative.trim()}${command.slice(group.index + group[0].length)}`,
        ),
      );
  // `driftwatch invoke --workspace id | --account id`: alternatives, not a pipe into another program.
  const alternatives = command.split(/\s+\|\s+(?=--)/);
  if (alternatives.length > 1) {
    const head = alternatives[0]!.replace(/\s--.*$/, '');
    return [alternatives[0]!, ...alternatives.slice(1).map((rest) => `${head} ${rest}`)].flatMap(
      commandForms,
    );
  }
  // `--since 7d|2026-11-01`, `--store dir|s3://bucket`: the first value (a shell pipe has spaces).
  return [command.replace(/(\S)\|\S+/g, '$1').replace(/\s+/g, ' ')];
}
