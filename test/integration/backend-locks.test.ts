import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { CopyObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { createBackendAccess } from '../../functions/adapters/backend/backend-access.js';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import { confirmAndRecordLocks, observeAndStoreLocks } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  allFileText,
  bucketVersions,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';
import { applyWaitingAtPrompt, type HeldApply, nextSecond } from '../helpers/terraform-locks.js';

/**
 * The stale-lock proof (DESIGN.md principle 6) against real Terraform locks in moto: an apply
 * waiting at its prompt holds a real `.tflock` (or DynamoDB item); SIGKILL leaves it behind.
 * Thresholds and windows are seconds here instead of hours and minutes.
 */
const aws = useMoto();
const temp = useTempDir();
const STATE_KEY = 'locks/terraform.tfstate';
const LOCK_KEY = `${STATE_KEY}.tflock`;
/** Renaming the bucket gives every held apply a change to ask approval for (never given). */
const CHANGE = ['-var', 'name=renamed-bucket'];
let staged: StagedWorkspace;
let legacy: StagedWorkspace;
let migrating: StagedWorkspace;

beforeAll(async () => {
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/minimal'),
    backend: { bucket: STATE_BUCKET, key: STATE_KEY, region: REGION },
    env: { TF_VAR_name: 'locks-bucket' },
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
});

afterAll(async () => {
  await staged?.dispose();
  await legacy?.dispose();
  await migrating?.dispose();
});

async function locks(args: string[]) {
  const store = join(temp.path, 'store');
  const before = await bucketVersions(aws.s3, STATE_BUCKET);
  const run = await runCli([
    'locks',
    '--bucket',
    STATE_BUCKET,
    '--store',
    store,
    '--format',
    'json',
    ...args,
  ]);
  // Read-only by construction: no lock, no state, nothing written to the state bucket.
  expect(await bucketVersions(aws.s3, STATE_BUCKET)).toEqual(before);
  const findings = run.stdout.trim() ? (JSON.parse(run.stdout) as Finding[]) : [];
  return { ...run, findings, open: findings.filter((finding) => finding.status !== 'resolved'), store };
}

async function lockInfo(): Promise<Record<string, string>> {
  const object = await aws.s3.send(new GetObjectCommand({ Bucket: STATE_BUCKET, Key: LOCK_KEY }));
  return JSON.parse((await object.Body?.transformToString()) ?? '{}');
}

describe('stale locks, proven with real terraform and moto', () => {
  // One apply held at its prompt for three looks at the same real lock (a held apply is a whole
  // refreshing plan of Terraform and its provider): young under a long threshold, a live writer once
  // the state is written after it, and gone when it is released during the confirmation window.
  describe('one apply waiting at its prompt', () => {
    let apply: HeldApply | undefined;
    beforeAll(async () => {
      apply = await applyWaitingAtPrompt(staged, CHANGE);
    });
    afterAll(async () => {
      await apply?.release();
    });

    it('a live holder younger than the threshold: no alert', async () => {
      const run = await locks(['--prefix', 'locks/', '--stale-after', '10m', '--confirm-after', '2s']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.open).toEqual([]);
      expect(run.stderr).toMatch(/1 lock\(s\) in s3:\/\/tfstate\/locks\/ \(young 1\)/);
    });

    it('a lock older than the threshold whose state was written after it was taken: info lock.live-writer', async () => {
      await nextSecond();
      // The holder persisting state as a long apply does (here: a copy of the object onto itself).
      await aws.s3.send(
        new CopyObjectCommand({
          Bucket: STATE_BUCKET,
          Key: STATE_KEY,
          CopySource: `${STATE_BUCKET}/${STATE_KEY}`,
          MetadataDirective: 'REPLACE',
          Metadata: { writer: 'long-apply' },
        }),
      );
      const run = await locks(['--prefix', 'locks/', '--stale-after', '1s', '--confirm-after', '2s']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.open).toEqual([
        expect.objectContaining({ ruleId: 'lock.live-writer', severity: 'info', kind: 'stale-lock' }),
      ]);
    });

    it('a lock released during the confirmation window: no alert', async () => {
      const objects = createFsObjectStore(join(temp.path, 'in-process'));
      const scan = { scanId: 'released-during-window', startedAt: new Date() };
      const deps = {
        readerFor: createBackendAccess({ scanId: scan.scanId }).readerFor,
        findings: createFindingsStore(objects),
        objects,
        now: () => new Date(),
      };
      const target = adhocTarget({
        bucket: STATE_BUCKET,
        prefix: 'locks/',
        staleAfterMs: 1_000,
        confirmAfterMs: 3_000,
      });
      await nextSecond();
      const { observation } = await observeAndStoreLocks(target, deps, scan);
      expect(observation.locks).toHaveLength(1);
      expect(observation.confirmAt).not.toBe(observation.observedAt);
      const held = apply!;
      apply = undefined;
      await held.release();
      await new Promise((resolve) => setTimeout(resolve, Date.parse(observation.confirmAt) - Date.now()));
      const { outcomes, confirmation } = await confirmAndRecordLocks(target, deps, scan);
      expect(confirmation.verdicts.map((entry) => entry.verdict)).toEqual(['gone']);
      expect(outcomes.flatMap((outcome) => outcome.findings)).toEqual([]);
    });
  });

  it('an apply killed with SIGKILL at its prompt leaves a lock that is proven stale; force-unlock resolves it', async () => {
    await nextSecond();
    const apply = await applyWaitingAtPrompt(staged, CHANGE);
    await apply.kill();
    const info = await lockInfo();
    expect(info.ID).toMatch(/[0-9a-f-]{36}/);

    const run = await locks(['--prefix', 'locks/', '--stale-after', '2s', '--confirm-after', '2s']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/confirming in \ds/);
    expect(run.open).toHaveLength(1);
    const [stale] = run.open;
    expect(stale).toMatchObject({
      kind: 'stale-lock',
      ruleId: 'lock.stale',
      severity: 'high',
      workspace: 's3.tfstate',
      resource: { bucket: STATE_BUCKET, key: LOCK_KEY, lockId: info.ID },
      evidence: expect.objectContaining({
        holder: info.Who,
        operation: 'OperationTypeApply',
        terraformVersion: info.Version,
        created: info.Created,
        lockSource: 's3',
      }),
    });
    const evidence = stale!.evidence as Record<string, string>;
    expect(
      Date.parse(evidence.secondObservedAt!) - Date.parse(evidence.firstObservedAt!),
    ).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(evidence.stateLastWrite!)).toBeLessThan(Date.parse(info.Created!));
    expect(stale!.title).not.toMatch(/\d+s|\d{4}-\d\d-\d\d/);
    expect(stale!.remediation.steps[1]).toContain(`terraform force-unlock ${info.ID}`);
    // driftwatch never releases a lock: it is still there.
    expect(
      (await aws.s3.send(new HeadObjectCommand({ Bucket: STATE_BUCKET, Key: LOCK_KEY }))).ETag,
    ).toBeDefined();

    // The remediation works: a person force-unlocks, and the next run of the whole bucket resolves
    // the finding (a --prefix run sees part of the bucket scope, so it resolves nothing there).
    await staged.terraform(['force-unlock', '-force', info.ID!]);
    const after = await locks(['--stale-after', '2s', '--confirm-after', '2s']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.open).toEqual([]);
    expect(after.findings).toContainEqual(expect.objectContaining({ id: stale!.id, status: 'resolved' }));
  });

  it('garbage lock JSON and a lock without Created: findings with the reason, never a crash', async () => {
    const put = (key: string, body: string) =>
      aws.s3.send(new PutObjectCommand({ Bucket: STATE_BUCKET, Key: key, Body: body }));
    await put('bad/garbage.tfstate.tflock', '{"ID": "half a lock');
    await put('bad/undated.tfstate', '{}');
    await put(
      'bad/undated.tfstate.tflock',
      JSON.stringify({ ID: 'undated-lock', Operation: 'OperationTypePlan' }),
    );
    const run = await locks(['--prefix', 'bad/', '--stale-after', '1s', '--confirm-after', '1s']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.open.map((finding) => [finding.ruleId, finding.evidence.reason])).toEqual([
      ['lock.unreadable', 'the lock body is not JSON (19 characters)'],
      ['lock.unreadable', 'the lock has no Created time, so its age cannot be proven'],
    ]);
    expect(allFileText(run.store)).not.toContain('half a lock');
  });

  it('a lock a lifecycle rule archived: unreadable, with the command that removes it, not a failed check', async () => {
    await aws.s3.send(
      new PutObjectCommand({ Bucket: STATE_BUCKET, Key: 'cold/terraform.tfstate', Body: '{}' }),
    );
    await aws.s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: 'cold/terraform.tfstate.tflock',
        Body: JSON.stringify({
          ID: 'archived-lock',
          Operation: 'OperationTypeApply',
          Created: '2026-10-01T00:00:00Z',
        }),
        StorageClass: 'GLACIER',
      }),
    );
    const run = await locks(['--prefix', 'cold/', '--stale-after', '1s', '--confirm-after', '1s']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.open.map((finding) => [finding.ruleId, finding.evidence.reason])).toEqual([
      ['lock.unreadable', expect.stringMatching(/^the lock object is archived in GLACIER/)],
    ]);
    expect(run.open[0]!.remediation.steps.join('\n')).toContain(
      `aws s3api delete-object --bucket ${STATE_BUCKET} --key cold/terraform.tfstate.tflock`,
    );
  });
});

