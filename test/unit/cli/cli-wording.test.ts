import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findingsAction } from '../../../cli/commands/findings-action.js';
import { openObjectStore, UsageError } from '../../../cli/context.js';
import { renderFindingDetail } from '../../../cli/finding-detail.js';
import { age, ago, renderFindings } from '../../../cli/output.js';
import { PLAIN } from '../../../cli/terminal.js';
import { DEFAULT_STORE } from '../../../cli/usage.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft, scanFailedDraft, storedFinding } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/**
 * The CLI's words where the sweep (REPROS.md D11) found them wrong: an age read "(now ago)", a pipe
 * got WHAT CHANGED cut at 70 characters, help listed another command's exit codes, `--since 500d`
 * was refused as "not 501", and an empty DRIFTWATCH_STORE was a store named ''.
 */

const dir = mkdtempSync(join(tmpdir(), 'driftwatch-wording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = new Date('2026-12-02T06:00:00Z');
const DAY = 86_400_000;

describe('ages', () => {
  it('read "just now" and "3d ago" in running text, never "now ago"; the AGE column stays "now"', () => {
    const justNow = storedFinding({ firstSeenAt: new Date(NOW.getTime() - 20_000).toISOString() });
    const detail = renderFindingDetail(justNow, [], NOW);
    expect(detail).toMatch(/first seen +\S+ \(just now\)/);
    expect(detail).not.toMatch(/now ago/);
    const older = storedFinding({ firstSeenAt: new Date(NOW.getTime() - 3 * DAY).toISOString() });
    expect(renderFindingDetail(older, [], NOW)).toMatch(/first seen +\S+ \(3d ago\)/);
    expect(age(justNow.firstSeenAt, NOW)).toBe('now');
    expect(ago(justNow.firstSeenAt, NOW)).toBe('just now');
    expect(renderFindings([justNow], 'table', NOW, PLAIN)).toMatch(/ now\n$/);
  });
});

describe('findings show of a resolved finding', () => {
  it('names the scan that resolved it on the resolved line, not as the scan it was last seen in', () => {
    const resolved = storedFinding({
      status: 'resolved',
      scanId: 'scan-b',
      firstSeenAt: '2026-11-27T02:10:00Z',
      lastSeenAt: '2026-11-28T02:10:00Z',
      resolvedAt: '2026-11-29T02:10:00Z',
    });
    const detail = renderFindingDetail(resolved, [], NOW);
    expect(detail).toMatch(/last seen +2026-11-28T02:10:00Z\n/);
    expect(detail).toMatch(/resolved +2026-11-29T02:10:00Z in scan scan-b\n/);
    expect(detail).not.toMatch(/last seen .*scan-b/);
    const open = storedFinding({ scanId: 'scan-c', lastSeenAt: '2026-11-29T02:10:00Z' });
    expect(renderFindingDetail(open, [], NOW)).toMatch(/last seen +2026-11-29T02:10:00Z in scan scan-c\n/);
  });
});

describe('WHAT CHANGED', () => {
  it('is whole in a table without a width (a pipe, no COLUMNS), and cut only to a width', () => {
    const title = `${'aws_s3_bucket.ledger changed outside Terraform: '.repeat(3)}end of title`;
    const finding = storedFinding({}, driftDraft({ title, drift: { action: 'update', changes: [] } }));
    const piped = renderFindings([finding], 'table', NOW, PLAIN);
    expect(title.length).toBeGreaterThan(70);
    expect(piped).toContain(title);
    expect(piped).not.toContain('…');
    const narrow = renderFindings([finding], 'table', NOW, { colour: false, width: 100 });
    expect(narrow).not.toContain(title);
    for (const line of narrow.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});

/** The exit codes each command's action can set (read off cli/commands/*-action.ts and main.ts). */
const EXIT_CODES: Record<string, number[]> = {
  'evaluate-plan': [0, 1, 2, 64],
  scan: [0, 1, 2, 64],
  'cluster-diff': [0, 1, 2, 64],
  'check-backend': [0, 1, 2, 64],
  locks: [0, 1, 2, 64],
  findings: [0, 1, 2, 64],
  'findings show': [0, 1, 64],
  invoke: [0, 1, 64],
  suppress: [0, 1, 64],
  retire: [0, 1, 64],
  remediate: [0, 1, 64],
  report: [0, 1, 64],
  routes: [0, 1, 64],
  init: [0, 1, 64],
  'providers mirror': [0, 1, 64],
  demo: [0, 1, 64],
};

/** The help text from `Exit codes:` to the errors line (or the end). */
function exitCodeBlock(help: string): string | undefined {
  const start = help.indexOf('Exit codes:');
  if (start === -1) return undefined;
  const end = help.indexOf('Errors are one line', start);
  return help.slice(start, end === -1 ? undefined : end);
}

/** A command named as a command: `driftwatch routes`, `routes --check`, `routes:`. */
function namesCommand(text: string, name: string): boolean {
  const word = name.replace(/-/g, '\\-');
  return new RegExp(`driftwatch ${word}(?![\\w-])|(?<![\\w-])${word} --|(?<![\\w-])${word}:`).test(text);
}

describe('each command --help', () => {
  it('lists only the exit codes that command can return, and no other command', async () => {
    const top = await runCli(['--help']);
    const listed = [...(top.stdout.split('Commands:')[1] ?? '').matchAll(/^ {2}([a-z][\w-]*)/gm)]
      .map((match) => match[1]!)
      .filter((name) => name !== 'help');
    // A new command needs its row above: its codes are a decision, not a default.
    expect(listed.sort()).toEqual(
      [...new Set(Object.keys(EXIT_CODES).map((path) => path.split(' ')[0]!))].sort(),
    );
    const helps = await Promise.all(
      Object.keys(EXIT_CODES).map(async (path) => ({
        path,
        run: await runCli([...path.split(' '), '--help']),
      })),
    );
    for (const { path, run } of helps) {
      expect(run.code, `${path}: ${run.stderr}`).toBe(0);
      expect(run.stdout.split('Exit codes:').length - 1, `${path} lists its exit codes once`).toBe(1);
      const block = exitCodeBlock(run.stdout)!;
      const codes = new Set(
        [...block.matchAll(/(?<![\w.<-])\d+(?![\w.])/g)].map((match) => Number(match[0])),
      );
      expect(
        [...codes].sort((a, b) => a - b),
        `${path}: ${block}`,
      ).toEqual(EXIT_CODES[path]);
      const own = path.split(' ');
      const others = Object.keys(EXIT_CODES)
        .flatMap((other) => other.split(' '))
        .filter((name) => !own.includes(name));
      for (const other of new Set(others))
        expect(namesCommand(block, other), `${path}'s exit codes name ${other}: ${block}`).toBe(false);
    }
  });
});

describe('findings --status resolved --since', () => {
  const storeDir = join(dir, 'store');
  beforeAll(async () => {
    const at = new Date(Date.now() - 60_000);
    await createFindingsStore(createFsObjectStore(storeDir)).recordWorkspace(
      { scanId: 'scan-1', startedAt: at, now: at },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [],
    );
  });
  const resolvedSince = (since: string) =>
    findingsAction(() => {}, { store: storeDir, status: 'resolved', since, format: 'json' });

  it('refuses more than 400 days back naming the --since typed and its days, never the days read', async () => {
    const refused = resolvedSince('500d');
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(
      /^--status resolved reads at most 400 days of scan history and --since 500d is 500 days back: give a --since at most 400 days back \(e\.g\. --since 400d\), or query older history with Athena$/,
    );
    await expect(resolvedSince('500d')).rejects.not.toThrow(/501/);
  });

  it('accepts --since 400d, the limit docs/cli.md names', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let code: number | undefined;
    try {
      await findingsAction(
        (exit) => {
          code = exit;
        },
        { store: storeDir, status: 'resolved', since: '400d', format: 'json' },
      );
    } finally {
      write.mockRestore();
    }
    expect(code).toBe(0);
  });
});

describe('the findings store location', () => {
  it('an empty DRIFTWATCH_STORE is unset: the default store, named as the default', () => {
    expect(openObjectStore(undefined, { DRIFTWATCH_STORE: '' }).location).toBe(
      createFsObjectStore(resolve(DEFAULT_STORE)).location,
    );
    expect(() =>
      openObjectStore(undefined, { DRIFTWATCH_STORE: join(dir, 'missing') }, { mustExist: true }),
    ).toThrow(/^no findings store at \S+missing \(chosen by DRIFTWATCH_STORE\): /);
  });

  it('an empty --store is a usage error, not the current directory', () => {
    expect(() => openObjectStore('', {})).toThrow(UsageError);
    expect(() => openObjectStore('', {})).toThrow(
      '--store takes a directory or s3://bucket, not an empty value',
    );
  });

  it('DRIFTWATCH_STORE= driftwatch findings names the default store, never an empty location', async () => {
    const run = await runCli(['findings'], { cwd: dir, env: { DRIFTWATCH_STORE: '' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `driftwatch: no findings store at ${DEFAULT_STORE} (chosen by the default): pass --store with the directory or s3://bucket a scan wrote to, or run driftwatch scan first\n`,
    );
  });
});

describe('an empty table after --severity', () => {
  it('names the threshold, as the Markdown does: a failed scan it hid is not "No findings."', () => {
    const failed = storedFinding({}, scanFailedDraft());
    expect(renderFindings([failed], 'table', NOW, PLAIN, { severity: 'critical' })).toBe(
      'No findings at critical or above.\n',
    );
    expect(renderFindings([], 'table', NOW, PLAIN)).toBe('No findings.\n');
  });
});
