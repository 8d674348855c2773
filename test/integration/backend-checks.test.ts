import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  PutBucketAclCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateBucket, type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { createAwsBackendReader } from '../../functions/adapters/backend/aws-backend-reader.js';
import { listStateBucketKeys } from '../../functions/adapters/backend/state-listing.js';
import { checkBackend, STATE_HEAD_BYTES } from '../../functions/core/backend/check-backend.js';
import { BUCKET_RULES } from '../../functions/core/backend/rules/index.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import type { ScanSummary } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  allFileText,
  bucketVersions,
  canary,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  useMoto,
  useTempDir,
  writeRegistry,
} from '../helpers/integration.js';
import { nextSecond, terraformIn } from '../helpers/terraform-locks.js';

/**
 * Backend policy and state rules against real buckets in moto, state history made with real
 * `terraform state push`, bad input, the pipeline stages in `driftwatch scan`, and the handlers.
 */
const aws = useMoto();
const temp = useTempDir();
const secret = canary('state');
const staged: StagedWorkspace[] = [];

const createBucket = (bucket: string, ownership?: 'BucketOwnerEnforced') =>
  aws.s3.send(
    new CreateBucketCommand({
      Bucket: bucket,
      CreateBucketConfiguration: { LocationConstraint: REGION },
      ...(ownership ? { ObjectOwnership: ownership } : {}),
    }),
  );

const tlsOnlyPolicy = (bucket: string) =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Deny',
        Principal: '*',
        Action: 's3:*',
        Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ],
  });

function findingsOf(stdout: string): Finding[] {
  return (JSON.parse(stdout) as Finding[]).filter((finding) => finding.status !== 'resolved');
}

async function stage(id: string): Promise<StagedWorkspace> {
  const workspace = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/minimal'),
    backend: { bucket: STATE_BUCKET, key: `${id}/terraform.tfstate`, region: REGION },
    env: { TF_VAR_name: `${id}-bucket` },
  });
  staged.push(workspace);
  await workspace.terraform(['apply', '-auto-approve', '-input=false']);
  return workspace;
}

/** `terraform state pull`, changed by `edit`, then `terraform state push -force`: a real new version. */
async function pushEdited(workspace: StagedWorkspace, edit: (state: Record<string, unknown>) => void) {
  const file = join(workspace.dir, `pulled-${randomUUID()}.json`);
  await terraformIn(workspace, ['state', 'pull'], file);
  const state = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(state);
  writeFileSync(file, JSON.stringify(state));
  await terraformIn(workspace, ['state', 'push', '-force', file]);
}

/** `terraform init -reconfigure` of the S3 backend with more backend settings (`acl=…`, `encrypt=true`). */
function reinitBackend(workspace: StagedWorkspace, bucket: string, key: string, settings: string[]) {
  return terraformIn(workspace, [
    'init',
    '-reconfigure',
    '-input=false',
    `-backend-config=bucket=${bucket}`,
    `-backend-config=key=${key}`,
    `-backend-config=region=${REGION}`,
    ...settings.map((setting) => `-backend-config=${setting}`),
  ]);
}

/** A new state version with nothing changed but the serial. */
const bumpSerial = (state: Record<string, unknown>) => {
  state.serial = (state.serial as number) + 1;
};

/** `driftwatch check-backend` of one state key of the harness's bucket, into a store of its own. */
async function checkStateKey(key: string, store: string): Promise<Finding[]> {
  const run = await runCli([
    'check-backend',
    '--bucket',
    STATE_BUCKET,
    '--key',
    key,
    '--store',
    join(temp.path, store),
    '--format',
    'json',
  ]);
  return findingsOf(run.stdout);
}

async function stateVersions(key: string): Promise<string[]> {
  const page = await aws.s3.send(new ListObjectVersionsCommand({ Bucket: STATE_BUCKET, Prefix: key }));
  return (page.Versions ?? [])
    .filter((version) => version.Key === key)
    .sort((a, b) => (b.LastModified?.getTime() ?? 0) - (a.LastModified?.getTime() ?? 0))
    .map((version) => version.VersionId!);
}

afterAll(async () => {
  await Promise.all(staged.map((workspace) => workspace.dispose()));
});

