import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOwnerInboxes, inboxFilterPolicy, type ReceivedDigest } from '../../cli/demo/chat-inbox.js';
import { type LocalScanResult, runLocalScan } from '../../cli/local-runner.js';
import type { LoadedRegistry } from '../../cli/registry-file.js';
import { createLogger } from '../../functions/adapters/logger.js';
import { createS3ObjectStore } from '../../functions/adapters/object-store/s3-object-store.js';
import { createSnsPublisher, deliveredBodies } from '../../functions/adapters/sns-publisher.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { type ObjectStore, PreconditionFailedError } from '../../functions/core/findings/object-store.js';
import type { ChatbotNotification } from '../../functions/core/notify/digest.js';
import type { DigestDocument } from '../../functions/core/notify/digest-document.js';
import type { DigestEmail } from '../../functions/core/notify/digest-email.js';
import { notifyOwners, OUTBOX_PREFIX } from '../../functions/core/notify/notify-owners.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import { parseRegistry } from '../../functions/core/registry/parse.js';
import type { ScanPorts } from '../../functions/core/scan/ports.js';
import { compactPlan } from '../../functions/core/terraform/index.js';
import { destinationFilterPolicy } from '../../infra/subscription-filters.js';
import { driftDraft } from '../helpers/findings.js';
import { canary, REPO_ROOT, runCli, useMoto } from '../helpers/integration.js';
import { bucketValues, entry, ingressRule, plan, securityGroupValues } from '../helpers/plan-builders.js';

/**
 * Owner digests through real SNS → SQS (moto), one queue per owner subscribed with a filter policy
 * on `owner`, over a series of nightly scans whose findings are stored in a real S3 findings bucket.
 * Terraform itself is replaced by plan documents (the plan → finding path has its own tests).
 */
const aws = useMoto();
const OWNERS = ['payments', 'platform', 'dba'] as const;
let topicArn: string;
const hashSensitive = createSensitiveHasher('notification-test-salt-01');
const passwords = [canary('db-password'), canary('db-password-2')];
const DAY = 24 * 60 * 60_000;
const today = new Date(`${new Date().toISOString().slice(0, 10)}T02:00:00Z`);
const night = (n: number) => new Date(today.getTime() + (n - 1) * DAY);

const loaded: LoadedRegistry = {
  registry: parseRegistry(`
version: 1
owners:
  fallback: platform
  teams:
    - { id: platform, destinations: [{ type: sqs, queueArn: "arn:aws:sqs:eu-west-1:123456789012:platform" }] }
    - { id: payments, destinations: [{ type: sqs, queueArn: "arn:aws:sqs:eu-west-1:123456789012:payments" }] }
    - { id: dba, destinations: [{ type: sqs, queueArn: "arn:aws:sqs:eu-west-1:123456789012:dba" }] }
workspaces:
  - id: payments-prod
    owner: payments
    environment: prod
    source: { dir: . }
    backend: { bucket: tfstate, key: payments.tfstate, region: eu-west-1 }
    routes: [{ address: "module.db.*", owner: dba }]
  - id: platform-prod
    owner: platform
    environment: prod
    source: { dir: . }
    backend: { bucket: tfstate, key: platform.tfstate, region: eu-west-1 }
`),
  dir: REPO_ROOT,
  path: `${REPO_ROOT}/driftwatch.yaml`,
};

/** What drifted in each workspace on a night. */
interface Night {
  ledgerOwnerTag?: string;
  dbClass?: string;
  edgeOpenPorts?: number[];
}

function planFor(workspace: string, drift: Night) {
  const entries = [];
  if (workspace === 'payments-prod' && drift.ledgerOwnerTag) {
    entries.push(
      entry('aws_s3_bucket.ledger', {
        before: bucketValues(),
        after: bucketValues({
          tags: { Owner: drift.ledgerOwnerTag },
          tags_all: { Owner: drift.ledgerOwnerTag },
        }),
      }),
    );
  }
  if (workspace === 'payments-prod' && drift.dbClass) {
    entries.push(
      entry('module.db.aws_db_instance.main', {
        module: 'module.db',
        before: { identifier: 'main', instance_class: 'db.t3.micro', password: passwords[0] },
        after: { identifier: 'main', instance_class: drift.dbClass, password: passwords[1] },
        beforeSensitive: { password: true },
        afterSensitive: { password: true },
      }),
    );
  }
  if (workspace === 'platform-prod' && drift.edgeOpenPorts) {
    const rules = [
      ingressRule('10.0.0.0/16', 443),
      ...drift.edgeOpenPorts.map((port) => ingressRule('0.0.0.0/0', port)),
    ];
    entries.push(
      entry('aws_security_group.edge', {
        before: securityGroupValues({ ingress: [ingressRule('10.0.0.0/16', 443)] }),
        after: securityGroupValues({ ingress: rules }),
      }),
    );
  }
  return plan({ drift: entries });
}

