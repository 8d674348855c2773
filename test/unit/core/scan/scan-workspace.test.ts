import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { stateObjectKey } from '../../../../functions/core/registry/state-key.js';
import { TerraformRunError } from '../../../../functions/core/scan/ports.js';
import { scanWorkspace } from '../../../../functions/core/scan/scan-workspace.js';
import type { CompactChange } from '../../../../functions/core/terraform/index.js';
import { type FakeOptions, fakePorts, now, plan, tagDrift, workspace } from './scan-fakes.js';

const deleted = (address: string): CompactChange => ({
  address,
  type: address.split('.')[0]!,
  mode: 'managed',
  actions: ['delete'],
  changes: [],
});

const scan = (options: FakeOptions) => {
  const fake = fakePorts(options);
  return scanWorkspace(workspace, DEFAULT_POLICIES, fake.ports, { now }).then((result) => ({
    result,
    calls: fake.calls,
  }));
};

describe('scanWorkspace: deletions are only reported when the reads behind them got an answer', () => {
  const forbidden = { operation: 'S3/HeadBucket', status: 403, error: 'Forbidden' };
  const refused = {
    operation: 'HEAD http://127.0.0.1:1',
    status: 0,
    error: 'dial tcp 127.0.0.1:1: connect: connection refused',
  };

  it.each([
    ['a 403', [forbidden], /S3\/HeadBucket: HTTP 403 Forbidden/, /s3:ListBucket/],
    [
      'no answer',
      [refused],
      /HEAD http:\/\/127\.0\.0\.1:1: dial tcp .*connection refused/,
      /endpoints and the network/,
    ],
    [
      'both',
      [forbidden, refused],
      /HTTP 403 Forbidden; HEAD/,
      /s3:ListBucket.*, and check the provider's endpoints/,
    ],
  ])(
    'a deletion whose re-read got %s is a failed scan naming the call and the fix',
    async (_case, failures, named, fix) => {
      const { result, calls } = await scan({
        plans: [plan([deleted('aws_sqs_queue.events'), tagDrift])],
        readFailures: failures,
      });
      expect(result.status).toBe('failed');
      expect(result.findings).toHaveLength(1);
      const [finding] = result.findings;
      expect(finding).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.read-failed' });
      expect(finding!.title).toMatch(
        /^Scan of payments-prod failed: aws_sqs_queue\.events reported deleted without proof/,
      );
      expect(finding!.detail).toMatch(named);
      expect(finding!.detail).toMatch(fix);
      expect(finding!.evidence.failedReads).toEqual(failures);
      expect(calls).toContain('readFailures aws_sqs_queue.events');
      expect(calls.at(-1)).toBe('close');
    },
  );

  it('the re-read targets the moved resources too: Terraform refuses a targeted plan that leaves a moved instance out', async () => {
    const movedBucket: CompactChange = {
      ...tagDrift,
      address: 'aws_s3_bucket.archive2',
      previousAddress: 'aws_s3_bucket.archive',
    };
    const { calls } = await scan({
      plans: [plan([deleted('aws_sqs_queue.events'), movedBucket])],
      readFailures: [],
    });
    expect(calls).toContain('readFailures aws_sqs_queue.events,aws_s3_bucket.archive,aws_s3_bucket.archive2');
  });

  it('a deletion whose re-read failed nowhere is reported; drift without deletions is not re-read', async () => {
    const withDeletion = await scan({ plans: [plan([deleted('aws_sqs_queue.events')])], readFailures: [] });
    expect(withDeletion.result.findings.map((finding) => finding.ruleId)).toEqual(['drift.delete']);
    const withoutDeletion = await scan({ plans: [plan([tagDrift])], readFailures: [forbidden] });
    expect(withoutDeletion.result.status).toBe('ok');
    expect(withoutDeletion.calls.some((call) => call.startsWith('readFailures'))).toBe(false);
  });
});

