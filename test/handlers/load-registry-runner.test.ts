import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { findingId } from '../../functions/core/findings/fingerprint.js';
import { SCAN_TIMEOUT_RULE_ID } from '../../functions/core/scan/runner-plan.js';

/**
 * The LoadRegistry handler itself, on the demo registry, with a local store we prepare. Its module
 * reads its configuration at import, so the environment is set before it is loaded.
 */
const store = mkdtempSync(join(tmpdir(), 'driftwatch-load-registry-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));
const base = { registry: 'examples/estate/driftwatch.yaml', startedAt: '2026-12-02T02:00:00.000Z' };
// Unit files share their worker's modules (vitest.config.ts): load the handlers afresh with our
// environment (test/unit-setup.ts gives it back after the file).
vi.stubEnv('DRIFTWATCH_STORE', store);
vi.stubEnv('ACCOUNT_CONCURRENCY', '2');
vi.stubEnv('FINDINGS_BUCKET', undefined);
vi.resetModules();
const { handler } = await import('../../functions/handlers/load-registry.js');
const context = { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'test' } as unknown as Context;

async function loadRegistry(event: Record<string, unknown>) {
  return (await handler({ ...base, ...event } as never, context)) as {
    items: Record<'workspaces' | 'accounts' | 'buckets' | 'clusters', { key: string }>;
    counts: Record<string, number>;
    filter: unknown;
    failures: unknown;
  };
}
const list = (key: string) => JSON.parse(readFileSync(join(store, key), 'utf8'));

describe('load-registry, runners and filters', () => {
  it('moves a workspace whose last Lambda scan timed out to CodeBuild, and groups the workspaces by account', async () => {
    mkdirSync(join(store, 'current'), { recursive: true });
    // What RecordFindings left after a night whose payments-prod plan timed out in Lambda.
    const id = findingId({ kind: 'scan-failed', ruleId: SCAN_TIMEOUT_RULE_ID, workspace: 'payments-prod' });
    writeFileSync(
      join(store, 'current', 'payments-prod.json'),
      JSON.stringify({
        workspace: 'payments-prod',
        updatedAt: '2026-12-01T02:20:00.000Z',
        lastScan: { scanId: 'night-1', status: 'failed', at: '2026-12-01T02:20:00.000Z' },
        checks: { terraform: { scanId: 'night-1', status: 'failed', at: '2026-12-01T02:20:00.000Z' } },
        findings: [
          {
            id,
            kind: 'scan-failed',
            ruleId: SCAN_TIMEOUT_RULE_ID,
            severity: 'high',
            status: 'new',
            workspace: 'payments-prod',
            owner: 'payments',
            environment: 'prod',
            title: 'Scan of payments-prod failed: plan exceeded 14 min; set runner: codebuild',
            detail: 'plan exceeded 14 min; set runner: codebuild',
            evidence: { stage: 'plan', timedOut: true },
            remediation: { summary: 's', steps: [] },
            scanId: 'night-1',
            firstSeenAt: '2026-12-01T02:20:00.000Z',
            lastSeenAt: '2026-12-01T02:20:00.000Z',
            check: 'terraform',
          },
        ],
        resolved: [],
      }),
    );
    const result = await loadRegistry({ scanId: 'night-2' });
    expect(result).toMatchObject({ counts: { workspaces: 3, codebuild: 1 }, failures: {}, filter: null });
    const workspaces = list(result.items.workspaces.key);
    expect(
      workspaces.find((item: { workspace: string }) => item.workspace === 'payments-prod'),
    ).toMatchObject({
      runner: 'codebuild',
      timeoutSeconds: 7200,
      buildTimeoutMinutes: 125,
    });
    expect(workspaces.filter((item: { runner: string }) => item.runner === 'lambda')).toHaveLength(2);
    const accounts = list(result.items.accounts.key);
    expect(accounts).toEqual([
      expect.objectContaining({ account: 'default', maxConcurrency: 2, scanId: 'night-2' }),
    ]);
    expect(accounts[0].workspaces).toHaveLength(3);
  });

  it('re-scans one workspace on demand: only it, its state bucket, no clusters', async () => {
    const result = await loadRegistry({ scanId: 'rescan-1', filter: { workspace: 'payments-staging' } });
    expect(result.filter).toEqual({ workspace: 'payments-staging' });
    expect(list(result.items.workspaces.key).map((item: { workspace: string }) => item.workspace)).toEqual([
      'payments-staging',
    ]);
    expect(list(result.items.clusters.key)).toEqual([]);
    expect(list(result.items.buckets.key)).toHaveLength(1);
  });

  it('refuses a filter that names nothing in the registry, naming what there is', async () => {
    await expect(loadRegistry({ scanId: 'rescan-2', filter: { account: '999999999999' } })).rejects.toThrow(
      "no account '999999999999' in the registry; accounts: default",
    );
  });
});