describe('bucket rules on real buckets', () => {
  const reader = () => createAwsBackendReader({ s3: new S3Client({}), dynamodb: new DynamoDBClient({}) });
  const rulesFound = async (bucket: string, options: { lockTables?: string[]; kms?: boolean } = {}) => {
    const target = adhocTarget({ bucket, lockTables: options.lockTables });
    target.expectKms = options.kms ?? false;
    const result = await checkBackend(reader(), target);
    expect(result.runs.map((run) => run.outcome)).toEqual(['ok']);
    return result.runs.flatMap((run) => run.drafts.map((draft) => draft.ruleId));
  };

  beforeAll(async () => {
    // Everything a state bucket should have, except the TLS-only policy: with any Condition in its
    // policy moto denies object reads, so that policy lives on a bucket of its own.
    await createBucket('compliant', 'BucketOwnerEnforced');
    await aws.s3.send(
      new PutBucketVersioningCommand({ Bucket: 'compliant', VersioningConfiguration: { Status: 'Enabled' } }),
    );
    await aws.s3.send(
      new PutBucketEncryptionCommand({
        Bucket: 'compliant',
        ServerSideEncryptionConfiguration: {
          Rules: [
            {
              ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'alias/state' },
            },
          ],
        },
      }),
    );
    await aws.s3.send(
      new PutPublicAccessBlockCommand({
        Bucket: 'compliant',
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          IgnorePublicAcls: true,
          BlockPublicPolicy: true,
          RestrictPublicBuckets: true,
        },
      }),
    );
    await aws.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'compliant',
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'noncurrent',
              Status: 'Enabled',
              Filter: {},
              NoncurrentVersionExpiration: { NoncurrentDays: 90 },
            },
          ],
        },
      }),
    );
    await createBucket('tls-only');
    await aws.s3.send(new PutBucketPolicyCommand({ Bucket: 'tls-only', Policy: tlsOnlyPolicy('tls-only') }));
    await createBucket('suspended');
    // ACLs in effect (no ownership controls), no public access block: a public-read ACL is live.
    await aws.s3.send(new PutBucketAclCommand({ Bucket: 'suspended', ACL: 'public-read' }));
    await aws.s3.send(
      new PutBucketVersioningCommand({
        Bucket: 'suspended',
        VersioningConfiguration: { Status: 'Suspended' },
      }),
    );
    await aws.s3.send(
      new PutBucketEncryptionCommand({
        Bucket: 'suspended',
        ServerSideEncryptionConfiguration: {
          Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      }),
    );
    // Written for logs, over the whole bucket: it would delete states left alone for 90 days.
    await aws.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'suspended',
        LifecycleConfiguration: {
          Rules: [{ ID: 'expire-all-90d', Status: 'Enabled', Filter: {}, Expiration: { Days: 90 } }],
        },
      }),
    );
    await new DynamoDBClient({}).send(
      new CreateTableCommand({
        TableName: 'legacy-locks',
        AttributeDefinitions: [{ AttributeName: 'LockID', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'LockID', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });

  it('each rule: silent on the compliant bucket, a finding on the non-compliant one', async () => {
    const compliant = await rulesFound('compliant', { kms: true });
    const tlsOnly = await rulesFound('tls-only');
    // The state bucket of the harness is versioned and nothing else; `suspended` is not versioned.
    const bare = await rulesFound(STATE_BUCKET, { lockTables: ['legacy-locks'] });
    const suspended = await rulesFound('suspended');
    for (const rule of BUCKET_RULES) {
      const isCompliant = rule.id === 'backend.tls-only' ? tlsOnly : compliant;
      expect(isCompliant, rule.id).not.toContain(rule.id);
      expect([...bare, ...suspended], rule.id).toContain(rule.id);
    }
    expect(compliant).toEqual(['backend.tls-only']);
  });

  it("a bucket-wide transition to GLACIER under S3's 128 KiB transition minimum reaches only the larger states", async () => {
    await createBucket('cold-logs');
    // Written for logs; S3 applies all_storage_classes_128K to it (its default since September 2024).
    await aws.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'cold-logs',
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'logs-to-glacier',
              Status: 'Enabled',
              Filter: {},
              Transitions: [{ Days: 90, StorageClass: 'GLACIER' }],
            },
          ],
        },
      }),
    );
    const state = (bytes: number) =>
      `{"version":4,"serial":1,"lineage":"l","resources":[],"pad":"${'x'.repeat(bytes)}"}`;
    for (const [Key, Body] of [
      ['small/terraform.tfstate', state(1024)],
      ['large/terraform.tfstate', state(200 * 1024)],
    ] as const)
      await aws.s3.send(new PutObjectCommand({ Bucket: 'cold-logs', Key, Body }));
    const drafts = (await checkBackend(reader(), adhocTarget({ bucket: 'cold-logs' }))).runs.flatMap(
      (run) => run.drafts,
    );
    expect(drafts.find((draft) => draft.ruleId === 'backend.lifecycle-removes-state')?.evidence).toEqual({
      rules: ['rule "logs-to-glacier" moves current versions of 128 KiB or more to GLACIER after 90 days'],
      coveredStateObjects: 1,
      coveredExamples: ['large/terraform.tfstate'],
    });
  });

  it('suspended versioning, and SSE-S3 where KMS is required', async () => {
    const target = adhocTarget({ bucket: 'suspended' });
    target.expectKms = true;
    const drafts = (await checkBackend(reader(), target)).runs.flatMap((run) => run.drafts);
    expect(drafts.find((draft) => draft.ruleId === 'backend.versioning')?.title).toBe(
      'State bucket suspended has versioning suspended',
    );
    expect(drafts.find((draft) => draft.ruleId === 'backend.encryption')).toMatchObject({
      severity: 'medium',
      evidence: { algorithm: 'AES256', kmsRequired: true },
    });
    expect(drafts.find((draft) => draft.ruleId === 'backend.lifecycle-removes-state')).toMatchObject({
      severity: 'high',
      evidence: { rules: ['rule "expire-all-90d" expires current versions after 90 days'] },
    });
    // The public-read ACL as S3 reports it (moto does not compute a policy status: no claim from it).
    expect(drafts.find((draft) => draft.ruleId === 'backend.public-access')).toMatchObject({
      severity: 'critical',
      title: 'State bucket suspended is public',
      evidence: { publicPolicy: false, publicGrants: ['AllUsers READ'] },
    });
  });
});

