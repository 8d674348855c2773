import { describe, expect, it } from 'vitest';
import {
  checkBackend,
  STATE_HEAD_BYTES,
  STATE_HEAD_MAX_BYTES,
} from '../../../../functions/core/backend/check-backend.js';
import { BackendReadError, type ReadFailure } from '../../../../functions/core/backend/ports.js';
import { checkAndRecordBackend } from '../../../../functions/core/backend/stages.js';
import { adhocTarget } from '../../../../functions/core/backend/target.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import {
  backendRegistry,
  compliantSettings,
  denied,
  type FakeObject,
  fakeBackend,
  manualClock,
  memoryObjectStore,
  ok,
  refusedListing,
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
    // ACLs are disabled (BucketOwnerEnforced): no object ACL can make a state public, none is read.
    expect(calls.acls).toEqual([]);
    // Only registered states are read (one GET per recent version), never every key of the bucket.
    expect(calls.read.sort()).toEqual([
      'net/terraform.tfstate@net/terraform.tfstate@current',
      'pay/terraform.tfstate@pay/terraform.tfstate@current',
      'pay/terraform.tfstate@v0',
      'pay/terraform.tfstate@v1',
    ]);
  });

  it('judges a size-filtered lifecycle rule by the sizes the listing gave, with no request per key', async () => {
    const settings = compliantSettings({
      lifecycle: ok([
        {
          enabled: true,
          tagFiltered: false,
          objectSize: { greaterThan: 1024 * 1024 },
          noncurrentVersionExpiration: { days: 30 },
        },
      ]),
    });
    const { reader } = fakeBackend({
      settings,
      objects: {
        'pay/terraform.tfstate': { body: stateBody(), size: 2 * 1024 * 1024 },
        'net/terraform.tfstate': { body: stateBody() },
      },
    });
    const drafts = (await checkBackend(reader, target())).runs.flatMap((run) => run.drafts);
    expect(
      drafts.find((draft) => draft.ruleId === 'backend.noncurrent-version-retention')?.evidence,
    ).toMatchObject({ uncoveredStateObjects: 1, uncoveredExamples: ['net/terraform.tfstate'] });
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

  it('a failed preflight: one finding with the cause in the bucket scope, no rule runs, every scope failed', async () => {
    const { reader, calls } = fakeBackend({
      objects: { 'pay/terraform.tfstate': { body: stateBody() } },
      fail: { 's3://tfstate': refusedListing },
    });
    const result = await checkBackend(reader, target());
    expect(result.runs.map((run) => [run.placement.workspace, run.outcome, run.drafts.length])).toEqual([
      ['s3.tfstate', 'failed', 1],
      ['pay-prod', 'failed', 0],
      ['net-prod', 'failed', 0],
    ]);
    expect(result.preflight?.code).toBe('ECONNREFUSED');
    const [finding] = result.runs[0]!.drafts;
    expect(finding).toMatchObject({
      kind: 'scan-failed',
      ruleId: 'backend.preflight',
      severity: 'high',
      workspace: 's3.tfstate',
      owner: 'platform',
      title: 'Backend check failed: connection refused to 127.0.0.1:1',
      evidence: {
        cause: 'unreachable',
        errorName: 'Error',
        code: 'ECONNREFUSED',
        endpoint: '127.0.0.1:1',
        action: 's3:ListBucket',
      },
    });
    expect(finding?.detail).toMatch(/No rule was evaluated/);
    expect(finding?.remediation.summary).toMatch(/AWS_ENDPOINT_URL/);
    expect(finding?.remediation.steps[0]).toContain(
      'aws s3api list-objects-v2 --bucket tfstate --max-keys 1',
    );
    // Nothing else was asked of an unreachable bucket: no listing, no settings, no state.
    expect([calls.preflight, calls.list, calls.settings, calls.versions, calls.read.length]).toEqual([
      1, 0, 0, 0, 0,
    ]);
    expect(result.missingStateKeys).toEqual([]);
  });

  it('a bucket that does not exist: the same one finding, with the fix for a wrong bucket', async () => {
    const { reader } = fakeBackend({
      fail: {
        's3://tfstate': {
          resource: 's3://tfstate/',
          action: 's3:ListBucket',
          code: 'NoSuchBucket',
          message: 'The specified bucket does not exist',
        },
      },
    });
    const drafts = (await checkBackend(reader, target())).runs.flatMap((run) => run.drafts);
    expect(drafts).toEqual([
      expect.objectContaining({
        ruleId: 'backend.preflight',
        title: 'Backend check failed: the bucket does not exist (NoSuchBucket)',
        evidence: expect.objectContaining({ cause: 'no-such-bucket', errorName: 'NoSuchBucket' }),
      }),
    ]);
    expect(drafts[0]?.remediation.summary).toMatch(/fix backend.bucket in the registry/);
  });

  it('a listing that fails after the preflight: one finding in the bucket scope, every scope failed', async () => {
    const { reader, calls } = fakeBackend({
      fail: {
        'list:tfstate': {
          resource: 's3://tfstate/',
          action: 's3:ListBucket',
          code: 'SlowDown',
          message: 'Please reduce your request rate.',
        },
      },
    });
    const result = await checkBackend(reader, target());
    expect(
      result.runs.map((run) => [run.placement.workspace, run.outcome, run.drafts.map((d) => d.ruleId)]),
    ).toEqual([
      ['s3.tfstate', 'failed', ['scan.backend-failed']],
      ['pay-prod', 'failed', []],
      ['net-prod', 'failed', []],
    ]);
    expect(result.runs[0]?.drafts[0]?.title).toBe(
      'Backend check failed: SlowDown on s3:ListBucket (throttled)',
    );
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
    const failed = bucketRun?.drafts[1];
    // The cause, not "failed: Error": the SDK's code and the action, and the rule it kept from running.
    expect(failed?.title).toBe('Backend check failed: AccessDenied on s3:GetBucketPolicy');
    expect(failed?.detail).toContain('so backend.tls-only was not evaluated');
    expect(failed?.evidence).toEqual({
      failures: [expect.objectContaining({ cause: 'access-denied', notEvaluated: ['backend.tls-only'] })],
    });
    expect(failed?.remediation.steps).toEqual([
      expect.stringMatching(
        /^Allow s3:GetBucketPolicy on arn:aws:s3:::tfstate to the role driftwatch reads with/,
      ),
    ]);
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

  it('reads only the first bytes of each state version, whatever its size, and takes its header from them', async () => {
    // A 600 MiB state: the header is in its first bytes, as Terraform writes it.
    const head = (serial: number) =>
      `{\n  "version": 4,\n  "terraform_version": "1.11.4",\n  "serial": ${serial},\n  "lineage": "5e0c1c2d-7a0b-4a37-9d7e-0c8a1d1f0001",\n  "outputs": {},\n  "resources": [${'{"mode":"managed"},'.repeat(10_000)}{}]\n}\n`;
    const { reader, calls } = fakeBackend({
      objects: {
        'pay/terraform.tfstate': {
          body: head(4),
          size: 600 * 1024 * 1024,
          history: [{ versionId: 'v1', body: head(7) }],
        },
        'net/terraform.tfstate': versioned([2]),
      },
    });
    const result = await checkBackend(reader, target());
    const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
    expect(pay.drafts.map((draft) => [draft.ruleId, draft.evidence?.after])).toEqual([
      ['state.serial-regressed', expect.objectContaining({ serial: 4, terraformVersion: '1.11.4' })],
    ]);
    expect(new Set(calls.ranges)).toEqual(new Set([STATE_HEAD_BYTES]));
    // The current version's last bytes too (a whole parse would have seen a write cut short).
    expect(calls.read.filter((read) => read.endsWith('(end)'))).toEqual([
      'pay/terraform.tfstate@pay/terraform.tfstate@current (end)',
    ]);
  });

  it('a large current state cut short (no closing brace) is state.unreadable, though its header reads', async () => {
    const cut = `{"version":4,"terraform_version":"1.11.4","serial":4,"lineage":"5e0c1c2d-7a0b-4a37-9d7e-0c8a1d1f0001","outputs":{},"resources":[${'{"mode":"managed"},'.repeat(10_000)}{"mode":"man`;
    const { reader } = fakeBackend({
      objects: { 'pay/terraform.tfstate': { body: cut }, 'net/terraform.tfstate': versioned([2]) },
    });
    const result = await checkBackend(reader, target());
    const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
    expect(pay.drafts.map((draft) => [draft.ruleId, draft.evidence?.reason])).toEqual([
      ['state.unreadable', 'the state does not end with the closing } of its JSON object: a write cut short'],
    ]);
  });

  it('a header beyond the bytes read is an info finding naming the fields, never an invented lineage or serial', async () => {
    // `jq -S` sorts the members: serial and version come after resources.
    const sorted = (serial: number) =>
      `{"lineage":"5e0c1c2d-7a0b-4a37-9d7e-0c8a1d1f0001","outputs":{},"resources":[${'{"mode":"managed","type":"aws_s3_bucket"},'.repeat(200_000)}{}],"serial":${serial},"terraform_version":"1.11.4","version":4}`;
    const { reader, calls } = fakeBackend({
      objects: {
        'pay/terraform.tfstate': { body: sorted(1), history: [{ versionId: 'v1', body: sorted(9) }] },
        'net/terraform.tfstate': versioned([2]),
      },
    });
    const result = await checkBackend(reader, target());
    const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
    expect(pay.drafts.map((draft) => [draft.ruleId, draft.severity, draft.evidence?.reason])).toEqual([
      [
        'state.unreadable',
        'info',
        expect.stringMatching(/^the state header \(version, serial\) is not within/),
      ],
    ]);
    // Readable state: the detail says what was left out, not that Terraform cannot read it.
    expect(pay.drafts[0]!.detail).not.toMatch(/cannot (plan|read)|failed write|truncated/);
    // One further read, bounded, then no more.
    expect(calls.ranges.filter((bytes) => bytes > STATE_HEAD_BYTES)).toEqual([
      STATE_HEAD_MAX_BYTES,
      STATE_HEAD_MAX_BYTES,
    ]);
  });

  it('a state Terraform 0.11 wrote (format 3) is state: its lineage and serial are checked, no "restore the last good version"', async () => {
    // Terraform 0.11's layout (statefile/version3.go): the header first, resources per module in a map.
    const v3 = (serial: number, padding = 0) =>
      `{"version":3,"terraform_version":"0.11.14","serial":${serial},"lineage":"5e0c1c2d-7a0b-4a37-9d7e-0c8a1d1f0001","modules":[{"path":["root"],"outputs":{},"resources":{${'"aws_s3_bucket.a":{"type":"aws_s3_bucket","primary":{"id":"a","attributes":{}}},'.repeat(padding)}"aws_s3_bucket.b":{"type":"aws_s3_bucket","primary":{"id":"b","attributes":{}}}},"depends_on":[]}]}\n`;
    for (const body of [v3(7), v3(7, 5_000)]) {
      const { reader } = fakeBackend({
        objects: {
          'pay/terraform.tfstate': { body, history: [{ versionId: 'v1', body: v3(6) }] },
          'net/terraform.tfstate': versioned([2]),
        },
      });
      const result = await checkBackend(reader, target());
      const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
      expect(pay.drafts).toEqual([]);
    }
    // Its serial went back: the serial rule reads format 3 as it reads 4.
    const { reader } = fakeBackend({
      objects: {
        'pay/terraform.tfstate': { body: v3(3), history: [{ versionId: 'v1', body: v3(9) }] },
        'net/terraform.tfstate': versioned([2]),
      },
    });
    const pay = (await checkBackend(reader, target())).runs.find(
      (run) => run.placement.workspace === 'pay-prod',
    )!;
    expect(pay.drafts.map((draft) => draft.ruleId)).toEqual(['state.serial-regressed']);
  });

  it('an old-format state without a lineage is an info finding that says so, never high with a restore', async () => {
    const old = '{"version":1,"serial":3,"modules":[{"path":["root"],"resources":{}}]}';
    const { reader } = fakeBackend({
      objects: { 'pay/terraform.tfstate': { body: old }, 'net/terraform.tfstate': versioned([2]) },
    });
    const pay = (await checkBackend(reader, target())).runs.find(
      (run) => run.placement.workspace === 'pay-prod',
    )!;
    expect(pay.drafts.map((draft) => [draft.ruleId, draft.severity])).toEqual([['state.unreadable', 'info']]);
    const [draft] = pay.drafts;
    expect(draft!.title).toMatch(/not checked: it is in a state format of Terraform 0\.11 or older$/);
    expect(draft!.evidence?.reason).toMatch(
      /^no lineage, or a lineage that is not an id, in state format 1 \(written by Terraform 0\.11/,
    );
    expect(JSON.stringify(draft!.remediation)).not.toMatch(/restore|state push/i);
  });

  it('a state whose SSE-KMS key the scanner may not use: the finding names the key and kms:Decrypt, never "no state" or a lineage finding', async () => {
    const key = 'arn:aws:kms:eu-west-1:111111111111:key/1';
    // S3's answer when kms:Decrypt is missing: the same AccessDenied as a missing s3:GetObject.
    const kmsDenied: ReadFailure = {
      resource: 's3://tfstate/pay/terraform.tfstate',
      action: 's3:GetObjectVersion',
      code: 'AccessDenied',
      message: 'Access Denied',
      httpStatus: 403,
    };
    const { reader } = fakeBackend({
      objects: { 'pay/terraform.tfstate': versioned([5, 4]), 'net/terraform.tfstate': versioned([2]) },
      fail: { 's3://tfstate/pay/terraform.tfstate': kmsDenied },
    });
    const result = await checkBackend(reader, target());
    expect(result.missingStateKeys).toEqual([]);
    const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
    expect(pay.outcome).toBe('failed');
    expect(pay.drafts.map((draft) => draft.ruleId)).toEqual(['scan.backend-failed']);
    const [draft] = pay.drafts;
    expect(draft!.title).toMatch(/kms:Decrypt/);
    expect(draft!.remediation!.steps.join('\n')).toContain(`Allow kms:Decrypt on ${key}`);
    expect(draft!.evidence).toMatchObject({
      failures: [expect.objectContaining({ cause: 'kms-key', kmsKeyId: key })],
    });
  });

  it('a state deleted under versioning (a delete marker on top) is state.unreadable naming the deletion, not a key never applied', async () => {
    const { reader } = fakeBackend({
      objects: {
        'pay/terraform.tfstate': { ...versioned([5, 4]), deletedAt: new Date('2026-11-30T08:00:00Z') },
        'net/terraform.tfstate': versioned([2]),
      },
    });
    const result = await checkBackend(reader, target());
    expect(result.missingStateKeys).toEqual([]);
    const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
    expect(pay.drafts.map((draft) => [draft.ruleId, draft.severity, draft.title])).toEqual([
      [
        'state.unreadable',
        'high',
        'State s3://tfstate/pay/terraform.tfstate was deleted (a delete marker is its current version)',
      ],
    ]);
    expect(pay.drafts[0]!.remediation!.steps.join('\n')).toContain(
      '--version-id pay/terraform.tfstate@current',
    );
    expect(pay.drafts[0]!.remediation!.steps[0]).toMatch(/^Find out who deleted the state \(delete marker /);
    // A deletion, not a corrupt write: the detail does not guess a truncated or foreign object.
    expect(pay.drafts[0]!.detail).not.toMatch(/truncated|foreign object|failed write/);
  });

  it('archived versions (InvalidObjectState): older ones are passed over and the rest compared, a current one is state.unreadable with the restore', async () => {
    const archivedFailure = (key: string, storageClass: string): ReadFailure => ({
      resource: `s3://tfstate/${key}`,
      action: 's3:GetObjectVersion',
      code: 'InvalidObjectState',
      message: "The operation is not valid for the object's storage class",
      httpStatus: 403,
      storageClass,
    });
    const backend = fakeBackend({
      objects: {
        // A noncurrent-version transition to GLACIER (history kept cheaply): v1 is archived.
        'pay/terraform.tfstate': {
          body: stateBody({ serial: 5 }),
          history: [
            { versionId: 'v0', body: stateBody({ serial: 4 }) },
            { versionId: 'v1', body: stateBody({ serial: 7 }) },
            { versionId: 'v2', body: stateBody({ serial: 6 }) },
          ],
        },
        // A bucket-wide expiration rule's sibling: the live state moved to DEEP_ARCHIVE.
        'net/terraform.tfstate': versioned([3, 2]),
      },
    });
    const { readObjectStart } = backend.reader;
    const reader = {
      ...backend.reader,
      async readObjectStart(...args: Parameters<typeof readObjectStart>) {
        const [, key, versionId] = args;
        if (key === 'pay/terraform.tfstate' && versionId === 'v1')
          throw new BackendReadError(archivedFailure(key, 'GLACIER'));
        if (key === 'net/terraform.tfstate' && versionId === `${key}@current`)
          throw new BackendReadError(archivedFailure(key, 'DEEP_ARCHIVE'));
        return readObjectStart(...args);
      },
    };
    const result = await checkBackend(reader, target());
    const pay = result.runs.find((run) => run.placement.workspace === 'pay-prod')!;
    expect(pay.outcome).toBe('ok');
    // Oldest first: v2 (6), v1 (archived), v0 (4), current (5): compared across the archived v1,
    // the regression from 6 to 4 is still seen.
    expect(pay.drafts.map((draft) => [draft.ruleId, draft.evidence.before, draft.evidence.after])).toEqual([
      [
        'state.serial-regressed',
        expect.objectContaining({ versionId: 'v2', serial: 6 }),
        expect.objectContaining({ versionId: 'v0', serial: 4 }),
      ],
    ]);
    const net = result.runs.find((run) => run.placement.workspace === 'net-prod')!;
    expect(net.outcome).toBe('ok');
    expect(net.drafts.map((draft) => [draft.ruleId, draft.severity, draft.title])).toEqual([
      [
        'state.unreadable',
        'high',
        'State s3://tfstate/net/terraform.tfstate is archived (DEEP_ARCHIVE): Terraform cannot read it',
      ],
    ]);
    const [archived] = net.drafts;
    expect(archived!.evidence).toMatchObject({ storageClass: 'DEEP_ARCHIVE' });
    const steps = archived!.remediation!.steps.join('\n');
    expect(steps).toContain(
      "aws s3api restore-object --bucket tfstate --key net/terraform.tfstate --version-id net/terraform.tfstate@current --restore-request 'Days=7,GlacierJobParameters={Tier=Standard}'",
    );
    expect(steps).not.toMatch(/state push/);
  });

  it('OpenTofu-encrypted state is no unreadable state; the versions around it are still compared', async () => {
    const encrypted = JSON.stringify({
      meta: { 'key_provider.pbkdf2.main': 'eyJzYWx0IjoiQUFBQSJ9' },
      encrypted_data: 'c2VjcmV0IHN0YXRl',
      encryption_version: 'v0',
    });
    const { reader } = fakeBackend({
      objects: {
        // Encrypted now (a migration done with OpenTofu's fallback); the plain versions before it.
        'pay/terraform.tfstate': {
          body: encrypted,
          history: [
            { versionId: 'v1', body: stateBody({ serial: 5 }) },
            { versionId: 'v0', body: stateBody({ serial: 6 }) },
          ],
        },
        'net/terraform.tfstate': { body: encrypted },
      },
    });
    const result = await checkBackend(reader, target());
    const drafts = result.runs.flatMap((run) => run.drafts);
    expect(drafts.map((draft) => draft.ruleId)).toEqual(['state.serial-regressed']);
    expect(result.runs.map((run) => run.outcome)).toEqual(['ok', 'ok', 'ok']);
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

describe('the encryption S3 reports for states (state.encryption)', () => {
  const kmsRegistry = backendRegistry(
    '  - { id: pay-prod, owner: payments, environment: prod, source: { dir: a }, backend: { bucket: tfstate, key: pay/terraform.tfstate, region: eu-west-1, requireKms: true } }',
    '  - { id: net-prod, owner: platform, environment: prod, source: { dir: b }, backend: { bucket: tfstate, key: net/terraform.tfstate, region: eu-west-1, requireKms: true } }',
    '  - { id: sandbox, owner: platform, environment: dev, source: { dir: c }, backend: { bucket: tfstate, key: sandbox/terraform.tfstate, region: eu-west-1 } }',
  );
  const stateRulesOf = async (objects: Record<string, FakeObject>, keys: string[] = []) => {
    const { reader, calls } = fakeBackend({ objects });
    const runs = (await checkBackend(reader, adhocTarget({ bucket: 'tfstate', keys }, kmsRegistry))).runs;
    const drafts = runs.flatMap((run) =>
      run.drafts.map((draft) => ({ ...draft, placed: run.placement.workspace })),
    );
    return { drafts, calls };
  };

  it('a state SSE-S3 encrypted where KMS is required is medium, naming the bucket key to put in the backend block; none reported is high', async () => {
    const { drafts, calls } = await stateRulesOf({
      'pay/terraform.tfstate': { body: stateBody(), encryption: 'AES256' },
      'net/terraform.tfstate': { body: stateBody(), encryption: null },
      // Not required to be SSE-KMS: SSE-S3 is fine there.
      'sandbox/terraform.tfstate': { body: stateBody(), encryption: 'AES256' },
    });
    expect(drafts.map((draft) => [draft.placed, draft.ruleId, draft.severity, draft.title])).toEqual([
      [
        'pay-prod',
        'state.encryption',
        'medium',
        'State s3://tfstate/pay/terraform.tfstate is not SSE-KMS encrypted: S3 reports SSE-S3 (AES256)',
      ],
      [
        'net-prod',
        'state.encryption',
        'high',
        'State s3://tfstate/net/terraform.tfstate is not SSE-KMS encrypted: S3 reports no server-side encryption',
      ],
    ]);
    const [payFinding] = drafts;
    expect(payFinding?.detail).toContain(
      "the bucket's default encryption is SSE-KMS with arn:aws:kms:eu-west-1:111111111111:key/1: the writer asked for another",
    );
    expect(payFinding?.remediation.steps[0]).toContain(
      'kms_key_id = "arn:aws:kms:eu-west-1:111111111111:key/1"',
    );
    // Judged on what the reads of the state already returned: no request of its own.
    expect(calls.read).toHaveLength(3);
  });

  it('SSE-KMS and DSSE-KMS states pass; a deleted or empty state is state.unreadable, not judged by its encryption', async () => {
    const { drafts } = await stateRulesOf(
      {
        'pay/terraform.tfstate': { body: stateBody(), encryption: 'aws:kms:dsse' },
        'net/terraform.tfstate': {
          body: stateBody(),
          encryption: 'AES256',
          deletedAt: new Date('2026-11-30T00:00:00Z'),
          history: [{ versionId: 'v0', body: stateBody() }],
        },
        // Not a registry workspace's: KMS is required because the bucket's workspaces require it.
        'other/terraform.tfstate': { body: stateBody(), encryption: 'aws:kms' },
        'empty/terraform.tfstate': { body: '', encryption: null },
      },
      ['other/terraform.tfstate', 'empty/terraform.tfstate'],
    );
    expect(drafts.map((draft) => [draft.placed, draft.ruleId])).toEqual([
      ['s3.tfstate', 'state.unreadable'],
      ['net-prod', 'state.unreadable'],
    ]);
  });
});

describe('object ACLs of states (state.public-acl)', () => {
  // A bucket made before April 2023 and never updated: ACLs in effect, no public access block.
  const aclsInEffect = compliantSettings({
    objectOwnership: ok(undefined),
    publicAccessBlock: ok(undefined),
  });
  const allUsersRead = [{ grantee: 'AllUsers' as const, permission: 'READ' }];
  // The bucket rules' findings of such a bucket (public access block, object ownership) left out.
  const draftsOf = async (reader: Parameters<typeof checkBackend>[0]) =>
    (await checkBackend(reader, target())).runs.flatMap((run) =>
      run.drafts
        .filter((draft) => !draft.ruleId.startsWith('backend.'))
        .map((draft) => ({ ...draft, placed: run.placement.workspace })),
    );

  it('a current version its ACL makes public is critical in the owning workspace; every recent version is read', async () => {
    const { reader, calls } = fakeBackend({
      settings: aclsInEffect,
      objects: {
        'pay/terraform.tfstate': {
          body: stateBody({ serial: 3 }),
          publicGrants: allUsersRead,
          history: [
            { versionId: 'v1', body: stateBody({ serial: 2 }), publicGrants: allUsersRead },
            { versionId: 'v0', body: stateBody({ serial: 1 }) },
          ],
        },
        'net/terraform.tfstate': { body: stateBody() },
      },
    });
    const drafts = await draftsOf(reader);
    expect(drafts.map((draft) => [draft.placed, draft.ruleId, draft.severity])).toEqual([
      ['pay-prod', 'state.public-acl', 'critical'],
    ]);
    const [finding] = drafts;
    expect(finding?.title).toBe('State s3://tfstate/pay/terraform.tfstate is public through its object ACL');
    expect(finding?.detail).toContain(
      'The object ACL of the current version and 1 earlier version of s3://tfstate/pay/terraform.tfstate grants AllUsers READ (download the state and every secret in it)',
    );
    expect(finding?.evidence).toEqual({
      publicVersions: [
        expect.objectContaining({ current: true, grants: ['AllUsers READ'] }),
        expect.objectContaining({ versionId: 'v1', current: false, grants: ['AllUsers READ'] }),
      ],
      versionsRead: 3,
    });
    expect(finding?.remediation.steps.join('\n')).toMatch(
      /Remove the `acl` argument[\s\S]*Rotate the secrets/,
    );
    expect(calls.acls.sort()).toEqual([
      'net/terraform.tfstate@net/terraform.tfstate@current',
      'pay/terraform.tfstate@pay/terraform.tfstate@current',
      'pay/terraform.tfstate@v0',
      'pay/terraform.tfstate@v1',
    ]);
  });

  it('earlier versions still public after the current one is private are named so; a grant that only reads the ACL is medium', async () => {
    const { reader } = fakeBackend({
      settings: aclsInEffect,
      objects: {
        'pay/terraform.tfstate': {
          body: stateBody({ serial: 3 }),
          history: [
            {
              versionId: 'v1',
              body: stateBody({ serial: 2 }),
              publicGrants: [{ grantee: 'AuthenticatedUsers', permission: 'FULL_CONTROL' }],
            },
          ],
        },
        'net/terraform.tfstate': {
          body: stateBody(),
          publicGrants: [{ grantee: 'AllUsers', permission: 'READ_ACP' }],
        },
      },
    });
    const drafts = await draftsOf(reader);
    expect(drafts.map((draft) => [draft.placed, draft.severity, draft.title])).toEqual([
      [
        'pay-prod',
        'critical',
        'Earlier versions of state s3://tfstate/pay/terraform.tfstate are public through their object ACLs',
      ],
      ['net-prod', 'medium', 'State s3://tfstate/net/terraform.tfstate is public through its object ACL'],
    ]);
    expect(drafts[0]?.detail).toContain(
      '1 earlier version of s3://tfstate/pay/terraform.tfstate (not the current one',
    );
    // Reading the ACL shows no secret: nothing to rotate.
    expect(drafts[1]?.remediation.steps.join('\n')).not.toContain('Rotate');
  });

  it('where ACLs cannot apply (BucketOwnerEnforced, IgnorePublicAcls) no ACL is read and nothing is claimed', async () => {
    for (const settings of [
      compliantSettings({ publicAccessBlock: ok(undefined) }),
      compliantSettings({ objectOwnership: ok('ObjectWriter') }),
    ]) {
      const { reader, calls } = fakeBackend({
        settings,
        objects: { 'pay/terraform.tfstate': { body: stateBody(), publicGrants: allUsersRead } },
      });
      expect((await draftsOf(reader)).map((draft) => draft.ruleId)).not.toContain('state.public-acl');
      expect(calls.acls).toEqual([]);
    }
  });

  it('an ACL read denied fails the ACL rule of that state only; its other rules still run', async () => {
    const { reader } = fakeBackend({
      settings: aclsInEffect,
      objects: { 'pay/terraform.tfstate': versioned([1, 2]), 'net/terraform.tfstate': { body: stateBody() } },
      fail: {
        'acl:tfstate/pay/terraform.tfstate': {
          resource: 's3://tfstate/pay/terraform.tfstate',
          action: 's3:GetObjectAcl',
          code: 'AccessDenied',
          message: 'Access Denied',
        },
      },
    });
    const runs = (await checkBackend(reader, target())).runs;
    expect(
      runs.map((run) => [run.placement.workspace, run.outcome, run.drafts.map((d) => d.ruleId)]),
    ).toEqual([
      ['s3.tfstate', 'ok', ['backend.public-access-block', 'backend.object-ownership']],
      ['pay-prod', 'failed', ['state.serial-regressed', 'scan.backend-failed']],
      ['net-prod', 'ok', []],
    ]);
    expect(runs[1]?.drafts[1]?.evidence).toEqual({
      failures: [expect.objectContaining({ cause: 'access-denied', notEvaluated: ['state.public-acl'] })],
    });
  });

  it('object ownership it may not read: the ACL rule is named as not evaluated, and no ACL is read', async () => {
    const { reader, calls } = fakeBackend({
      settings: compliantSettings({
        objectOwnership: denied('s3:GetBucketOwnershipControls'),
        publicAccessBlock: ok(undefined),
      }),
      objects: { 'pay/terraform.tfstate': { body: stateBody(), publicGrants: allUsersRead } },
    });
    const failure = (await draftsOf(reader)).find((draft) => draft.ruleId === 'scan.backend-failed');
    expect(failure?.evidence).toEqual({
      failures: [
        expect.objectContaining({
          notEvaluated: ['backend.public-access', 'backend.object-ownership', 'state.public-acl'],
        }),
      ],
    });
    expect(calls.acls).toEqual([]);
  });
});

describe('a failed preflight in the findings lifecycle', () => {
  it('resolves nothing it did not see; the bucket answering again resolves the preflight finding', async () => {
    const fail: Record<string, ReadFailure> = {};
    const { reader } = fakeBackend({
      settings: compliantSettings({ versioning: ok('Suspended') }),
      objects: { 'pay/terraform.tfstate': versioned([2, 9]), 'net/terraform.tfstate': { body: stateBody() } },
      fail,
    });
    const objects = memoryObjectStore();
    const findings = createFindingsStore(objects);
    const clock = manualClock('2026-11-29T02:00:00Z');
    const deps = { readerFor: async () => reader, findings, objects, now: clock.now };
    const run = async (scanId: string) => {
      const { outcomes } = await checkAndRecordBackend(target(), deps, { scanId, startedAt: clock.now() });
      clock.advance(24 * 3_600_000);
      return outcomes.flatMap((outcome) => outcome.findings.map((f) => [f.workspace, f.ruleId, f.status]));
    };
    const open = async (scope: string) =>
      (await findings.readCurrent(scope))?.document.findings.map((f) => [f.ruleId, f.status]);

    expect(await run('night-1')).toEqual([
      ['s3.tfstate', 'backend.versioning', 'new'],
      ['pay-prod', 'state.serial-regressed', 'new'],
    ]);

    fail['s3://tfstate'] = {
      resource: 's3://tfstate/',
      action: 's3:ListBucket',
      code: 'CredentialsProviderError',
      errorName: 'CredentialsProviderError',
      message: 'Could not load credentials from any providers',
    };
    // One finding, and nothing resolved: the failed run did not look.
    expect(await run('night-2')).toEqual([['s3.tfstate', 'backend.preflight', 'new']]);
    expect(await open('s3.tfstate')).toEqual([
      ['backend.preflight', 'new'],
      ['backend.versioning', 'new'],
    ]);
    expect(await open('pay-prod')).toEqual([['state.serial-regressed', 'new']]);
    expect((await findings.readCurrent('pay-prod'))?.document.checks.backend?.status).toBe('failed');

    delete fail['s3://tfstate'];
    expect(await run('night-3')).toEqual([
      ['s3.tfstate', 'backend.versioning', 'ongoing'],
      ['s3.tfstate', 'backend.preflight', 'resolved'],
      ['pay-prod', 'state.serial-regressed', 'ongoing'],
    ]);
  });
});
