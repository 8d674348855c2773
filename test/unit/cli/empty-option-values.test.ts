import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/**
 * `--owner "$TEAM"` with TEAM unset: an empty option value was read as the option left out, so a
 * team's listing (and its CI gate) showed every team's findings. The findings API refuses `owner=`.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-empty-options-'));
const store = join(dir, 'store');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const findings = createFindingsStore(createFsObjectStore(store));
  const now = new Date();
  await findings.recordWorkspace(
    { scanId: 'scan-1', startedAt: now, now },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [driftDraft({ severity: 'high' })],
  );
});

describe('an option given an empty value', () => {
  it.each([
    [['findings', '--owner', ''], '--owner is empty: give a value, or leave --owner out'],
    [['findings', '--workspace', ''], '--workspace is empty: give a value, or leave --workspace out'],
    [['findings', '--kind', ''], '--kind is empty: give a value, or leave --kind out'],
    [['findings', '--since', ''], '--since is empty: give a value, or leave --since out'],
    [['findings', '--registry', ''], '--registry is empty: give a value, or leave --registry out'],
    [
      ['report', '--out', join(dir, 'r.html'), '--owner', ''],
      '--owner is empty: give a value, or leave --owner out',
    ],
    [
      ['suppress', 'abcd', '--reason', '', '--until', '2099-01-01', '--by', 'me'],
      '--reason is empty: give it a value',
    ],
    [
      ['scan', '--workspace', 'payments-prod', '--workspace', ''],
      '--workspace is empty: give a value, or leave --workspace out',
    ],
  ])('%j is a usage error naming the option, with nothing listed or written', async (args, line) => {
    const run = await runCli([...args, '--store', store]);
    expect(run.stderr).toBe(`driftwatch: ${line}\n`);
    expect(run.code).toBe(64);
    expect(run.stdout).toBe('');
    expect(existsSync(join(dir, 'r.html'))).toBe(false);
  });

  it('the same filter with a value still lists', async () => {
    const listed = await runCli(['findings', '--owner', 'payments', '--store', store, '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(2);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
  });
});