describe('state history with real terraform state push', () => {
  let registry: string;

  beforeAll(async () => {
    const [serial, lineage] = await Promise.all([stage('serial'), stage('lineage')]);
    // Serial: a newer state (with a secret output), then the older one pushed back with -force.
    const original = join(serial.dir, 'original.json');
    await terraformIn(serial, ['state', 'pull'], original);
    await pushEdited(serial, (state) => {
      state.serial = (state.serial as number) + 5;
      state.outputs = { db_password: { value: secret, type: 'string', sensitive: true } };
    });
    await terraformIn(serial, ['state', 'push', '-force', original]);
    // Lineage: another state's lineage pushed over this one.
    await pushEdited(lineage, (state) => {
      state.lineage = randomUUID();
      state.serial = (state.serial as number) + 1;
    });
    // A short-lived CLI workspace deleted and created again under its name (its state holds nothing):
    // the S3 backend deletes the object, then writes a new state, of a new lineage, at the same key.
    for (const args of [
      ['workspace', 'new', 'pr-7'],
      ['workspace', 'select', 'default'],
      ['workspace', 'delete', 'pr-7'],
      ['workspace', 'new', 'pr-7'],
      ['workspace', 'select', 'default'],
    ]) {
      await terraformIn(lineage, args);
      // S3 keeps times to the second: the versions and the delete marker in distinct seconds.
      if (args[1] !== 'select') await nextSecond();
    }
    await aws.s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: 'garbage/terraform.tfstate',
        Body: `{"version": 4, "secret": "${secret}"`,
      }),
    );
    registry = writeRegistry(join(temp.path, 'integrity.yaml'), [
      { id: 'serial', dir: 'minimal', owner: 'payments' },
      { id: 'lineage', dir: 'minimal' },
      { id: 'garbage', dir: 'minimal' },
    ]);
  });

  it('names both versions of a serial regression and a lineage change; never stores state content', async () => {
    const store = join(temp.path, 'integrity-store');
    const before = await bucketVersions(aws.s3, STATE_BUCKET);
    const run = await runCli([
      'check-backend',
      '--bucket',
      STATE_BUCKET,
      '--registry',
      registry,
      '--store',
      store,
      '--format',
      'json',
    ]);
    expect(await bucketVersions(aws.s3, STATE_BUCKET)).toEqual(before);
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);

    const [pushedBack, newer] = await stateVersions('serial/terraform.tfstate');
    const regression = findings.find((finding) => finding.ruleId === 'state.serial-regressed');
    expect(regression).toMatchObject({
      kind: 'state-integrity',
      workspace: 'serial',
      owner: 'payments',
      resource: { bucket: STATE_BUCKET, key: 'serial/terraform.tfstate' },
      title: `State serial of s3://${STATE_BUCKET}/serial/terraform.tfstate went back in version ${pushedBack}`,
      evidence: {
        before: expect.objectContaining({ versionId: newer }),
        after: expect.objectContaining({ versionId: pushedBack }),
      },
    });

    const [replaced, previous] = await stateVersions('lineage/terraform.tfstate');
    expect(findings.find((finding) => finding.ruleId === 'state.lineage-changed')).toMatchObject({
      workspace: 'lineage',
      evidence: {
        before: expect.objectContaining({ versionId: previous }),
        after: expect.objectContaining({ versionId: replaced }),
      },
    });
    expect(findings.find((finding) => finding.ruleId === 'state.unreadable')).toMatchObject({
      workspace: 'garbage',
      evidence: expect.objectContaining({ reason: expect.stringMatching(/^the state is not JSON/) }),
    });
    // The canary sits in the state of `serial` and in the garbage object: it is nowhere else.
    for (const text of [run.stdout, run.stderr, allFileText(store)]) expect(text).not.toContain(secret);
  });

  it('a state the S3 backend wrote with acl = "public-read" is state.public-acl; once acl is removed, the earlier versions are named', async () => {
    // The harness's state bucket keeps ACLs in effect (no ownership controls, no public access block).
    const workspace = await stage('public-acl');
    const key = 'public-acl/terraform.tfstate';
    const check = async (store: string) =>
      (await checkStateKey(key, store)).filter((finding) => finding.ruleId === 'state.public-acl');
    await reinitBackend(workspace, STATE_BUCKET, key, ['acl=public-read']);
    await nextSecond();
    await pushEdited(workspace, bumpSerial);
    const [publicVersion, privateVersion] = await stateVersions(key);
    expect(await check('public-acl-store')).toMatchObject([
      {
        severity: 'critical',
        title: `State s3://${STATE_BUCKET}/${key} is public through its object ACL`,
        evidence: {
          publicVersions: [{ versionId: publicVersion, current: true, grants: ['AllUsers READ'] }],
          versionsRead: 2,
        },
      },
    ]);
    expect(privateVersion).toBeDefined();

    await reinitBackend(workspace, STATE_BUCKET, key, []);
    await nextSecond();
    await pushEdited(workspace, bumpSerial);
    expect(await check('public-acl-removed-store')).toMatchObject([
      {
        severity: 'critical',
        title: `Earlier versions of state s3://${STATE_BUCKET}/${key} are public through their object ACLs`,
        evidence: { publicVersions: [{ versionId: publicVersion, current: false }], versionsRead: 3 },
      },
    ]);
  });

  it('where KMS is required, a state the S3 backend wrote with encrypt = true and no kms_key_id is SSE-S3 in a bucket whose default is SSE-KMS: state.encryption', async () => {
    const bucket = 'kms-states';
    const key = 'kms/terraform.tfstate';
    await createBucket(bucket);
    await aws.s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    await aws.s3.send(
      new PutBucketEncryptionCommand({
        Bucket: bucket,
        ServerSideEncryptionConfiguration: {
          Rules: [
            {
              ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: 'alias/state' },
            },
          ],
        },
      }),
    );
    const workspace = await stageWorkspace({
      source: join(REPO_ROOT, 'test/integration/terraform/minimal'),
      backend: { bucket, key, region: REGION },
      env: { TF_VAR_name: 'kms-bucket' },
    });
    staged.push(workspace);
    const stateFindings = async () => {
      const target = adhocTarget({ bucket, keys: [key] });
      target.expectKms = true;
      const result = await checkBackend(
        createAwsBackendReader({ s3: new S3Client({}), dynamodb: new DynamoDBClient({}) }),
        target,
      );
      return result.runs.flatMap((run) => run.drafts).filter((draft) => draft.ruleId.startsWith('state.'));
    };
    // Without encrypt, the backend sends no encryption and the bucket's default SSE-KMS applies.
    await workspace.terraform(['apply', '-auto-approve', '-input=false']);
    expect(await stateFindings()).toEqual([]);

    await reinitBackend(workspace, bucket, key, ['encrypt=true']);
    await pushEdited(workspace, bumpSerial);
    expect(await stateFindings()).toMatchObject([
      {
        ruleId: 'state.encryption',
        severity: 'medium',
        title: `State s3://${bucket}/${key} is not SSE-KMS encrypted: S3 reports SSE-S3 (AES256)`,
        evidence: { algorithm: 'AES256', bucketKmsKeyId: 'alias/state' },
      },
    ]);
  });

  it('a CLI workspace deleted and created again is a new state, not a lineage change (the state it replaced held no resources)', async () => {
    const key = 'env:/pr-7/lineage/terraform.tfstate';
    const page = await aws.s3.send(new ListObjectVersionsCommand({ Bucket: STATE_BUCKET, Prefix: key }));
    // The premise: two versions of two lineages with the workspace's delete marker between them.
    expect(page.Versions?.filter((version) => version.Key === key)).toHaveLength(2);
    expect(page.DeleteMarkers?.filter((marker) => marker.Key === key)).toHaveLength(1);
    const state = (await checkStateKey(key, 'recreated-store')).filter(
      (finding) => finding.resource && 'key' in finding.resource && finding.resource.key === key,
    );
    expect(state.map((finding) => finding.ruleId)).toEqual([]);
  });
});

