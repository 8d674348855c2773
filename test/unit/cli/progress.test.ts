import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  applyProgress,
  formatElapsed,
  NO_PROGRESS,
  type ProgressEvent,
  type ProgressState,
  progressMode,
  renderProgress,
} from '../../../cli/progress.js';
import { createProgressDisplay } from '../../../cli/progress-display.js';
import { runCli } from '../../helpers/integration.js';

/**
 * What a terminal shows after `text`: `\r` returns to column 0, `ESC [K` erases to the end of the
 * line, other characters overwrite the cell under the cursor. Other escapes stay as they are.
 */
function terminalScreen(text: string): string {
  const lines: string[] = [];
  let line = '';
  let cursor = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '\n') {
      lines.push(line);
      line = '';
      cursor = 0;
    } else if (char === '\r') cursor = 0;
    else if (text.startsWith('\u001b[K', at)) {
      line = line.slice(0, cursor);
      at += 2;
    } else {
      line = line.slice(0, cursor) + char + line.slice(cursor + 1);
      cursor += 1;
    }
  }
  return [...lines, line].join('\n');
}

/** Applies timed events in order, as the display does with its clock. */
function replay(events: Array<[number, ProgressEvent]>): ProgressState {
  return events.reduce((state, [at, event]) => applyProgress(state, event, at), NO_PROGRESS);
}

const fiveWorkspaces: Array<[number, ProgressEvent]> = [
  [0, { type: 'pipeline', stage: 'ScanTerraform' }],
  [0, { type: 'workspaces', total: 5 }],
  [0, { type: 'workspace-started', workspace: 'network-prod' }],
  [1_000, { type: 'workspace-stage', workspace: 'network-prod', stage: 'terraform init' }],
  [9_000, { type: 'workspace-finished', workspace: 'network-prod', failed: false }],
  [9_000, { type: 'workspace-started', workspace: 'payments-prod' }],
  [10_000, { type: 'workspace-stage', workspace: 'payments-prod', stage: 'terraform init' }],
  [20_000, { type: 'workspace-stage', workspace: 'payments-prod', stage: 'terraform plan' }],
];

describe('renderProgress', () => {
  it('shows n/N, the workspace, its stage with the time in it, and the done/failed counts', () => {
    expect(renderProgress(replay(fiveWorkspaces), 32_400)).toBe(
      '[2/5] payments-prod: terraform plan (12s) · 1 done, 0 failed',
    );
  });

  it('counts failed workspaces apart from done ones', () => {
    const state = replay([
      ...fiveWorkspaces,
      [30_000, { type: 'workspace-finished', workspace: 'payments-prod', failed: true }],
      [30_000, { type: 'workspace-started', workspace: 'search-prod' }],
    ]);
    expect(renderProgress(state, 31_000)).toBe('[3/5] search-prod: preparing (1s) · 1 done, 1 failed');
  });

  it('shows the workspace running longest and counts the others running beside it', () => {
    const state = replay([
      ...fiveWorkspaces,
      [25_000, { type: 'workspace-started', workspace: 'search-prod' }],
    ]);
    expect(renderProgress(state, 26_000)).toBe(
      '[2/5] payments-prod: terraform plan (6s) +1 running · 1 done, 0 failed',
    );
  });

  it('names the pipeline stage when no workspace is running', () => {
    const state = replay([
      [0, { type: 'workspaces', total: 2 }],
      [0, { type: 'workspace-started', workspace: 'a' }],
      [5_000, { type: 'workspace-finished', workspace: 'a', failed: false }],
      [5_000, { type: 'workspace-started', workspace: 'b' }],
      [7_000, { type: 'workspace-finished', workspace: 'b', failed: true }],
      [7_000, { type: 'pipeline', stage: 'ConfirmLocks' }],
    ]);
    expect(renderProgress(state, 10_000)).toBe('[2/2] confirming state locks (3s) · 1 done, 1 failed');
  });

  it('fits the width, keeping one column free and the counts whole', () => {
    const line = renderProgress(replay(fiveWorkspaces), 32_400, 40);
    expect(line).toBe('[2/5] payments-prod… · 1 done, 0 failed');
    expect(Array.from(line)).toHaveLength(39);
    // Wide enough: nothing is cut.
    expect(renderProgress(replay(fiveWorkspaces), 32_400, 120)).not.toContain('…');
  });

  it('cuts the whole line when the counts leave no room for a readable head', () => {
    const line = renderProgress(replay(fiveWorkspaces), 32_400, 25);
    expect(line).toBe('[2/5] payments-prod: te…');
    expect(Array.from(line)).toHaveLength(24);
  });

  it('leaves n/N out while the number of workspaces is not known', () => {
    const state = replay([[0, { type: 'pipeline', stage: 'LoadRegistry' }]]);
    expect(renderProgress(state, 0)).toBe('loading the registry (0s) · 0 done, 0 failed');
  });

  it('prints a workspace id inert: escape sequences never reach the terminal', () => {
    const state = replay([
      [0, { type: 'workspaces', total: 1 }],
      [0, { type: 'workspace-started', workspace: 'evil\u001b[2Jprod' }],
    ]);
    expect(renderProgress(state, 0)).not.toContain('\u001b');
  });
});

