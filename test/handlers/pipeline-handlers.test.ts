import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import { scanSummary } from '../helpers/findings.js';
import { runCli } from '../helpers/integration.js';

/** The state machine's own stages, run through `driftwatch invoke` with their sample events. */
const store = mkdtempSync(join(tmpdir(), 'driftwatch-pipeline-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));
const env = { DRIFTWATCH_STORE: store, DRIFTWATCH_HASH_SALT: 'pipeline-test-salt-000001' };
const invoke = async (handler: string) => {
  const run = await runCli(['invoke', handler, '--event', `events/${handler}.json`], { env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

describe('pipeline stage handlers', () => {
  it('load-registry writes the Map item lists and returns only pointers and counts', async () => {
    const result = await invoke('load-registry');
    expect(result).toMatchObject({
      scanId: '20261129T020000Z-sample',
      counts: { workspaces: 3, accounts: 1, codebuild: 0, buckets: 1, clusters: 0 },
      items: { workspaces: { key: 'scratch/scan=20261129T020000Z-sample/workspaces.json' } },
    });
    expect(Date.parse(result.confirmAt)).toBeGreaterThan(Date.now() + 10 * 60_000);
    const items = JSON.parse(readFileSync(join(store, result.items.workspaces.key), 'utf8'));
    expect(items).toContainEqual({
      scanId: '20261129T020000Z-sample',
      startedAt: '2026-11-29T02:00:00.000Z',
      registry: 'examples/estate/driftwatch.yaml',
      workspace: 'payments-prod',
      account: 'default',
      runner: 'lambda',
      timeoutSeconds: null,
      buildTimeoutMinutes: null,
    });
    const buckets = JSON.parse(readFileSync(join(store, result.items.buckets.key), 'utf8'));
    expect(buckets.map((item: { bucket: string }) => item.bucket)).toEqual(['driftwatch-demo-tfstate']);
  });

  it('record-scan-failure leaves a scan-failed finding for a workspace whose Lambda died, redacted', async () => {
    const result = await invoke('record-scan-failure');
    expect(result).toEqual({ scope: 'payments-prod', check: 'terraform', recorded: true });
    const current = JSON.parse(readFileSync(join(store, 'current/payments-prod.json'), 'utf8'));
    expect(current.findings).toEqual([
      expect.objectContaining({
        kind: 'scan-failed',
        // The sample's error is a Lambda timeout: the finding LoadRegistry moves to CodeBuild on.
        ruleId: 'scan.timeout',
        owner: 'payments',
        status: 'new',
      }),
    ]);
    expect(current.findings[0].detail).toContain('States.Timeout');
    expect(current.findings[0].detail).toContain('set runner: codebuild');
  });

  it('record-findings writes the scan summary from the history files; workspaces of the scan left without a record fail', async () => {
    const result = await invoke('record-findings');
    // load-registry listed three workspaces; only payments-prod was recorded (by record-scan-failure):
    // the other two were lost on the way, and say so instead of counting as skipped.
    expect(result).toMatchObject({
      summaryKey: 'scans/dt=2026-11-29/scan=20261129T020000Z-sample/summary.json',
      workspaces: { total: 3, scanned: 0, failed: 3, busy: 0, skipped: 0 },
      findings: 3,
    });
    const summary = JSON.parse(readFileSync(join(store, result.summaryKey), 'utf8'));
    expect(summary.failures.map((failure: { workspace: string }) => failure.workspace).sort()).toEqual([
      'payments-prod',
      'payments-staging',
      'platform-prod',
    ]);
    const lost = JSON.parse(readFileSync(join(store, 'current/platform-prod.json'), 'utf8'));
    expect(lost.findings[0].detail).toContain('ScanTerraform left no record of this workspace');
  });
});

describe('write-reports (after record-findings of the same store)', () => {
  it('writes the report for everybody and one per owner with only that owner’s findings, under the scan’s key', async () => {
    const result = await invoke('write-reports');
    const scan = 'reports/scan=20261129T020000Z-sample/';
    expect(result).toEqual({ everyone: `${scan}everyone.html`, owners: 2, failed: [] });
    const everyone = readFileSync(join(store, scan, 'everyone.html'), 'utf8');
    const payments = readFileSync(join(store, scan, 'owners/payments.html'), 'utf8');
    const platform = readFileSync(join(store, scan, 'owners/platform.html'), 'utf8');
    for (const report of [everyone, payments, platform]) expect(report).toMatch(/^<!doctype html>/i);
    // payments-prod's finding is in the report for everybody and in payments', not in platform's.
    expect(everyone).toContain('payments-prod');
    expect(payments).toContain('payments-prod');
    expect(payments).not.toContain('platform-prod');
    expect(platform).toContain('platform-prod');
    expect(platform).not.toContain('payments-prod');
  });
});

describe('notify-owners (after record-findings of the same store)', () => {
  const refusingSns = {
    TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:driftwatch-digests',
    // Nothing listens on port 9: every publish is refused.
    AWS_ENDPOINT_URL_SNS: 'http://127.0.0.1:9',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };

  it('an SNS that accepts nothing fails the invocation (the failed execution raises the alarm), the digests kept in the outbox', async () => {
    const result = await runCli(['invoke', 'notify-owners', '--event', 'events/notify-owners.json'], {
      env: { ...env, ...refusingSns },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('2 digests not accepted by SNS: 20261129T020000Z-sample.payments (');
    expect(result.stderr).toContain('Kept in notifications/outbox/ and sent by the next run');
    expect(readdirSync(join(store, 'notifications/outbox')).sort()).toEqual([
      '20261129T020000Z-sample.payments.json',
      '20261129T020000Z-sample.platform.json',
    ]);
  });

  /** check-health over a directory store prepared by `prepare`, with an SNS that accepts nothing. */
  async function checkHealthOver(prepare: (store: string) => Promise<void> = async () => {}) {
    const store = mkdtempSync(join(tmpdir(), 'driftwatch-pipeline-health-'));
    try {
      await prepare(store);
      return await runCli(['invoke', 'check-health', '--event', 'events/check-health.json'], {
        env: { ...env, ...refusingSns, DRIFTWATCH_STORE: store },
      });
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  }

  it('check-health alerts again under a new id for every alertAfter period a scanner stays down', async () => {
    // The last nightly scan finished 80 hours ago: three 26-hour periods of alertAfter, begun.
    const startedAt = new Date(Date.now() - 80 * 3_600_000);
    const result = await checkHealthOver((store) =>
      createFindingsStore(createFsObjectStore(store))
        .writeSummary({ scanId: 'nightly-1', startedAt }, scanSummary('nightly-1', startedAt))
        .then(() => undefined),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('1 digest not accepted by SNS: missing-after-nightly-1-3.platform (');
  });

  it('check-health fails when its scan-missing alert cannot be sent', async () => {
    const result = await checkHealthOver();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('1 digest not accepted by SNS: missing-after-none.platform (');
  });
});

describe('pipeline stage handlers, deployed recording (DRIFTWATCH_RECORDING=deferred)', () => {
  const deferredStore = mkdtempSync(join(tmpdir(), 'driftwatch-pipeline-deferred-'));
  afterAll(() => rmSync(deferredStore, { recursive: true, force: true }));
  const deferredEnv = { ...env, DRIFTWATCH_STORE: deferredStore, DRIFTWATCH_RECORDING: 'deferred' };
  const run = async (handler: string) => {
    const result = await runCli(['invoke', handler, '--event', `events/${handler}.json`], {
      env: deferredEnv,
    });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  it('a scanning stage leaves a pending record and writes neither current/ nor history; record-findings applies it', async () => {
    await run('record-scan-failure');
    expect(existsSync(join(deferredStore, 'current'))).toBe(false);
    expect(existsSync(join(deferredStore, 'scans'))).toBe(false);
    const record = JSON.parse(
      readFileSync(
        join(deferredStore, 'scratch/scan=20261129T020000Z-sample/records/payments-prod@terraform.json'),
        'utf8',
      ),
    );
    expect(record).toMatchObject({ workspace: 'payments-prod', check: 'terraform', outcome: 'failed' });

    const recorded = await run('record-findings');
    expect(recorded).toMatchObject({ workspaces: { failed: 1 }, findings: 1 });
    const current = JSON.parse(readFileSync(join(deferredStore, 'current/payments-prod.json'), 'utf8'));
    expect(current.findings).toEqual([expect.objectContaining({ ruleId: 'scan.timeout', status: 'new' })]);
  });

  it('refuses an unknown recording mode at cold start, naming the variable', async () => {
    const result = await runCli(
      ['invoke', 'record-scan-failure', '--event', 'events/record-scan-failure.json'],
      {
        env: { ...deferredEnv, DRIFTWATCH_RECORDING: 'later' },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DRIFTWATCH_RECORDING takes deferred or direct, not later');
  });
});
