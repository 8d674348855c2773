import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import { scanHistoryKey, scratchPrefix } from '../../../../functions/core/findings/layout.js';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { bucketScope } from '../../../../functions/core/routing/scopes.js';
import { isTimeoutFailure, timeoutFailureReason } from '../../../../functions/core/scan/timeout-failure.js';
import { recordUnfinishedScopes, unfinishedScopes } from '../../../../functions/core/scan/unfinished.js';
import { useTempDirs } from '../../../helpers/processes.js';

const tempDir = useTempDirs('driftwatch-unfinished-');
const registry = parseRegistry(
  [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }, { id: payments, destinations: [{ type: email, address: q@example.com }] }] }',
    'workspaces:',
    '  - { id: pay, owner: payments, environment: prod, source: { dir: x }, backend: { bucket: tfstate-a, key: p.tfstate, region: eu-west-1 } }',
    '  - { id: shop, owner: payments, environment: staging, source: { dir: x }, backend: { bucket: tfstate-a, key: s.tfstate, region: eu-west-1 } }',
    '',
  ].join('\n'),
);
const context = { scanId: 'scan-1', startedAt: '2026-12-02T02:00:00.000Z', registry: 'r.yaml' };
const lists = {
  workspaces: [
    { ...context, workspace: 'pay' },
    { ...context, workspace: 'shop' },
  ],
  buckets: [{ ...context, bucket: 'tfstate-a' }],
  clusters: [],
};
const mapFailed = {
  Error: 'States.ExceedToleratedFailureThreshold',
  Cause: 'The tolerated failure threshold was exceeded',
};

describe('scopes a failed Map never recorded', () => {
  it('become one scan-failed finding each, with the Map’s error and the scope’s owner; recorded scopes are left alone', () => {
    const unfinished = unfinishedScopes(
      registry,
      { ScanTerraform: mapFailed },
      lists,
      new Set(['pay@terraform']),
    );
    expect(unfinished).toHaveLength(1);
    expect(unfinished[0]).toMatchObject({
      stage: 'ScanTerraform',
      scope: 'shop',
      check: 'terraform',
      draft: {
        kind: 'scan-failed',
        ruleId: 'scan.stage-failed',
        owner: 'payments',
        environment: 'staging',
        evidence: expect.objectContaining({ stage: 'ScanTerraform', mapFailed: true }),
      },
    });
    expect(unfinished[0]!.draft.detail).toContain(
      'ScanTerraform stopped before this workspace was scanned: States.ExceedToleratedFailureThreshold',
    );
  });

  it('a workspace or cluster without any record fails even when no Map failed (a lost child execution); buckets only with a failed Map', () => {
    const unfinished = unfinishedScopes(registry, {}, lists, new Set(['pay@terraform']));
    expect(unfinished.map(({ stage, scope, check }) => [stage, scope, check])).toEqual([
      ['ScanTerraform', 'shop', 'terraform'],
    ]);
    expect(unfinished[0]!.draft.detail).toContain('ScanTerraform left no record of this workspace');
    expect(unfinished[0]!.draft.evidence).toMatchObject({ noRecord: true });
  });

  it('covers state buckets of the backend and lock stages, once per scope and check', () => {
    const unfinished = unfinishedScopes(
      registry,
      { ObserveLocks: mapFailed, ConfirmLocks: mapFailed, CheckBackend: mapFailed },
      lists,
      new Set(['pay@terraform', 'shop@terraform']),
    );
    expect(unfinished.map(({ stage, scope, check }) => [stage, scope, check])).toEqual([
      ['ObserveLocks', bucketScope('tfstate-a'), 'locks'],
      ['CheckBackend', bucketScope('tfstate-a'), 'backend'],
    ]);
  });

  it('RecordFindings records them from the scan’s own lists and history, once', async () => {
    const dir = tempDir();
    const objects = createFsObjectStore(dir);
    const store = createFindingsStore(objects);
    const scan = {
      scanId: 'scan-1',
      startedAt: new Date(context.startedAt),
      now: new Date('2026-12-02T03:00:00Z'),
    };
    await objects.put(`${scratchPrefix('scan-1')}workspaces.json`, JSON.stringify(lists.workspaces));
    await store.recordWorkspace(scan, { workspace: 'pay', check: 'terraform', outcome: 'ok' }, []);

    // ScanTerraform failed as a whole: shop, without a record, gets one; pay keeps its own.
    const recorded = await recordUnfinishedScopes(
      registry,
      { ScanTerraform: mapFailed },
      { store, objects },
      scan,
    );
    expect(recorded.map((entry) => entry.scope)).toEqual(['shop']);
    // Recorded once: the next pass finds nothing left.
    expect(await recordUnfinishedScopes(registry, {}, { store, objects }, scan)).toEqual([]);
    const history = readFileSync(join(dir, scanHistoryKey(scan.startedAt, 'scan-1', 'shop')), 'utf8');
    expect(JSON.parse(history.split('\n')[0]!)).toMatchObject({
      kind: 'scan-failed',
      workspace: 'shop',
      status: 'new',
    });
    // pay's own record is untouched: still no findings.
    expect(readFileSync(join(dir, scanHistoryKey(scan.startedAt, 'scan-1', 'pay')), 'utf8').trim()).toBe('');
  });
});

describe('a host timeout of a Terraform scan', () => {
  it('is recognised from Lambda’s and CodeBuild’s errors, not from other failures', () => {
    expect(isTimeoutFailure({ Error: 'States.Timeout' })).toBe(true);
    expect(
      isTimeoutFailure({
        Error: 'Sandbox.Timedout',
        Cause: '{"errorMessage":"Task timed out after 900.00 seconds"}',
      }),
    ).toBe(true);
    expect(
      isTimeoutFailure({ Error: 'States.TaskFailed', Cause: '{"Build":{"buildStatus":"TIMED_OUT"}}' }),
    ).toBe(true);
    expect(
      isTimeoutFailure({ Error: 'States.TaskFailed', Cause: '{"Build":{"buildStatus":"FAILED"}}' }),
    ).toBe(false);
    expect(isTimeoutFailure({ Error: 'Error', Cause: 'plan failed' })).toBe(false);
  });

  it('tells the owner what to change, by runner', () => {
    expect(timeoutFailureReason('ScanTerraform', { Error: 'Sandbox.Timedout' }, 'lambda')).toBe(
      'ScanTerraform exceeded its time limit (Sandbox.Timedout); set runner: codebuild',
    );
    expect(timeoutFailureReason('ScanTerraform', { Error: 'States.TaskFailed' }, 'codebuild')).toMatch(
      /raise the workspace timeout \(at most 8h\)$/,
    );
  });
});
