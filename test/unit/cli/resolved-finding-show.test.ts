import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/**
 * A finding seen by one scan and gone at the next, recorded by the real recorder: its history holds
 * a `new` line and a `resolved` line with the same lastSeenAt (the resolved line keeps the time the
 * finding was last seen). `findings show` and `remediate` must read the resolved one: they showed
 * `status new`, and remediate prepared a revert of drift that was already gone without a word.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-resolved-show-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let id = '';
const gone = new Date(Date.now() - 3_600_000);

beforeAll(async () => {
  const store = createFindingsStore(createFsObjectStore(dir));
  const scope = { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' } as const;
  const seen = new Date(Date.now() - 2 * 3_600_000);
  const first = await store.recordWorkspace({ scanId: 's1', startedAt: seen, now: seen }, scope, [
    driftDraft(),
  ]);
  id = first.current.findings[0]!.id;
  await store.recordWorkspace({ scanId: 's2', startedAt: gone, now: gone }, scope, []);
});

describe('a finding resolved by the last scan', () => {
  it('findings show says resolved, and when', async () => {
    const [json, table] = await Promise.all([
      runCli(['findings', 'show', id.slice(0, 8), '--store', dir, '--format', 'json']),
      runCli(['findings', 'show', id.slice(0, 8), '--store', dir]),
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, status: 'resolved' });
    expect(table.stdout).toMatch(/^ {2}status\s+resolved\n/m);
    expect(table.stdout).toContain(`  resolved     ${gone.toISOString()} in scan s2\n`);
  });

  it('remediate says the finding is resolved before the plan it prints', async () => {
    const run = await runCli(['remediate', id.slice(0, 8), '--revert', '--store', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[2]).toBe(
      `The finding is resolved (the scan of ${gone.toISOString()} no longer saw it): check that there is still something to do.`,
    );
  });
});
