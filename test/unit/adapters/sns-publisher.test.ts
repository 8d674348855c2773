import { PublishBatchCommand, type PublishBatchRequestEntry, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createSnsPublisher, deliveredBodies } from '../../../functions/adapters/sns-publisher.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { buildDigests, type Digest } from '../../../functions/core/notify/digest.js';
import { notifyOwners } from '../../../functions/core/notify/notify-owners.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../functions/core/registry/model.js';
import { storedFinding } from '../../helpers/findings.js';

const sns = mockClient(SNSClient);
beforeEach(() => sns.reset());

/** A real digest of one new finding for `owner` (environment prod unless told; null: none). */
function digest(owner: string, environment: string | null = 'prod'): Digest {
  const [built] = buildDigests({
    scanId: 'scan-1',
    now: new Date('2026-11-29T03:00:00Z'),
    findings: [storedFinding({ owner, severity: 'high', environment: environment ?? undefined })],
    fallbackOwner: 'platform',
    settings: DEFAULT_NOTIFICATION_SETTINGS,
    store: 's3://findings-bucket',
  });
  return built!;
}
const publisher = () =>
  createSnsPublisher(new SNSClient({ region: 'eu-west-1' }), {
    topicArn: 'arn:aws:sns:eu-west-1:111111111111:driftwatch',
    sleep: async () => {},
  });
const entriesOf = (call: number): PublishBatchRequestEntry[] =>
  sns.commandCalls(PublishBatchCommand)[call]!.args[0].input.PublishBatchRequestEntries!;
const acceptAll = (input: { PublishBatchRequestEntries: Array<{ Id: string }> }) => ({
  Successful: input.PublishBatchRequestEntries.map((entry) => ({ Id: entry.Id })),
});

describe('SNS digest publisher', () => {
  it('publishes two messages per digest in batches of ten, with the attributes subscriptions filter on', async () => {
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const owners = Array.from({ length: 12 }, (_, index) => `team-${index}`);
    const sns_ = publisher();
    const result = await sns_.publish(owners.map((owner) => digest(owner)));
    expect(result).toEqual({ sent: owners.map((owner) => `scan-1.${owner}`), failed: [] });
    expect(sns_.requests).toBe(3);
    const [people, machines] = entriesOf(0);
    const attributes = {
      owner: { DataType: 'String', StringValue: 'team-0' },
      severity: { DataType: 'String', StringValue: 'high' },
      kinds: { DataType: 'String.Array', StringValue: '["terraform-drift"]' },
      environment: { DataType: 'String.Array', StringValue: '["prod"]' },
      digestId: { DataType: 'String', StringValue: 'scan-1.team-0' },
    };
    expect(people!.MessageAttributes).toEqual({
      ...attributes,
      audience: { DataType: 'String', StringValue: 'people' },
    });
    expect(machines!.MessageAttributes).toEqual({
      ...attributes,
      audience: { DataType: 'String', StringValue: 'machines' },
    });
    expect(people!.Subject).toBe('driftwatch for team-0: 1 new');
  });

  it('gives people a structure per protocol (e-mail text, chat payload by default) and machines the finding list', async () => {
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const built = digest('payments');
    await publisher().publish([built]);
    const [people, machines] = entriesOf(0);
    expect(people!.MessageStructure).toBe('json');
    const structure = JSON.parse(people!.Message!) as Record<string, string>;
    // SNS requires `default`; the chat relay queues (SQS) and Chatbot (HTTPS) take it.
    expect(Object.keys(structure).sort()).toEqual(['default', 'email']);
    expect(JSON.parse(structure.default!)).toEqual(built.message);
    expect(structure.email).toBe(built.email!.text);
    expect(machines!.MessageStructure).toBeUndefined();
    expect(JSON.parse(machines!.Message!)).toEqual(built.document);
    expect(deliveredBodies(built)).toEqual({
      chat: structure.default,
      email: structure.email,
      machines: machines!.Message,
    });
    for (const entry of [people!, machines!])
      expect(Buffer.byteLength(entry.Message!)).toBeLessThan(256 * 1024);
  });

  it('retries only the message that failed, and reports a digest sent only when both of its messages were', async () => {
    sns
      .on(PublishBatchCommand)
      .rejectsOnce(new Error('Throttling'))
      .resolvesOnce({
        Successful: [{ Id: 'm0' }, { Id: 'm1' }, { Id: 'm2' }],
        Failed: [{ Id: 'm3', Code: 'InternalError', SenderFault: false }],
      })
      .resolves({ Failed: [{ Id: 'm0', Code: 'InternalError', SenderFault: false }] });
    const result = await publisher().publish([digest('a'), digest('b')]);
    expect(result.sent).toEqual(['scan-1.a']);
    // b's chat and e-mail went out: the outbox keeps that, and the next run sends the finding list only.
    expect(result.failed).toEqual([
      { digestId: 'scan-1.b', reason: 'machines message: InternalError:', delivered: ['people'] },
    ]);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 3);
    // The third request resends b's message for machines alone: b's chat and e-mail went out once.
    expect(entriesOf(2).map((entry) => entry.MessageAttributes?.audience?.StringValue)).toEqual(['machines']);
    expect(entriesOf(2)[0]!.MessageAttributes?.owner?.StringValue).toBe('b');
  });

  it('does not retry a message SNS rejected as malformed, and leaves out an empty environment list', async () => {
    sns.on(PublishBatchCommand).resolves({
      Successful: [{ Id: 'm1' }],
      Failed: [{ Id: 'm0', Code: 'InvalidParameter', SenderFault: true, Message: 'bad' }],
    });
    const result = await publisher().publish([digest('a', null)]);
    expect(result.failed).toEqual([
      { digestId: 'scan-1.a', reason: 'people message: InvalidParameter: bad', delivered: ['machines'] },
    ]);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 1);
    expect(entriesOf(0)[0]!.MessageAttributes?.environment).toBeUndefined();
  });

  it('publishes an outbox digest of an older version (chat payload only) as one message for people', async () => {
    sns.on(PublishBatchCommand).callsFake(acceptAll);
    const { email: _email, document: _document, ...older } = digest('a');
    const result = await publisher().publish([older]);
    expect(result.sent).toEqual(['scan-1.a']);
    expect(entriesOf(0)).toHaveLength(1);
    expect(JSON.parse(entriesOf(0)[0]!.Message!)).toEqual({ default: JSON.stringify(older.message) });
  });
});

