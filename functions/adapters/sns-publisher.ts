import {
  type MessageAttributeValue,
  PublishBatchCommand,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import type { Digest, DigestAudience } from '../core/notify/digest.js';
import type { DigestPublisher } from '../core/notify/notify-owners.js';
import { escapeJsonText } from '../core/text/sanitize.js';

/** SNS allows 10 entries and 256 KiB per PublishBatch request, and 256 KiB per message. */
const MAX_BATCH_ENTRIES = 10;
const MAX_BATCH_BYTES = 256 * 1024;

export interface SnsPublisherOptions {
  topicArn: string;
  /** Attempts per message, on top of the SDK's own retries of throttled requests. */
  attempts?: number;
  /** Pause before the n-th retry: base × 2^(n-1). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** One SNS message of a digest. */
export interface Outgoing {
  digest: Digest;
  audience: DigestAudience;
  entry: Omit<PublishBatchRequestEntry, 'Id'>;
}

/**
 * Publishes digests to the one standard SNS topic with PublishBatch, two messages per digest:
 * - for people, with `MessageStructure: 'json'`: `email` subscriptions get the plain-text body (and
 *   the subject), every other protocol the `default`, the Chatbot custom notification (the chat
 *   relay queues are SQS subscriptions, and Chatbot itself subscribes over HTTPS);
 * - for machines: the finding list (`driftwatch.digest/v1`).
 * Why two messages and not one per-protocol structure: docs/notifications.md. A digest counts as
 * sent when both of its messages were accepted; a retry resends only the message that failed.
 * Subscriptions filter on `audience`, `owner`, `severity`, `environment` and `kinds`.
 */
export function createSnsPublisher(
  sns: SNSClient,
  options: SnsPublisherOptions,
): DigestPublisher & { requests: number } {
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const publisher = {
    requests: 0,
    async publish(digests: readonly Digest[]) {
      const accepted = new Set<Outgoing>();
      const failures = new Map<string, string>();
      // An outbox digest whose other message went out on an earlier attempt sends only this one.
      const outgoing = digests
        .flatMap(messagesOf)
        .filter((message) => !message.digest.delivered?.includes(message.audience));
      let remaining = outgoing;
      for (let attempt = 1; attempt <= attempts && remaining.length > 0; attempt++) {
        if (attempt > 1) await sleep(backoffMs * 2 ** (attempt - 2));
        const retry: Outgoing[] = [];
        for (const batch of batches(remaining)) {
          publisher.requests++;
          try {
            const response = await sns.send(
              new PublishBatchCommand({
                TopicArn: options.topicArn,
                PublishBatchRequestEntries: batch.map((message, index) => ({
                  Id: `m${index}`,
                  ...message.entry,
                })),
              }),
            );
            for (const entry of response.Successful ?? []) {
              const message = entry.Id ? batchMessage(batch, entry.Id) : undefined;
              if (message) accepted.add(message);
            }
            for (const entry of response.Failed ?? []) {
              const message = entry.Id ? batchMessage(batch, entry.Id) : undefined;
              if (!message) continue;
              failures.set(
                message.digest.digestId,
                `${message.audience} message: ${`${entry.Code ?? 'Failed'}: ${entry.Message ?? ''}`.trim()}`,
              );
              // Client errors (a malformed entry) will not succeed on a retry.
              if (!entry.SenderFault) retry.push(message);
            }
          } catch (error) {
            for (const message of batch) failures.set(message.digest.digestId, (error as Error).message);
            retry.push(...batch);
          }
        }
        remaining = retry;
      }
      const sent: string[] = [];
      const failed: Awaited<ReturnType<DigestPublisher['publish']>>['failed'] = [];
      for (const digest of digests) {
        const own = outgoing.filter((message) => message.digest === digest);
        if (own.every((message) => accepted.has(message))) {
          sent.push(digest.digestId);
          continue;
        }
        const delivered = [
          ...(digest.delivered ?? []),
          ...own.filter((message) => accepted.has(message)).map((message) => message.audience),
        ];
        failed.push({
          digestId: digest.digestId,
          reason: failures.get(digest.digestId) ?? 'not accepted by SNS',
          ...(delivered.length > 0 ? { delivered } : {}),
        });
      }
      return { sent, failed };
    },
  };
  return publisher;
}

/** The messages of a digest: for people, and (unless it is an outbox digest of an older version) for machines. */
export function messagesOf(digest: Digest): Outgoing[] {
  const chat = JSON.stringify(digest.message);
  const subject = digest.email?.subject ?? digest.message.metadata.summary.slice(0, 99);
  const people: Outgoing = {
    digest,
    audience: 'people',
    entry: {
      MessageStructure: 'json',
      // SNS requires `default`; `email` goes to e-mail subscriptions, `default` to every other protocol.
      Message: JSON.stringify({ default: chat, ...(digest.email ? { email: digest.email.text } : {}) }),
      Subject: subject,
      MessageAttributes: attributesOf(digest, 'people'),
    },
  };
  if (!digest.document) return [people];
  return [
    people,
    {
      digest,
      audience: 'machines',
      entry: {
        Message: escapeJsonText(JSON.stringify(digest.document)),
        Subject: subject,
        MessageAttributes: attributesOf(digest, 'machines'),
      },
    },
  ];
}

/** What each protocol receives of one digest, as SNS picks it from the messages (the demo prints these). */
export function deliveredBodies(digest: Digest): { chat: string; email: string; machines?: string } {
  const [people, machines] = messagesOf(digest);
  const structure = JSON.parse(people!.entry.Message!) as { default: string; email?: string };
  return {
    chat: structure.default,
    email: structure.email ?? structure.default,
    ...(machines ? { machines: machines.entry.Message! } : {}),
  };
}

function attributesOf(digest: Digest, audience: DigestAudience): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {
    audience: { DataType: 'String', StringValue: audience },
    owner: { DataType: 'String', StringValue: digest.attributes.owner },
    severity: { DataType: 'String', StringValue: digest.attributes.severity },
    kinds: { DataType: 'String.Array', StringValue: JSON.stringify(digest.attributes.kinds) },
    digestId: { DataType: 'String', StringValue: digest.digestId },
  };
  // SNS rejects an empty array attribute; a digest of only resolved findings has no environment.
  if (digest.attributes.environment.length > 0) {
    attributes.environment = {
      DataType: 'String.Array',
      StringValue: JSON.stringify(digest.attributes.environment),
    };
  }
  return attributes;
}

function batchMessage(batch: readonly Outgoing[], id: string): Outgoing | undefined {
  return batch[Number(id.slice(1))];
}

/** Splits messages into batches within the entry and size limits (each message is below 256 KiB). */
function batches(messages: readonly Outgoing[]): Outgoing[][] {
  const result: Outgoing[][] = [];
  let current: Outgoing[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.entry.Message ?? '') + 1024;
    if (current.length === MAX_BATCH_ENTRIES || (current.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}
