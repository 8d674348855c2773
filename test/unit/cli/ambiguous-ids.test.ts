import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { scanHistoryKey } from '../../../functions/core/findings/layout.js';
import { recordWorkspaceScan } from '../../../functions/core/findings/lifecycle.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';
import { suppressInProcess } from '../../helpers/suppress-cli.js';

/**
 * An open finding and a finding resolved last week whose ids share their first 12 characters: a
 * prefix of both names neither in the commands that take either (`findings show`, `remediate`), as
 * `git show` refuses a short id two objects share; `suppress` takes open findings only, and judges
 * among those, as `git log` takes the one commit among objects sharing a short id.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-ambiguous-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shared = 'beef0123abcd';
const openId = `${shared}${'1'.repeat(52)}`;
const resolvedId = `${shared}${'2'.repeat(52)}`;

beforeAll(async () => {
  const store = createFsObjectStore(dir);
  const lastWeek = new Date(Date.now() - 7 * 86_400_000);
  const old = recordWorkspaceScan(
    undefined,
    [driftDraft({ workspace: 'platform-prod', owner: 'platform' })],
    { workspace: 'platform-prod', scanId: 'scan-0', now: lastWeek, outcome: 'ok', check: 'terraform' },
  );
  const resolved = { ...old.current.findings[0]!, id: resolvedId, status: 'resolved' as const };
  await store.put(scanHistoryKey(lastWeek, 'scan-0', 'platform-prod'), `${JSON.stringify(resolved)}\n`);
  const now = new Date(Date.now() - 60_000);
  const { current } = recordWorkspaceScan(undefined, [driftDraft()], {
    workspace: 'payments-prod',
    scanId: 'scan-1',
    now,
    outcome: 'ok',
    check: 'terraform',
  });
  current.findings = current.findings.map((finding) => ({ ...finding, id: openId }));
  await store.put('current/payments-prod.json', JSON.stringify(current));
});

const ambiguity = `driftwatch: ${shared} matches 2 findings: ${openId.slice(0, 13)} (open), ${resolvedId.slice(0, 13)} (resolved) (give more characters of the id)\n`;

describe('a prefix an open and a resolved finding share', () => {
  it('findings show and remediate name both candidates in one line (exit 1), never the open one silently', async () => {
    const [show, remediate] = await Promise.all([
      runCli(['findings', 'show', shared, '--store', dir, '--format', 'json']),
      runCli(['remediate', shared, '--revert', '--store', dir]),
    ]);
    for (const run of [show, remediate]) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(ambiguity);
    }
  });

  it('findings show takes a longer prefix of either, and the whole id', async () => {
    const [open, resolved, whole] = await Promise.all([
      runCli(['findings', 'show', openId.slice(0, 13), '--store', dir, '--format', 'json']),
      runCli(['findings', 'show', resolvedId.slice(0, 13), '--store', dir, '--format', 'json']),
      runCli(['findings', 'show', openId, '--store', dir, '--format', 'json']),
    ]);
    expect(JSON.parse(open.stdout)).toMatchObject({ id: openId, status: 'new' });
    expect(JSON.parse(resolved.stdout)).toMatchObject({ id: resolvedId, status: 'resolved' });
    expect(JSON.parse(whole.stdout)).toMatchObject({ id: openId });
  });

  it('suppress, which acts on open findings only, takes the open one', async () => {
    const out = await suppressInProcess(dir, shared);
    expect(out).toMatch(new RegExp(`^suppressed ${openId.slice(0, 12)} \\(`));
  });
});