describe('legacy DynamoDB locking', () => {
  const dynamodb = new DynamoDBClient({});

  beforeAll(async () => {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: 'tf-locks',
        AttributeDefinitions: [{ AttributeName: 'LockID', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'LockID', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    legacy = await stageWorkspace({
      source: join(REPO_ROOT, 'test/integration/terraform/dynamodb-lock'),
      backend: { bucket: STATE_BUCKET, key: 'legacy/terraform.tfstate', region: REGION },
      env: { TF_VAR_name: 'legacy-bucket' },
    });
    await legacy.terraform(['apply', '-auto-approve', '-input=false']);
  });

  it('reads the lock from the table and proves it stale; check-backend reports the deprecation', async () => {
    await nextSecond();
    const apply = await applyWaitingAtPrompt(legacy, CHANGE);
    await apply.kill();
    const items = await dynamodb.send(new ScanCommand({ TableName: 'tf-locks' }));
    const lockItem = items.Items?.find((item) => item.Info?.S);
    expect(lockItem?.LockID?.S).toBe(`${STATE_BUCKET}/legacy/terraform.tfstate`);
    const lockId = JSON.parse(lockItem!.Info!.S!).ID as string;

    const run = await locks([
      '--prefix',
      'legacy/',
      '--lock-table',
      'tf-locks',
      '--stale-after',
      '1s',
      '--confirm-after',
      '2s',
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.open).toEqual([
      expect.objectContaining({
        ruleId: 'lock.stale',
        resource: { bucket: STATE_BUCKET, key: 'legacy/terraform.tfstate', lockTable: 'tf-locks', lockId },
        evidence: expect.objectContaining({ lockSource: 'dynamodb', operation: 'OperationTypeApply' }),
      }),
    ]);

    const store = join(temp.path, 'store');
    const check = await runCli([
      'check-backend',
      '--bucket',
      STATE_BUCKET,
      '--lock-table',
      'tf-locks',
      '--store',
      store,
      '--format',
      'json',
    ]);
    const deprecation = (JSON.parse(check.stdout) as Finding[]).find(
      (finding) => finding.ruleId === 'backend.dynamodb-locking-deprecated',
    );
    expect(deprecation).toMatchObject({
      severity: 'low',
      resource: { bucket: STATE_BUCKET, lockTable: 'tf-locks' },
      evidence: expect.objectContaining({
        configuredBy: ['--lock-table'],
        lockItems: 1,
        statesWithDigest: ['legacy/terraform.tfstate'],
      }),
    });
  });
});

describe('both locks, during the migration from DynamoDB to S3 native locking', () => {
  const dynamodb = new DynamoDBClient({});
  const MIGRATING_KEY = 'migrating/terraform.tfstate';

  beforeAll(async () => {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: 'tf-locks-both',
        AttributeDefinitions: [{ AttributeName: 'LockID', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'LockID', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    migrating = await stageWorkspace({
      source: join(REPO_ROOT, 'test/integration/terraform/both-locks'),
      backend: { bucket: STATE_BUCKET, key: MIGRATING_KEY, region: REGION },
      env: { TF_VAR_name: 'migrating-bucket' },
    });
    await migrating.terraform(['apply', '-auto-approve', '-input=false']);
  });

  it('one abandoned lock held in both places is one finding naming both; force-unlock releases both and resolves it', async () => {
    await nextSecond();
    const apply = await applyWaitingAtPrompt(migrating, CHANGE);
    await apply.kill();
    // Terraform wrote one lock info to both places: the same ID and Created.
    const object = await aws.s3.send(
      new GetObjectCommand({ Bucket: STATE_BUCKET, Key: `${MIGRATING_KEY}.tflock` }),
    );
    const fileInfo = JSON.parse((await object.Body?.transformToString()) ?? '{}') as Record<string, string>;
    const items = await dynamodb.send(new ScanCommand({ TableName: 'tf-locks-both' }));
    const item = items.Items?.find((candidate) => candidate.Info?.S);
    expect(item?.LockID?.S).toBe(`${STATE_BUCKET}/${MIGRATING_KEY}`);
    const itemInfo = JSON.parse(item!.Info!.S!) as Record<string, string>;
    expect(itemInfo.ID).toBe(fileInfo.ID);
    expect(itemInfo.Created).toBe(fileInfo.Created);

    const args = ['--lock-table', 'tf-locks-both', '--stale-after', '1s', '--confirm-after', '2s'];
    const run = await locks(['--prefix', 'migrating/', ...args]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      '2 lock(s) in s3://tfstate/migrating/ (stale 2; 1 of them the same lock as another, one finding for both)',
    );
    expect(run.open).toHaveLength(1);
    const [stale] = run.open;
    // The .tflock's resource, so a finding of the .tflock alone keeps its id when the table is added.
    expect(stale).toMatchObject({
      ruleId: 'lock.stale',
      resource: { bucket: STATE_BUCKET, key: `${MIGRATING_KEY}.tflock`, lockId: fileInfo.ID },
      evidence: expect.objectContaining({
        lock: `s3://${STATE_BUCKET}/${MIGRATING_KEY}.tflock`,
        lockSource: 's3',
        alsoHeldIn: [
          expect.objectContaining({
            lock: `DynamoDB table tf-locks-both item ${STATE_BUCKET}/${MIGRATING_KEY}`,
            lockSource: 'dynamodb',
            lockTable: 'tf-locks-both',
          }),
        ],
      }),
    });
    expect(stale!.detail).toContain('tf-locks-both');
    expect(stale!.remediation.steps.join('\n')).toContain(`terraform force-unlock ${fileInfo.ID}`);

    // force-unlock releases both, and the next run of the whole bucket resolves the one finding
    // (other tests of this file leave locks elsewhere in the bucket).
    await migrating.terraform(['force-unlock', '-force', fileInfo.ID!]);
    const left = await dynamodb.send(new ScanCommand({ TableName: 'tf-locks-both' }));
    expect(left.Items?.filter((candidate) => candidate.Info?.S)).toEqual([]);
    await expect(
      aws.s3.send(new HeadObjectCommand({ Bucket: STATE_BUCKET, Key: `${MIGRATING_KEY}.tflock` })),
    ).rejects.toThrow();
    const after = await locks(args);
    expect(after.open.filter((finding) => finding.evidence.stateKey === MIGRATING_KEY)).toEqual([]);
    expect(after.findings).toContainEqual(expect.objectContaining({ id: stale!.id, status: 'resolved' }));
  });
});
