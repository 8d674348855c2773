import {
  type MessageAttributeValue,
  PublishBatchCommand,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import type { Digest } from '../core/notify/digest.js';
import type { DigestPublisher } from '../core/notify/notify-owners.js';

/** SNS allows 10 entries and 256 KiB per PublishBatch request. */
const MAX_BATCH_ENTRIES = 10;
const MAX_BATCH_BYTES = 256 * 1024;

export interface SnsPublisherOptions {
  topicArn: string;
  /** Attempts per digest, on top of the SDK's own retries of throttled requests. */
  attempts?: number;
  /** Pause before the n-th retry: base × 2^(n-1). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Publishes digests to the one standard SNS topic with PublishBatch. Subscriptions (Chatbot,
 * email, HTTPS, SQS) filter on the `owner`, `severity`, `environment` and `kinds` attributes.
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
      const sent: string[] = [];
      const failures = new Map<string, string>();
      let remaining = [...digests];
      for (let attempt = 1; attempt <= attempts && remaining.length > 0; attempt++) {
        if (attempt > 1) await sleep(backoffMs * 2 ** (attempt - 2));
        const retry: Digest[] = [];
        for (const batch of batches(remaining)) {
          publisher.requests++;
          try {
            const response = await sns.send(
              new PublishBatchCommand({
                TopicArn: options.topicArn,
                PublishBatchRequestEntries: batch.map(toEntry),
              }),
            );
            for (const entry of response.Successful ?? [])
              if (entry.Id) sent.push(entryDigest(batch, entry.Id).digestId);
            for (const entry of response.Failed ?? []) {
              const digest = entry.Id ? entryDigest(batch, entry.Id) : undefined;
              if (!digest) continue;
              failures.set(digest.digestId, `${entry.Code ?? 'Failed'}: ${entry.Message ?? ''}`.trim());
              // Client errors (a malformed entry) will not succeed on a retry.
              if (!entry.SenderFault) retry.push(digest);
            }
          } catch (error) {
            for (const digest of batch) failures.set(digest.digestId, (error as Error).message);
            retry.push(...batch);
          }
        }
        remaining = retry;
      }
      const sentIds = new Set(sent);
      const failed = [...failures.entries()]
        .filter(([digestId]) => !sentIds.has(digestId))
        .map(([digestId, reason]) => ({ digestId, reason }));
      return { sent, failed };
    },
  };
  return publisher;
}

function toEntry(digest: Digest, index: number): PublishBatchRequestEntry {
  const attributes: Record<string, MessageAttributeValue> = {
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
  return {
    Id: `d${index}`,
    Message: JSON.stringify(digest.message),
    Subject: digest.message.metadata.summary.slice(0, 99),
    MessageAttributes: attributes,
  };
}

function entryDigest(batch: readonly Digest[], id: string): Digest {
  return batch[Number(id.slice(1))]!;
}

/** Splits digests into batches within the entry and size limits (each digest is far below 256 KiB). */
function batches(digests: readonly Digest[]): Digest[][] {
  const result: Digest[][] = [];
  let current: Digest[] = [];
  let bytes = 0;
  for (const digest of digests) {
    const size = Buffer.byteLength(JSON.stringify(digest.message)) + 1024;
    if (current.length === MAX_BATCH_ENTRIES || (current.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(digest);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}