describe('bad input: clear findings, never a crash', () => {
  beforeAll(async () => {
    await createBucket('denied');
    await aws.s3.send(new PutObjectCommand({ Bucket: 'denied', Key: 'app/terraform.tfstate', Body: '{}' }));
    await aws.s3.send(
      new PutObjectCommand({ Bucket: 'denied', Key: 'app/terraform.tfstate.tflock', Body: '{}' }),
    );
    await aws.s3.send(
      new PutBucketPolicyCommand({
        Bucket: 'denied',
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::denied/*' },
          ],
        }),
      }),
    );
  });

  it('a bucket that does not exist: one preflight finding with the cause for each check, exit 1', async () => {
    const store = join(temp.path, 'bad');
    for (const [command, ruleId, title] of [
      [
        'check-backend',
        'backend.preflight',
        'Backend check failed: the bucket does not exist (NoSuchBucket)',
      ],
      ['locks', 'lock.preflight', 'Lock check failed: the bucket does not exist (NoSuchBucket)'],
    ] as const) {
      const run = await runCli([command, '--bucket', 'no-such-bucket', '--store', store, '--format', 'json']);
      expect(run.code, command).toBe(1);
      expect(findingsOf(run.stdout)).toEqual([
        expect.objectContaining({
          kind: 'scan-failed',
          ruleId,
          workspace: 's3.no-such-bucket',
          title,
          evidence: expect.objectContaining({ cause: 'no-such-bucket', errorName: 'NoSuchBucket' }),
        }),
      ]);
      expect(run.stderr).toContain(
        'driftwatch: s3://no-such-bucket not checked: the bucket does not exist (NoSuchBucket). Check the bucket name',
      );
    }
  });

  it('an endpoint nobody answers: one finding naming it, for the backend and the lock check', async () => {
    const unreachable = { AWS_ENDPOINT_URL: 'http://127.0.0.1:1' };
    const store = join(temp.path, 'unreachable');
    const check = await runCli(['check-backend', '--bucket', STATE_BUCKET, '--store', store], {
      env: unreachable,
    });
    expect(check.code, check.stderr).toBe(1);
    // The table row says the cause, never "failed: Error".
    expect(check.stdout).toMatch(
      /backend\.preflight .* Backend check failed: connection refused to 127\.0\.0\.1:1 /,
    );
    expect(check.stdout.trim().split('\n')).toHaveLength(2);
    expect(check.stderr).toMatch(
      /not checked: connection refused to 127\.0\.0\.1:1\. Check where the SDK sends/,
    );

    const locks = await runCli(['locks', '--bucket', STATE_BUCKET, '--store', store, '--format', 'json'], {
      env: unreachable,
    });
    expect(locks.code, locks.stderr).toBe(1);
    expect(findingsOf(locks.stdout)).toEqual([
      expect.objectContaining({
        ruleId: 'lock.preflight',
        title: 'Lock check failed: connection refused to 127.0.0.1:1',
        evidence: expect.objectContaining({
          cause: 'unreachable',
          code: 'ECONNREFUSED',
          endpoint: '127.0.0.1:1',
        }),
      }),
    ]);
    // Nothing observed, so nothing to wait for.
    expect(locks.stderr).not.toMatch(/confirming in/);
  });

  it('a bucket that denies reading objects: the lock check fails clearly, the backend check reports what it could see', async () => {
    const store = join(temp.path, 'bad');
    const locks = await runCli([
      'locks',
      '--bucket',
      'denied',
      '--confirm-after',
      '1s',
      '--store',
      store,
      '--format',
      'json',
    ]);
    expect(locks.code).toBe(1);
    const [failed] = findingsOf(locks.stdout);
    expect(failed).toMatchObject({
      ruleId: 'scan.locks-failed',
      title: 'Lock check failed: AccessDenied on s3:GetObject',
    });
    expect(failed?.remediation.steps[0]).toMatch(
      /^Allow s3:GetObject on arn:aws:s3:::denied\/app\/terraform\.tfstate\.tflock to the role/,
    );

    const check = await runCli([
      'check-backend',
      '--bucket',
      'denied',
      '--key',
      'app/terraform.tfstate',
      '--store',
      store,
      '--format',
      'json',
    ]);
    expect(check.code).toBe(1);
    const rules = findingsOf(check.stdout).map((finding) => finding.ruleId);
    expect(rules).toContain('scan.backend-failed');
    expect(rules).toContain('backend.public-access-block');
  });

  it('a bad --bucket or duration is a one-line error', async () => {
    const name = await runCli(['check-backend', '--bucket', 'Not_A_Bucket']);
    expect(name.code).toBe(64);
    expect(name.stderr).toBe(
      "driftwatch: --bucket takes an S3 bucket name (3-63 of a-z 0-9 . -), not 'Not_A_Bucket'\n",
    );
    const duration = await runCli(['locks', '--bucket', STATE_BUCKET, '--stale-after', '600']);
    expect(duration.code).toBe(64);
    expect(duration.stderr).toContain("'600' is not a duration");
  });
});

describe('hostile objects under real S3 semantics (Range, encoding-type, empty objects)', () => {
  const BUCKET = 'hostile-states';
  const LINEAGE = '18e7f7ad-7a57-645d-b67a-0252b6504865';
  /** A state in the layout Terraform 1.11 writes (header first), padded to `bytes` with resources. */
  const bigState = (serial: number, bytes: number) => {
    const head = `{\n  "version": 4,\n  "terraform_version": "1.11.4",\n  "serial": ${serial},\n  "lineage": "${LINEAGE}",\n  "outputs": {},\n  "resources": [\n`;
    const resource = `    {"mode":"managed","type":"aws_s3_bucket","name":"b","instances":[{"attributes":{"id":"${secret}"}}]},\n`;
    return `${head}${resource.repeat(Math.ceil(bytes / resource.length))}    {}\n  ]\n}\n`;
  };
  const STORED_KEYS = [
    'a b/terraform.tfstate',
    'a+b/terraform.tfstate',
    '100%/terraform.tfstate',
    '한글/terraform.tfstate',
    'bell\u0007/terraform.tfstate',
  ];
  // ContentLength given: the SDK warns on stderr about a body whose length it does not work out (the empty one).
  const put = (Key: string, Body: string | Uint8Array, StorageClass?: 'GLACIER' | 'DEEP_ARCHIVE') =>
    aws.s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key,
        Body,
        ContentLength: typeof Body === 'string' ? Buffer.byteLength(Body) : Body.length,
        ...(StorageClass ? { StorageClass } : {}),
      }),
    );
  const reader = () => createAwsBackendReader({ s3: new S3Client({}), dynamodb: new DynamoDBClient({}) });

  beforeAll(async () => {
    await createBucket(BUCKET);
    await aws.s3.send(
      new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    // 6 MiB states: serial 9, then an older one (serial 4) pushed over it.
    await put('big/terraform.tfstate', bigState(9, 6 * 1024 * 1024));
    await put('big/terraform.tfstate', bigState(4, 6 * 1024 * 1024));
    // The same state with its members sorted (jq -S): serial and version after the resources.
    const sorted = JSON.parse(bigState(4, 6 * 1024 * 1024)) as Record<string, unknown>;
    await put(
      'sorted/terraform.tfstate',
      JSON.stringify(
        Object.fromEntries(
          Object.keys(sorted)
            .sort()
            .map((key) => [key, sorted[key]]),
        ),
      ),
    );
    await put('empty/terraform.tfstate', '');
    // A 6 MiB write cut short: its header reads, its end does not close the object.
    await put('cut/terraform.tfstate', bigState(2, 6 * 1024 * 1024).slice(0, -40));
    await put('gzip/terraform.tfstate', gzipSync(bigState(1, 1024)));
    for (const key of STORED_KEYS) await put(key, bigState(1, 1024));
    // Applied, then deleted: a delete marker on top of the versions.
    await put('deleted/terraform.tfstate', bigState(3, 1024));
    await aws.s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'deleted/terraform.tfstate' }));
    // History in GLACIER (what a noncurrent-version transition leaves), then a readable current state
    // with a lower serial; and a live state a bucket-wide rule moved to DEEP_ARCHIVE.
    await put('history-archived/terraform.tfstate', bigState(8, 1024), 'GLACIER');
    await put('history-archived/terraform.tfstate', bigState(7, 1024));
    await put('archived/terraform.tfstate', bigState(5, 1024), 'DEEP_ARCHIVE');
  });

  it('archived versions: S3 refuses them (InvalidObjectState); history there is passed over, a live state there is state.unreadable', async () => {
    const result = await checkBackend(
      reader(),
      adhocTarget({
        bucket: BUCKET,
        keys: ['history-archived/terraform.tfstate', 'archived/terraform.tfstate'],
      }),
    );
    const drafts = result.runs
      .flatMap((run) => run.drafts)
      .filter((draft) => draft.kind !== 'backend-policy');
    expect(drafts.map((draft) => [draft.ruleId, draft.title])).toEqual([
      [
        'state.unreadable',
        `State s3://${BUCKET}/archived/terraform.tfstate is archived (DEEP_ARCHIVE): Terraform cannot read it`,
      ],
    ]);
    expect(result.runs.map((run) => run.outcome)).toEqual(['ok']);
    expect(JSON.stringify(drafts)).not.toContain(secret);
  });

  it('a state deleted under versioning is named as deleted, not as a key never applied', async () => {
    const result = await checkBackend(
      reader(),
      adhocTarget({ bucket: BUCKET, keys: ['deleted/terraform.tfstate', 'never/terraform.tfstate'] }),
    );
    expect(result.missingStateKeys).toEqual(['never/terraform.tfstate']);
    const drafts = result.runs
      .flatMap((run) => run.drafts)
      .filter((draft) => draft.ruleId === 'state.unreadable');
    expect(drafts.map((draft) => draft.title)).toEqual([
      `State s3://${BUCKET}/deleted/terraform.tfstate was deleted (a delete marker is its current version)`,
    ]);
  });

  it('reads the first bytes of a large state by Range, and still sees a serial regression', async () => {
    const start = await reader().readObjectStart(
      BUCKET,
      'big/terraform.tfstate',
      undefined,
      STATE_HEAD_BYTES,
    );
    expect(start).toMatchObject({ complete: false });
    expect(start!.totalBytes).toBeGreaterThan(6 * 1024 * 1024);
    expect(Buffer.byteLength(start!.text)).toBe(STATE_HEAD_BYTES);

    const result = await checkBackend(
      reader(),
      adhocTarget({ bucket: BUCKET, keys: ['big/terraform.tfstate', 'sorted/terraform.tfstate'] }),
    );
    const drafts = result.runs
      .flatMap((run) => run.drafts)
      .filter((draft) => draft.kind !== 'backend-policy');
    expect(drafts.map((draft) => [draft.ruleId, draft.severity, draft.resource])).toEqual(
      expect.arrayContaining([
        ['state.serial-regressed', 'high', { bucket: BUCKET, key: 'big/terraform.tfstate' }],
        ['state.unreadable', 'info', { bucket: BUCKET, key: 'sorted/terraform.tfstate' }],
      ]),
    );
    expect(drafts).toHaveLength(2);
    expect(JSON.stringify(drafts)).not.toContain(secret);
  });

  it('an empty, gzip-compressed or cut-short state is state.unreadable with its reason', async () => {
    const result = await checkBackend(
      reader(),
      adhocTarget({
        bucket: BUCKET,
        keys: ['empty/terraform.tfstate', 'gzip/terraform.tfstate', 'cut/terraform.tfstate'],
      }),
    );
    const reasons = Object.fromEntries(
      result.runs
        .flatMap((run) => run.drafts)
        .filter((draft) => draft.ruleId === 'state.unreadable')
        .map((draft) => [(draft.resource as { key: string }).key, draft.evidence?.reason]),
    );
    expect(reasons).toEqual({
      'empty/terraform.tfstate': 'the state is empty',
      'gzip/terraform.tfstate': 'the state is gzip-compressed (Terraform writes plain JSON)',
      'cut/terraform.tfstate':
        'the state does not end with the closing } of its JSON object: a write cut short',
    });
  });

  it('lists keys with spaces, +, %, unicode and control characters as they are stored, and checks them', async () => {
    const listed = [];
    for await (const object of reader().listObjects(BUCKET, '')) listed.push(object.key);
    expect(listed).toEqual(expect.arrayContaining(STORED_KEYS));
    expect(
      (await listStateBucketKeys(aws.s3, BUCKET)).filter((key) => STORED_KEYS.includes(key)).sort(),
    ).toEqual([...STORED_KEYS].sort());
    const result = await checkBackend(reader(), adhocTarget({ bucket: BUCKET, keys: STORED_KEYS }));
    expect(result.missingStateKeys).toEqual([]);
    expect(
      result.runs.flatMap((run) => run.drafts).filter((draft) => draft.kind !== 'backend-policy'),
    ).toEqual([]);
  });
});

