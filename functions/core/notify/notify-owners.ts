import type { Finding } from '../findings/model.js';
import type { ObjectStore } from '../findings/object-store.js';
import type { NotificationSettings } from '../registry/model.js';
import { buildDigests, type Digest } from './digest.js';

/** Publishes digests; reports per digest which were accepted, after the publisher's own retries. */
export interface DigestPublisher {
  publish(
    digests: readonly Digest[],
  ): Promise<{ sent: string[]; failed: Array<{ digestId: string; reason: string }> }>;
}

export interface NotifyResult {
  /** Digests of this scan published now. */
  sent: Digest[];
  /** Digests of this scan already published by an earlier run of the same scan. */
  alreadySent: string[];
  /** Digests that kept failing: kept in the outbox, sent by the next run. */
  deferred: Array<{ digestId: string; reason: string }>;
  /** Digests of earlier scans taken from the outbox and published now. */
  resent: string[];
}

export const SENT_PREFIX = 'notifications/sent/';
export const OUTBOX_PREFIX = 'notifications/outbox/';

const sentKey = (digestId: string) => `${SENT_PREFIX}${digestId}.json`;
const outboxKey = (digestId: string) => `${OUTBOX_PREFIX}${digestId}.json`;

/**
 * NotifyOwners: one digest per owner with news, published once per scan and owner.
 * - A `sent` marker per digest makes a rerun of the same scan publish nothing twice.
 * - A digest that still fails after the publisher's retries goes to the outbox in the findings
 *   store and is published by the next run, before that run's own digests: never lost.
 * (A crash between a publish and its marker can still repeat that one digest; subscribers can
 * deduplicate on the `digestId` message attribute.)
 */
export async function notifyOwners(
  input: {
    scanId: string;
    now: Date;
    findings: readonly Finding[];
    fallbackOwner: string;
    settings: NotificationSettings;
  },
  ports: { publisher: DigestPublisher; store: ObjectStore },
): Promise<NotifyResult> {
  const result: NotifyResult = { sent: [], alreadySent: [], deferred: [], resent: [] };
  const markSent = (digestId: string) =>
    ports.store.put(sentKey(digestId), JSON.stringify({ digestId, sentAt: input.now.toISOString() }));

  // Earlier failures first: they are older news.
  const waiting: Digest[] = [];
  for await (const object of ports.store.list(OUTBOX_PREFIX)) {
    const stored = await ports.store.get(object.key);
    if (!stored) continue;
    const digest = JSON.parse(stored.body) as Digest;
    if (await ports.store.get(sentKey(digest.digestId))) await ports.store.delete(object.key);
    else waiting.push(digest);
  }
  if (waiting.length > 0) {
    const outcome = await ports.publisher.publish(waiting);
    for (const digestId of outcome.sent) {
      await markSent(digestId);
      await ports.store.delete(outboxKey(digestId));
      result.resent.push(digestId);
    }
  }

  const digests = buildDigests(input);
  const pending: Digest[] = [];
  for (const digest of digests) {
    if (await ports.store.get(sentKey(digest.digestId))) result.alreadySent.push(digest.digestId);
    else pending.push(digest);
  }
  if (pending.length === 0) return result;
  const outcome = await ports.publisher.publish(pending);
  const sent = new Set(outcome.sent);
  for (const digest of pending) {
    if (sent.has(digest.digestId)) {
      await markSent(digest.digestId);
      result.sent.push(digest);
    }
  }
  for (const failure of outcome.failed) {
    const digest = pending.find((candidate) => candidate.digestId === failure.digestId);
    if (!digest) continue;
    await ports.store.put(outboxKey(digest.digestId), JSON.stringify(digest));
    result.deferred.push(failure);
  }
  return result;
}
