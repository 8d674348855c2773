import { describe, expect, it } from 'vitest';
import { checkBackend } from '../../../../functions/core/backend/check-backend.js';
import { adhocTarget } from '../../../../functions/core/backend/target.js';
import {
  backendRegistry,
  compliantSettings,
  denied,
  fakeBackend,
  ok,
  stateBody,
} from '../../../helpers/backend.js';

const registry = backendRegistry(
  '  - { id: pay-prod, owner: payments, environment: prod, source: { dir: a }, backend: { bucket: tfstate, key: pay/terraform.tfstate, region: eu-west-1 } }',
  '  - { id: net-prod, owner: platform, environment: prod, source: { dir: b }, backend: { bucket: tfstate, key: net/terraform.tfstate, region: eu-west-1 } }',
);
const target = () => adhocTarget({ bucket: 'tfstate' }, registry);

const versioned = (serials: number[]) => ({
  body: stateBody({ serial: serials[0] }),
  history: serials.slice(1).map((serial, index) => ({ versionId: `v${index}`, body: stateBody({ serial }) })),
});

describe('checkBackend', () => {
  it('a compliant bucket with healthy states: every scope ok, nothing found, one listing page', async () => {
    const { reader, calls } = fakeBackend({
      objects: {
        'pay/terraform.tfstate': versioned([5, 4, 3]),
        'net/terraform.tfstate': versioned([2]),
        'other/terraform.tfstate': { body: stateBody() },
      },
    });
    const result = await checkBackend(reader, target());
    expect(result.runs.map((run) => [run.placement.workspace, run.outcome, run.drafts.length])).toEqual([
      ['s3.tfstate', 'ok', 0],
      ['pay-prod', 'ok', 0],
      ['net-prod', 'ok', 0],
    ]);
    expect(result.stateObjects).toBe(3);
    expect(calls.list).toBe(1);
    // Only registered states are read (one GET per recent version), never every key of the bucket.
    expect(calls.read.sort()).toEqual([
      'net/terraform.tfstate@net/terraform.tfstate@current',
      'pay/terraform.tfstate@pay/terraform.tfstate@current',
      'pay/terraform.tfstate@v0',
      'pay/terraform.tfstate@v1',
    ]);
  });

  it('places bucket findings in the bucket scope and state findings in the owning workspace', async () => {
    const { reader } = fakeBackend({
      settings: compliantSettings({ versioning: ok('Suspended') }),
      objects: {
        'pay/terraform.tfstate': versioned([2, 9]),
        'net/terraform.tfstate': { body: 'truncated {' },
      },
    });
    const result = await checkBackend(reader, target());
    const found = result.runs.flatMap((run) =>
      run.drafts.map((draft) => [draft.workspace, draft.ruleId, draft.owner]),
    );
    expect(found).toEqual([
      ['s3.tfstate', 'backend.versioning', 'platform'],
      ['pay-prod', 'state.serial-regressed', 'payments'],
      ['net-prod', 'state.unreadable', 'platform'],
    ]);
  });

  it('a bucket that does not exist: a scan-failed finding with the reason in every scope, nothing else', async () => {
    const { reader, calls } = fakeBackend({
      fail: {
        's3://tfstate': {
          resource: 's3://tfstate/',
          action: 's3:ListBucket',
          code: 'NoSuchBucket',
          message: 'The specified bucket does not exist',
        },
      },
    });
    const result = await checkBackend(reader, target());
    expect(result.runs.every((run) => run.outcome === 'failed')).toBe(true);
    const [bucketRun] = result.runs;
    expect(bucketRun?.drafts).toEqual([
      expect.objectContaining({
        kind: 'scan-failed',
        ruleId: 'scan.backend-failed',
        title: 'Backend check of s3://tfstate failed: NoSuchBucket',
      }),
    ]);
    expect(bucketRun?.drafts[0]?.detail).toContain('The specified bucket does not exist');
    expect(bucketRun?.drafts[0]?.remediation.steps.join(' ')).toMatch(/does not exist: fix the backend/);
    expect(calls.settings).toBe(0);
  });

  it('a setting it may not read: reported with the IAM action, the other rules still run', async () => {
    const { reader } = fakeBackend({
      settings: compliantSettings({
        policy: denied('s3:GetBucketPolicy'),
        objectOwnership: ok('ObjectWriter'),
      }),
      objects: { 'pay/terraform.tfstate': { body: stateBody() } },
    });
    const [bucketRun, payRun] = (await checkBackend(reader, target())).runs;
    expect(bucketRun?.outcome).toBe('failed');
    expect(bucketRun?.drafts.map((draft) => draft.ruleId)).toEqual([
      'backend.object-ownership',
      'scan.backend-failed',
    ]);
    expect(bucketRun?.drafts[1]?.remediation.steps[0]).toContain('Allow s3:GetBucketPolicy');
    expect(payRun?.outcome).toBe('ok');
  });

  it('a state it may not read fails that workspace only; the others are still checked', async () => {
    const { reader } = fakeBackend({
      objects: { 'pay/terraform.tfstate': { body: stateBody() }, 'net/terraform.tfstate': { body: '' } },
      fail: {
        's3://tfstate/pay/terraform.tfstate': {
          resource: 's3://tfstate/pay/terraform.tfstate',
          action: 's3:GetObjectVersion',
          code: 'AccessDenied',
          message: 'Access Denied',
        },
      },
    });
    const runs = (await checkBackend(reader, target())).runs;
    expect(
      runs.map((run) => [run.placement.workspace, run.outcome, run.drafts.map((draft) => draft.ruleId)]),
    ).toEqual([
      ['s3.tfstate', 'ok', []],
      ['pay-prod', 'failed', ['scan.backend-failed']],
      ['net-prod', 'ok', ['state.unreadable']],
    ]);
  });

  it('names keys it was asked to check that have no state object', async () => {
    const { reader } = fakeBackend({ objects: { 'pay/terraform.tfstate': { body: stateBody() } } });
    const result = await checkBackend(
      reader,
      adhocTarget({ bucket: 'tfstate', keys: ['typo.tfstate'] }, registry),
    );
    expect(result.missingStateKeys).toEqual(['net/terraform.tfstate', 'typo.tfstate']);
  });

  it('never lets state content into a finding', async () => {
    const secret = 'CANARY-backend-check-4d1e';
    const outputs = { db: { value: secret, sensitive: true } };
    const { reader } = fakeBackend({
      objects: {
        'pay/terraform.tfstate': { body: `{"version":4,"outputs":{"password":"${secret}"` },
        'net/terraform.tfstate': {
          body: stateBody({ serial: 1, outputs }),
          history: [{ versionId: 'v0', body: stateBody({ serial: 2, outputs }) }],
        },
      },
    });
    const result = await checkBackend(reader, target());
    const rules = result.runs.flatMap((run) => run.drafts.map((draft) => draft.ruleId));
    expect(rules).toEqual(['state.unreadable', 'state.serial-regressed']);
    expect(JSON.stringify(result)).not.toContain(secret);
  });
});