describe('the pipeline: driftwatch scan runs CheckBackend, ObserveLocks and ConfirmLocks', () => {
  it('checks every state bucket; a missing one fails on its own and the others are still checked', async () => {
    const registry = join(temp.path, 'pipeline.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces:',
        '  - id: present',
        '    owner: platform',
        '    environment: prod',
        `    source: { dir: ${JSON.stringify(join(REPO_ROOT, 'test/integration/terraform/minimal'))} }`,
        `    backend: { bucket: ${STATE_BUCKET}, key: serial/terraform.tfstate, region: ${REGION} }`,
        '    env: { TF_VAR_name: serial-bucket }',
        '  - id: missing',
        '    owner: platform',
        '    environment: prod',
        `    source: { dir: ${JSON.stringify(join(REPO_ROOT, 'test/integration/terraform/minimal'))} }`,
        `    backend: { bucket: missing-bucket, key: missing/terraform.tfstate, region: ${REGION} }`,
        '    env: { TF_VAR_name: missing-bucket }',
        'locks: { confirmAfter: 2s }',
        '',
      ].join('\n'),
    );
    const store = join(temp.path, 'pipeline-store');
    const run = await runCli(['scan', '--registry', registry, '--store', store, '--format', 'json'], {
      env: { DRIFTWATCH_HASH_SALT: 'backend-checks-salt-0001' },
    });
    expect(run.code, run.stderr).toBe(1);
    const findings = findingsOf(run.stdout);
    const of = (workspace: string) =>
      findings
        .filter((finding) => finding.workspace === workspace)
        .map((f) => f.ruleId)
        .sort();
    // One cause, one alert, in the bucket's scope: the backend check's; the lock check beside it only
    // says it did not run (info), and nothing is repeated in the workspace's scope.
    expect(
      findings
        .filter((finding) => finding.workspace === 's3.missing-bucket')
        .map((finding) => [finding.ruleId, finding.severity])
        .sort(),
    ).toEqual([
      ['backend.preflight', 'high'],
      ['lock.preflight', 'info'],
    ]);
    expect(
      of('missing').filter((rule) => /^(backend|lock|state)\.|^scan\.(backend|locks)-/.test(rule)),
    ).toEqual([]);
    expect(of('s3.tfstate')).toContain('backend.public-access-block');
    expect(of('present')).toContain('state.serial-regressed');
    expect(run.stderr).toMatch(/locks observed/);
    const summaryDir = run.stderr.match(/scans\/dt=[^ \n]+\//)?.[0];
    const summary = JSON.parse(readFileSync(join(store, `${summaryDir}summary.json`), 'utf8')) as ScanSummary;
    expect(summary.failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ workspace: 's3.missing-bucket', check: 'backend' }),
        expect.objectContaining({ workspace: 's3.missing-bucket', check: 'locks' }),
      ]),
    );
  });
});