describe('formatElapsed', () => {
  it.each([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m00s'],
    [185_000, '3m05s'],
    [3_725_000, '1h02m'],
  ])('%i ms is %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});

describe('progressMode', () => {
  it('redraws in place on a terminal only, and DRIFTWATCH_PROGRESS overrides either way', () => {
    expect(progressMode({ isTTY: true, env: {} })).toBe('tty');
    expect(progressMode({ isTTY: false, env: {} })).toBe('plain');
    expect(progressMode({ isTTY: true, env: { TERM: 'dumb' } })).toBe('plain');
    expect(progressMode({ isTTY: false, env: { DRIFTWATCH_PROGRESS: 'tty' } })).toBe('tty');
    expect(progressMode({ isTTY: true, env: { DRIFTWATCH_PROGRESS: 'plain' } })).toBe('plain');
  });
});

describe('createProgressDisplay', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('redraws at most once per interval, clears before other lines and at the end', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const display = createProgressDisplay({ write: (text) => written.push(text), now: () => Date.now() });
    display.event({ type: 'workspaces', total: 3 });
    // A burst of events inside one interval: one redraw now, one more when the interval ends.
    display.event({ type: 'workspace-started', workspace: 'a' });
    display.event({ type: 'workspace-stage', workspace: 'a', stage: 'terraform init' });
    expect(written).toEqual(['\r[0/3] starting · 0 done, 0 failed\u001b[K']);
    vi.advanceTimersByTime(200);
    expect(written.at(-1)).toBe('\r[1/3] a: terraform init (0s) · 0 done, 0 failed\u001b[K');
    expect(written).toHaveLength(2);

    display.line('INFO  scanned workspace=a');
    expect(written.slice(2, 4)).toEqual(['\r\u001b[K', 'INFO  scanned workspace=a\n']);
    // The status line comes back below it.
    vi.advanceTimersByTime(200);
    expect(written.at(-1)).toBe('\r[1/3] a: terraform init (0s) · 0 done, 0 failed\u001b[K');

    display.stop();
    expect(written.at(-1)).toBe('\r\u001b[K');
    const count = written.length;
    display.event({ type: 'workspace-started', workspace: 'b' });
    vi.advanceTimersByTime(5_000);
    expect(written).toHaveLength(count);
  });
});

describe('driftwatch scan progress (no Terraform: the workspace fails at its source lookup)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-progress-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const registry = join(dir, 'driftwatch.yaml');
  writeFileSync(
    registry,
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: team@example.com }] }] }',
      'workspaces:',
      '  - id: payments-prod',
      '    owner: platform',
      '    environment: prod',
      '    source: { dir: no-such-dir }',
      '    backend: { bucket: some-state, key: payments/prod.tfstate, region: eu-west-1 }',
      '',
    ].join('\n'),
  );
  // AWS refuses at once (nothing listens on port 1), so the scan fails fast and offline.
  const env = {
    DRIFTWATCH_HASH_SALT: 'progress-test-salt-0001',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'eu-west-1',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
    AWS_MAX_ATTEMPTS: '1',
    COLUMNS: '',
  };
  // A string: biome forbids the escape character inside a regular expression literal.
  const ERASE = '\u001b\\[K';
  const scan = (mode: string, store: string) =>
    runCli(['scan', '--registry', registry, '--store', join(dir, store)], {
      env: { ...env, DRIFTWATCH_PROGRESS: mode },
    });

  it('draws the status line in place and erases every drawn line: the plain lines are what stays', async () => {
    const run = await scan('tty', 'tty-store');
    expect(run.code).toBe(1);
    // The first stage draws at once (later ones may be coalesced in a run this fast).
    expect(run.stderr).toMatch(new RegExp(`\rloading the registry \\(\\d+s\\) · 0 done, 0 failed${ERASE}`));
    // Every drawn status line is erased again: what stays on the screen is the plain lines. Read as a
    // terminal shows it: a loaded machine redraws a line in place (the clock ticks) before it is erased.
    const onScreen = terminalScreen(run.stderr);
    expect(onScreen).not.toMatch(/· \d+ done, \d+ failed/);
    expect(onScreen).toMatch(/^INFO {2}scanned .*workspace=payments-prod status=failed/m);
    expect(onScreen.trimEnd().split('\n').at(-1)).toMatch(/^scan \S+: 0 scanned, 1 failed, 0 busy;/);
    expect(run.stdout).toContain('scan.source-failed');
  });

  it('writes plain lines only into a pipe', async () => {
    const run = await scan('', 'plain-store');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^INFO {2}scanning .*workspace=payments-prod$/m);
    for (const control of ['\r', '\u001b']) expect(run.stderr).not.toContain(control);
  });
});