describe('a digest half sent (one message accepted, the other not after every retry)', () => {
  const audiencesOf = (owner: string) =>
    sns
      .commandCalls(PublishBatchCommand)
      .flatMap((call) => call.args[0].input.PublishBatchRequestEntries ?? [])
      .filter((entry) => entry.MessageAttributes?.owner?.StringValue === owner)
      .map((entry) => entry.MessageAttributes?.audience?.StringValue);

  it('is finished by the next run with the other message only: chat and e-mail get it once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-half-sent-'));
    try {
      const objects = createFsObjectStore(dir);
      const run = (scanId: string, findings: Finding[]) =>
        notifyOwners(
          {
            scanId,
            now: new Date('2026-11-29T03:00:00Z'),
            findings,
            fallbackOwner: 'platform',
            settings: DEFAULT_NOTIFICATION_SETTINGS,
          },
          { publisher: publisher(), store: objects },
        );
      // SNS takes the message for people and keeps failing the finding list (InternalError).
      sns
        .on(PublishBatchCommand)
        .callsFake((input: { PublishBatchRequestEntries: PublishBatchRequestEntry[] }) => {
          const entries = input.PublishBatchRequestEntries as Array<
            PublishBatchRequestEntry & { Id: string }
          >;
          const forMachines = (entry: PublishBatchRequestEntry) =>
            entry.MessageAttributes?.audience?.StringValue === 'machines';
          return {
            Successful: entries.filter((entry) => !forMachines(entry)).map((entry) => ({ Id: entry.Id })),
            Failed: entries
              .filter(forMachines)
              .map((entry) => ({ Id: entry.Id, Code: 'InternalError', SenderFault: false })),
          };
        });
      const first = await run('scan-1', [storedFinding({ owner: 'payments', severity: 'high' })]);
      expect(first.deferred.map((failure) => failure.digestId)).toEqual(['scan-1.payments']);
      expect(audiencesOf('payments')).toEqual(['people', 'machines', 'machines', 'machines']);

      // The same scan's NotifyOwners again (a retried execution), then the next night, SNS healthy.
      sns.reset();
      sns.on(PublishBatchCommand).callsFake(acceptAll);
      const retried = await run('scan-1', [storedFinding({ owner: 'payments', severity: 'high' })]);
      expect(retried.sent.map((sent) => sent.digestId)).toEqual(['scan-1.payments']);
      const next = await run('scan-2', []);
      expect(next.resent).toEqual([]);
      expect(audiencesOf('payments')).toEqual(['machines']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an outbox digest half sent earlier is finished by the next night, not sent whole again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-half-sent-'));
    try {
      const objects = createFsObjectStore(dir);
      const half = { ...digest('payments'), delivered: ['people' as const] };
      await objects.put(`notifications/outbox/${half.digestId}.json`, JSON.stringify(half));
      sns.on(PublishBatchCommand).callsFake(acceptAll);
      const next = await notifyOwners(
        {
          scanId: 'scan-2',
          now: new Date('2026-11-30T03:00:00Z'),
          findings: [],
          fallbackOwner: 'platform',
          settings: DEFAULT_NOTIFICATION_SETTINGS,
        },
        { publisher: publisher(), store: objects },
      );
      expect(next.resent).toEqual(['scan-1.payments']);
      expect(audiencesOf('payments')).toEqual(['machines']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