describe('driftwatch invoke with the sample events of the bucket handlers', () => {
  it('check-backend, observe-locks and confirm-locks record into the store', async () => {
    const event = JSON.parse(readFileSync(join(REPO_ROOT, 'events/check-backend.json'), 'utf8'));
    await createStateBucket(aws.s3, event.bucket, REGION);
    const store = join(temp.path, 'invoke-store');
    const invoke = async (name: string) => {
      const run = await runCli(['invoke', name, '--event', `events/${name}.json`], {
        env: { DRIFTWATCH_STORE: store },
      });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    const checked = await invoke('check-backend');
    expect(checked).toMatchObject({ scanId: event.scanId, bucket: event.bucket });
    expect(checked.scopes.map((scope: { scope: string }) => scope.scope)).toEqual([
      `s3.${event.bucket}`,
      'payments-prod',
      'payments-staging',
      'platform-prod',
    ]);
    expect(checked.findings).toBeGreaterThan(0);

    const observed = await invoke('observe-locks');
    expect(observed).toMatchObject({
      bucket: event.bucket,
      observationKey: `locks/scan=${event.scanId}/s3.${event.bucket}.json`,
      locks: 0,
    });
    expect(JSON.parse(readFileSync(join(store, observed.observationKey), 'utf8'))).toMatchObject({
      bucket: event.bucket,
      locks: [],
    });

    const confirmed = await invoke('confirm-locks');
    expect(confirmed.scopes).toHaveLength(4);
    const current = JSON.parse(readFileSync(join(store, `current/s3.${event.bucket}.json`), 'utf8'));
    expect(current.checks).toMatchObject({ backend: { status: 'ok' }, locks: { status: 'ok' } });
  });
});