describe('scanWorkspace', () => {
  it('reports drift from one plan and always cleans up the working directory', async () => {
    const { result, calls } = await scan({ plans: [plan([tagDrift])] });
    expect(result.status).toBe('ok');
    expect(result.plansRun).toBe(1);
    expect(
      result.findings.map((finding) => [
        finding.kind,
        finding.resource && 'address' in finding.resource && finding.resource.address,
      ]),
    ).toEqual([['terraform-drift', 'aws_s3_bucket.ledger']]);
    expect(calls).toEqual(['prepare', 'version', 'plan', 'version', 'close']);
  });

  it('decides from the plan JSON: a plan without drift gives no findings whatever the exit code', async () => {
    const { result } = await scan({ plans: [plan()] });
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('ok');
  });

  it('rescans once when the state object changed during the plan, and reports the fresh plan', async () => {
    const { result, calls } = await scan({
      plans: [plan(), plan([tagDrift])],
      versions: [{ versionId: 'v1' }, { versionId: 'v2' }, { versionId: 'v2' }, { versionId: 'v2' }],
    });
    expect(result.status).toBe('ok');
    expect(result.plansRun).toBe(2);
    expect(calls.filter((call) => call === 'plan')).toHaveLength(2);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]!.evidence).toMatchObject({ rescannedAfterStateChange: true });
  });

  it('reports workspace-busy (info) instead of drift when the state changes again during the rescan', async () => {
    const { result } = await scan({
      plans: [plan([tagDrift])],
      versions: [{ versionId: 'v1' }, { versionId: 'v2' }, { versionId: 'v2' }, { versionId: 'v3' }],
    });
    expect(result.status).toBe('busy');
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'workspace-busy', severity: 'info', ruleId: 'scan.workspace-busy' }),
    ]);
    expect(result.findings[0]!.evidence.stateVersions).toEqual([
      { versionId: 'v1' },
      { versionId: 'v2' },
      { versionId: 'v2' },
      { versionId: 'v3' },
    ]);
  });

  it('compares ETag and LastModified when the bucket is not versioned', async () => {
    const { result } = await scan({
      plans: [plan(), plan()],
      versions: [
        { etag: '"a"', lastModified: 't1' },
        { etag: '"b"', lastModified: 't2' },
        { etag: '"b"', lastModified: 't2' },
      ],
    });
    expect(result.plansRun).toBe(2);
  });

  it('confirms a plan that deletes half the workspace with a second plan, and says so in the evidence', async () => {
    const massDeletion = plan([deleted('aws_security_group.db'), deleted('aws_sqs_queue.events')]);
    const { result } = await scan({ plans: [massDeletion, massDeletion] });
    expect(result.plansRun).toBe(2);
    expect(result.findings).toHaveLength(2);
    for (const finding of result.findings) {
      expect(finding.ruleId).toBe('drift.delete');
      expect(finding.evidence.confirmedBySecondPlan).toMatchObject({
        reason: 'deletion-guard',
        firstPlan: { deletions: 2, managed: 3 },
        secondPlan: { deletions: 2, managed: 3 },
      });
    }
  });

  it('reports what the confirming plan saw when the mass deletion does not repeat', async () => {
    const { result } = await scan({
      plans: [plan([deleted('aws_security_group.db'), deleted('aws_sqs_queue.events')]), plan()],
    });
    expect(result.plansRun).toBe(2);
    expect(result.findings).toEqual([]);
  });

  it('plans twice when the identity preflight failed', async () => {
    const { result } = await scan({
      plans: [plan([tagDrift])],
      identity: { ok: false, reason: 'ExpiredToken' },
    });
    expect(result.plansRun).toBe(2);
    expect(result.findings[0]!.evidence.confirmedBySecondPlan).toMatchObject({
      reason: 'identity-preflight-failed',
      identity: { ok: false, reason: 'ExpiredToken' },
    });
  });

  it("turns an errored plan into exactly one scan-failed finding with Terraform's reason, and no drift", async () => {
    const errored = plan([deleted('aws_s3_bucket.ledger')], { errored: true, complete: false });
    const { result } = await scan({ plans: [errored] });
    expect(result.status).toBe('failed');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ kind: 'scan-failed' });
    expect(result.findings[0]!.detail).toContain('connection refused');
  });

  it('reports a failed credential, init or plan step as scan-failed with the stage', async () => {
    const noRole = await scan({
      plans: [],
      credentials: async () => Promise.reject(new Error('AccessDenied')),
    });
    expect(noRole.result.findings).toEqual([
      expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.credentials' }),
    ]);
    expect(noRole.result.findings[0]!.detail).toContain('AccessDenied');

    const noInit = await scan({
      plans: [],
      prepare: async () => Promise.reject(new TerraformRunError('init', 'backend bucket missing')),
    });
    expect(noInit.result.findings).toEqual([expect.objectContaining({ ruleId: 'scan.init-failed' })]);

    const timeout = await scan({
      plans: [],
      planError: new TerraformRunError('plan', 'timed out after 900s'),
    });
    expect(timeout.result.findings).toEqual([expect.objectContaining({ ruleId: 'scan.plan-failed' })]);
    expect(timeout.calls).toContain('close');
  });
});

describe('stateObjectKey', () => {
  it('puts non-default CLI workspaces under the workspace prefix, like the S3 backend', () => {
    expect(stateObjectKey(workspace)).toBe('payments/terraform.tfstate');
    expect(stateObjectKey({ ...workspace, backend: { ...workspace.backend, workspace: 'blue' } })).toBe(
      'env:/blue/payments/terraform.tfstate',
    );
    expect(
      stateObjectKey({
        ...workspace,
        backend: { ...workspace.backend, workspace: 'blue', workspaceKeyPrefix: 'workspaces' },
      }),
    ).toBe('workspaces/blue/payments/terraform.tfstate');
    expect(stateObjectKey({ ...workspace, backend: { ...workspace.backend, workspace: 'default' } })).toBe(
      'payments/terraform.tfstate',
    );
  });
});