/** Terraform replaced by plan documents; everything after the plan is real. */
function portsFor(drift: Night): (scanId: string) => ScanPorts {
  return () => ({
    credentials: async () => undefined,
    identity: async () => ({ ok: true, account: '123456789012', arn: 'arn:aws:iam::123456789012:user/test' }),
    stateVersion: async () => ({ versionId: 'v1' }),
    prepare: async (workspace) => ({
      initDurationMs: 0,
      close: async () => {},
      plan: async () => ({
        plan: compactPlan(planFor(workspace.id, drift), { hashSensitive }),
        exitCode: 2,
        durationMs: 0,
      }),
    }),
  });
}

const objects = () => createS3ObjectStore(new S3Client({}), 'findings');

function scan(n: number, drift: Night, topic = topicArn): Promise<LocalScanResult> {
  return runLocalScan({
    loaded,
    store: objects(),
    hashSensitive,
    logger: createLogger({ write: () => {} }),
    ports: portsFor(drift),
    backendChecks: false,
    now: () => night(n),
    publisher: createSnsPublisher(new SNSClient({}), { topicArn: topic, sleep: async () => {} }),
  });
}

let inboxes: Awaited<ReturnType<typeof createOwnerInboxes>>;
/** The finding lists each owner's SQS destination received with the chat messages of the last drain. */
let machines: Record<string, ReceivedDigest<DigestDocument>[]> = {};

/** Everything waiting in each owner's queues (and removes it): chat messages; finding lists in `machines`. */
async function drain(): Promise<Record<string, ReceivedDigest[]>> {
  const result: Record<string, ReceivedDigest[]> = {};
  machines = {};
  for (const owner of OWNERS) {
    result[owner] = await inboxes.drain(owner);
    machines[owner] = await inboxes.drainMachines(owner);
    // Every digest is both messages, or (published again from the outbox) both again.
    expect(machines[owner]!.map((message) => message.attributes.digestId)).toEqual(
      result[owner]!.map((message) => message.attributes.digestId),
    );
  }
  return result;
}

/** Night 1's bodies per owner, as each destination received them (e-mail: as SNS was given it). */
const nightOne: Record<
  string,
  { chat: ChatbotNotification; machines: DigestDocument[]; email: DigestEmail }
> = {};

const counts = (received: Record<string, ReceivedDigest[]>) =>
  Object.fromEntries(OWNERS.map((owner) => [owner, received[owner]!.length]));

beforeAll(async () => {
  inboxes = await createOwnerInboxes(OWNERS);
  topicArn = inboxes.topicArn;
  await aws.s3.send(
    new CreateBucketCommand({
      Bucket: 'findings',
      CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
    }),
  );
});

describe('owner digests over nightly scans (SNS → SQS per owner, findings in S3)', () => {
  const everything: string[] = [];
  const all = { ledgerOwnerTag: 'finance', dbClass: 'db.t3.small', edgeOpenPorts: [22] };

  it('night 1: each owner gets exactly its own digest, routed by address', async () => {
    const result = await scan(1, all);
    const received = await drain();
    everything.push(...Object.values(received).flatMap((messages) => messages.map((message) => message.raw)));
    everything.push(...Object.values(machines).flatMap((messages) => messages.map((message) => message.raw)));
    // moto delivers nothing to e-mail: the e-mail body is the `email` member of the message SNS took.
    everything.push(...(result.notified?.sent ?? []).map((digest) => deliveredBodies(digest).email));
    for (const digest of result.notified?.sent ?? [])
      nightOne[digest.owner] = {
        chat: received[digest.owner]![0]!.body,
        machines: machines[digest.owner]!.map((message) => message.body),
        email: { subject: digest.email!.subject, text: deliveredBodies(digest).email },
      };
    expect(counts(received)).toEqual({ payments: 1, platform: 1, dba: 1 });
    const payments = received.payments![0]!;
    expect(payments.attributes).toMatchObject({
      owner: 'payments',
      severity: 'low',
      environment: '["prod"]',
    });
    expect(payments.body.content.description).toContain('aws_s3_bucket.ledger');
    expect(payments.body.content.description).not.toContain('aws_db_instance');
    expect(received.dba![0]!.body.content.description).toContain('module.db.aws_db_instance.main');
    const platform = received.platform![0]!;
    expect(platform.attributes.severity).toBe('critical');
    expect(platform.body).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { textType: 'client-markdown' },
    });
    expect(platform.body.content.nextSteps).toEqual([
      expect.stringMatching(/^Report: https?:\/\/.*\/reports\/scan%3D[^/]+\/owners\/platform\.html\?/),
      expect.stringMatching(
        /^platform-prod: revert \(a normal `terraform plan` through the team's pipeline.*or adopt \(change/,
      ),
    ]);
  });

  it("night 1: every body links to the owner's report of that scan, and the link opens that owner's report", async () => {
    for (const owner of OWNERS) {
      const { chat, machines: lists, email } = nightOne[owner]!;
      const url = lists[0]!.reportUrl!;
      // A presigned GET of the owner's report of this scan (WriteReports ran before NotifyOwners).
      expect(decodeURIComponent(new URL(url).pathname)).toMatch(
        new RegExp(`/findings/reports/scan=[^/]+/owners/${owner}\\.html$`),
      );
      expect(new URL(url).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      expect(email.text).toContain(`Report: ${url}`);
      expect(JSON.stringify(chat.content)).toContain('Report:');
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const report = await response.text();
      expect(report).toMatch(/^<!doctype html>/i);
      // Only this owner's findings: the others' resources are not in it.
      const others = {
        payments: 'aws_db_instance',
        platform: 'aws_s3_bucket.ledger',
        dba: 'aws_security_group',
      };
      expect(report, owner).not.toContain(others[owner as keyof typeof others]);
    }
  });

  it('night 1, per destination: the chat item says what to do, the SQS queue gets the finding list, e-mail plain text', async () => {
    const store = createFindingsStore(objects());
    const edge = (await store.openFindings()).find((finding) => finding.workspace === 'platform-prod')!;
    const id = edge.id.slice(0, 12);
    // The store the team's CLI reads (the findings bucket), in every command.
    const show = `driftwatch findings show ${id} --store s3://findings`;
    const remediate = `driftwatch remediate ${id} --revert --store s3://findings`;

    // A security group open to the world: close it now, and who opened it (CloudTrail in the workspace's region).
    const chat = nightOne.platform!.chat;
    expect(chat.content.description).toContain(`id \`${id}\``);
    expect(chat.content.description).toContain('Close it now');
    expect(chat.content.description).toContain(
      '`aws cloudtrail lookup-events --region eu-west-1 --lookup-attributes AttributeKey=ResourceName,AttributeValue=GROUP_ID`',
    );
    expect(chat.content.description).toContain(`\`${show}\` · \`${remediate}\``);

    const [document] = nightOne.platform!.machines;
    expect(document).toMatchObject({
      schema: 'driftwatch.digest/v1',
      owner: 'platform',
      severity: 'critical',
      counts: { new: 1, changed: 0, regressed: 0, resolved: 0, reminders: 0, notListed: 0 },
      items: [
        {
          id: edge.id,
          shortId: id,
          section: 'new',
          severity: 'critical',
          kind: 'terraform-drift',
          ruleId: 'drift.update',
          resource: 'aws_security_group.edge',
          workspace: 'platform-prod',
          environment: 'prod',
          advice: {
            source: 'content:open-ingress',
            commands: [expect.stringContaining('--region eu-west-1')],
          },
          commands: [show, remediate],
        },
      ],
    });

    const email = nightOne.platform!.email;
    expect(email.subject).toBe('driftwatch for platform: 1 new');
    expect(email.text).toContain(`[CRITICAL] aws_security_group.edge in platform-prod (prod)`);
    expect(email.text).toContain(`    ${show}\n    ${remediate}`);
    expect(email.text).not.toMatch(/[*<{`]|:red_circle:|&lt;/);
  });

  it('night 2, nothing new: nobody hears anything', async () => {
    await scan(2, all);
    expect(counts(await drain())).toEqual({ payments: 0, platform: 0, dba: 0 });
  });

  it('night 3: a changed value is `changed`, only for its owner', async () => {
    await scan(3, { ...all, ledgerOwnerTag: 'legal' });
    const received = await drain();
    expect(counts(received)).toEqual({ payments: 1, platform: 0, dba: 0 });
    expect(received.payments![0]!.body.content.description).toContain('*Changed* (1)');
  });

  it('night 4: a fixed resource is `resolved`; night 5: its return is `regressed`', async () => {
    await scan(4, { ...all, ledgerOwnerTag: undefined });
    const resolved = await drain();
    expect(counts(resolved)).toEqual({ payments: 1, platform: 0, dba: 0 });
    expect(resolved.payments![0]!.body.content.description).toMatch(
      /\*Resolved\* \(1\): `aws_s3_bucket.ledger`/,
    );
    await scan(5, { ...all, ledgerOwnerTag: 'legal' });
    const regressed = await drain();
    expect(counts(regressed)).toEqual({ payments: 1, platform: 0, dba: 0 });
    expect(regressed.payments![0]!.body.content.description).toContain('*Regressed');
  });

  it('a suppressed finding is never notified, and its expiry reopens it', async () => {
    const store = createFindingsStore(objects());
    const open = await store.openFindings();
    const edge = open.find((finding) => finding.workspace === 'platform-prod')!;
    const until = night(8).toISOString();
    await store.suppress(edge.id, {
      reason: 'firewall migration',
      by: 'alice',
      until,
      at: night(5).toISOString(),
    });

    await scan(6, { ...all, ledgerOwnerTag: 'legal' });
    expect(counts(await drain())).toEqual({ payments: 0, platform: 0, dba: 0 });

    const reopened = await scan(9, { ...all, ledgerOwnerTag: 'legal' });
    const received = await drain();
    // dba's finding (night 1) completed its first week on night 8, which had no scan: the reminder
    // comes with this one instead of a week later.
    expect(counts(received)).toEqual({ payments: 0, platform: 1, dba: 1 });
    expect(received.dba![0]!.body.content.description).toContain('*Still open (reminder every 7d)* (1)');
    const edgeFinding = reopened.findings.find((finding) => finding.id === edge.id)!;
    expect(edgeFinding.status).toBe('new');
    expect(edgeFinding.evidence.suppressionExpired).toMatchObject({
      by: 'alice',
      reason: 'firewall migration',
    });

    // The same scan's NotifyOwners run again (a retried Lambda) sends nothing twice.
    const again = await notifyOwners(
      {
        scanId: reopened.scanId,
        now: night(9),
        findings: reopened.findings,
        fallbackOwner: 'platform',
        settings: loaded.registry.notifications,
      },
      {
        publisher: createSnsPublisher(new SNSClient({}), { topicArn, sleep: async () => {} }),
        store: objects(),
      },
    );
    expect(again.sent).toEqual([]);
    expect(again.alreadySent).toEqual([`${reopened.scanId}.dba`, `${reopened.scanId}.platform`]);
    expect(counts(await drain())).toEqual({ payments: 0, platform: 0, dba: 0 });
  });

  it('SNS failing: retried, kept in the outbox, sent by the next run exactly once', async () => {
    const broken = `${topicArn}-does-not-exist`;
    const failed = await scan(10, { ...all, ledgerOwnerTag: 'marketing' }, broken);
    expect(failed.notified?.deferred).toEqual([
      expect.objectContaining({ digestId: `${failed.scanId}.payments` }),
    ]);
    expect(counts(await drain())).toEqual({ payments: 0, platform: 0, dba: 0 });
    const outbox = await new S3Client({}).send(
      new GetObjectCommand({ Bucket: 'findings', Key: `${OUTBOX_PREFIX}${failed.scanId}.payments.json` }),
    );
    expect(await outbox.Body?.transformToString()).toContain('marketing');

    const next = await scan(11, { ...all, ledgerOwnerTag: 'marketing' });
    expect(next.notified?.resent).toEqual([`${failed.scanId}.payments`]);
    const received = await drain();
    expect(counts(received)).toEqual({ payments: 1, platform: 0, dba: 0 });
    expect(received.payments![0]!.attributes.digestId).toBe(`${failed.scanId}.payments`);
  });

  it('night 12: a finding open a whole week is repeated as a reminder, nothing else is', async () => {
    // The ledger finding regressed on night 5: a week later its owner is reminded of it once.
    const result = await scan(12, { ...all, ledgerOwnerTag: 'marketing' });
    const received = await drain();
    expect(counts(received)).toEqual({ payments: 1, platform: 0, dba: 0 });
    expect(received.payments![0]!.attributes.digestId).toBe(`${result.scanId}.payments`);
    expect(received.payments![0]!.body.content.description).toContain('*Still open (reminder every 7d)* (1)');
    await scan(13, { ...all, ledgerOwnerTag: 'marketing' });
    expect(counts(await drain())).toEqual({ payments: 0, platform: 0, dba: 0 });
  });

  it("the stand-in queues filter as the deployed subscriptions do (a chat channel's relay, an SQS destination)", () => {
    const team = { id: 'payments', destinations: [] };
    expect(inboxFilterPolicy('payments', 'people')).toEqual(
      destinationFilterPolicy(team, { type: 'chatbot-slack', workspace: 'T1', channel: 'C1' }),
    );
    expect(inboxFilterPolicy('payments', 'machines')).toEqual(
      destinationFilterPolicy(team, { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:123456789012:q' }),
    );
  });

  it('no message carries a secret from the plans', () => {
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of passwords) expect(everything.join('\n')).not.toContain(secret);
    expect(everything.join('\n')).toMatch(/\(sensitive:[0-9a-f]{8}\)/);
  });

  it('the notify-owners and check-health handlers run with their sample events', async () => {
    const env = {
      FINDINGS_BUCKET: 'findings',
      TOPIC_ARN: topicArn,
      DRIFTWATCH_HASH_SALT: 'notification-test-salt-01',
    };
    // The sample scan wrote no history here: nothing to send, and saying so is the result.
    const notify = await runCli(['invoke', 'notify-owners', '--event', 'events/notify-owners.json'], { env });
    expect(notify.code, notify.stderr).toBe(0);
    expect(JSON.parse(notify.stdout)).toEqual({
      sent: [],
      alreadySent: [],
      deferred: [],
      resent: [],
      counts: { sent: 0, alreadySent: 0, deferred: 0, resent: 0 },
    });

    // A findings bucket where no scan ever completed: the fallback owner (platform) is alerted once.
    await aws.s3.send(
      new CreateBucketCommand({
        Bucket: 'empty-findings',
        CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
      }),
    );
    const emptyEnv = { ...env, FINDINGS_BUCKET: 'empty-findings' };
    const health = await runCli(['invoke', 'check-health', '--event', 'events/check-health.json'], {
      env: emptyEnv,
    });
    expect(health.code, health.stderr).toBe(0);
    expect(JSON.parse(health.stdout)).toEqual({ missing: true, alerted: ['missing-after-none.platform'] });
    const again = await runCli(['invoke', 'check-health', '--event', 'events/check-health.json'], {
      env: emptyEnv,
    });
    expect(JSON.parse(again.stdout)).toEqual({ missing: true, alerted: [] });
    const received = await drain();
    expect(counts(received)).toEqual({ payments: 0, platform: 1, dba: 0 });
    expect(received.platform![0]!.body.content.description).toContain(
      'No driftwatch scan completed within 26h',
    );
  });

  it('concurrent writers of one scope lose no update (S3 conditional writes)', async () => {
    // The race is staged, not left to chance: moto checks a write's condition and then writes, in two
    // steps on its request threads, so truly simultaneous writers can both pass there (S3 cannot let
    // them) and a free-for-all failed now and then. Writer A reads the scope and is held at its write;
    // writer B reads, writes; then A writes on what it read. S3's condition, through the real adapter
    // and moto, must refuse A (If-None-Match on a new scope, If-Match on an existing one) and A must
    // read again and keep B's finding.
    const real = objects();
    const store = createFindingsStore(real);
    const scope = 'race-scope';
    // Round 0: the scope is new (If-None-Match: *); round 1: it exists (If-Match: its ETag).
    for (const round of [0, 1]) {
      let reached!: () => void;
      const firstReached = new Promise<void>((resolve) => {
        reached = resolve;
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held = false;
      let refused = 0;
      const staged: ObjectStore = {
        ...real,
        async put(key, body, options) {
          if (key === `current/${scope}.json` && !held) {
            held = true;
            reached();
            await released;
          }
          try {
            return await real.put(key, body, options);
          } catch (error) {
            if (error instanceof PreconditionFailedError) refused++;
            throw error;
          }
        },
      };
      // Two executions (the night and a re-scan), so two scans: one scan records a scope's check once.
      const record = (findings: ReturnType<typeof createFindingsStore>, writer: string) =>
        findings.recordWorkspace(
          { scanId: `race-${writer}-${round}`, startedAt: night(1), now: night(1) },
          { workspace: scope, check: 'terraform', outcome: 'failed' },
          [
            driftDraft({
              workspace: scope,
              resource: { address: `aws_s3_bucket.${writer}_${round}`, type: 'aws_s3_bucket' },
            }),
          ],
        );
      const writerA = record(createFindingsStore(staged), 'a');
      await firstReached;
      await record(createFindingsStore(staged), 'b');
      release();
      await writerA;
      expect(refused, `round ${round}`).toBe(1);
    }
    const current = await store.readCurrent(scope);
    const kept = current!.document.findings.map(
      (finding: Finding) => (finding.resource as { address: string }).address,
    );
    // A failed run resolves nothing: every writer's finding is still there.
    expect(kept.sort()).toEqual([
      'aws_s3_bucket.a_0',
      'aws_s3_bucket.a_1',
      'aws_s3_bucket.b_0',
      'aws_s3_bucket.b_1',
    ]);
  });
});
