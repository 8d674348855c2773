import { findingId } from '../findings/fingerprint.js';
import type { Finding } from '../findings/model.js';
import { type ObjectStore, PreconditionFailedError } from '../findings/object-store.js';
import {
  type CorruptObject,
  corruptObjectFinding,
  quarantineObject,
  STORE_SCOPE,
} from '../findings/quarantine.js';
import { STORED } from '../findings/stored-schemas.js';
import { listAtMost, MAX_REASON_CHARS } from '../scan/stage-result.js';
import { limitText } from '../text/sanitize.js';
import { buildDigests, type Digest, type DigestAudience, type DigestInput } from './digest.js';

/**
 * Publishes digests; reports per digest which were accepted, after the publisher's own retries. A
 * failed digest names the audiences whose message was accepted all the same (`delivered`); it
 * publishes none of a digest's `delivered` audiences again.
 */
export interface DigestPublisher {
  publish(digests: readonly Digest[]): Promise<{
    sent: string[];
    failed: Array<{ digestId: string; reason: string; delivered?: DigestAudience[] }>;
  }>;
}

export interface NotifyResult {
  /** Digests of this scan published now. */
  sent: Digest[];
  /** Digests of this scan already published (or being published right now) by another run. */
  alreadySent: string[];
  /** Digests that kept failing (this scan's, and outbox digests that failed again): kept in the outbox, sent by the next run. */
  deferred: Array<{ digestId: string; reason: string }>;
  /** Digests of earlier scans taken from the outbox and published now. */
  resent: string[];
  /** Outbox entries and sent markers that were corrupt: moved to quarantine/, reported to the fallback owner. */
  quarantined: CorruptObject[];
}

export const SENT_PREFIX = 'notifications/sent/';
export const OUTBOX_PREFIX = 'notifications/outbox/';

/**
 * A claim older than this belonged to a run that died between claiming and publishing (a Lambda
 * runs 15 minutes at most): another run may take it over, or the digest would never be sent.
 */
export const CLAIM_LEASE_MS = 20 * 60_000;

const sentKey = (digestId: string) => `${SENT_PREFIX}${digestId}.json`;
const outboxKey = (digestId: string) => `${OUTBOX_PREFIX}${digestId}.json`;

/**
 * Digests SNS did not accept after the publisher's retries. They are kept in the outbox and sent by
 * the next run, but a topic that refuses every night (its KMS key policy, a deleted topic) must not
 * go unheard: the run fails with this, after everything else was sent.
 */
export class DigestsNotSentError extends Error {
  constructor(readonly deferred: NotifyResult['deferred']) {
    const listed = deferred.slice(0, 3).map((failure) => `${failure.digestId} (${failure.reason})`);
    const rest = deferred.length > 3 ? `; and ${deferred.length - 3} more` : '';
    super(
      `${deferred.length} digest${deferred.length === 1 ? '' : 's'} not accepted by SNS: ${listed.join('; ')}${rest}. ` +
        `Kept in ${OUTBOX_PREFIX} and sent by the next run; check the topic, its KMS key policy and the sns:Publish permission`,
    );
    this.name = 'DigestsNotSentError';
  }
}

type ClaimOutcome = { claimed: true; etag: string } | { claimed: false; state: 'sent' | 'claimed' };

/**
 * NotifyOwners: one digest per owner with news, published once per scan and owner.
 * - Every digest goes to the outbox in the findings store first and leaves it once sent: a run that
 *   dies between two writes (a Lambda timeout or OOM after its claim) loses no digest.
 * - Before publishing, a run claims the digest's `sent` marker with a conditional create; only the
 *   run that wins publishes, so two senders racing on one digest (a retried Lambda, a CLI run next
 *   to the deployed one) publish it once. After publishing the marker says `sent`; a failed
 *   publish releases the claim.
 * - A digest that still fails after the publisher's retries stays in the outbox and is published
 *   by the next run, before that run's own digests: never lost.
 * - Outbox entries and markers are schema-checked: a corrupt one is quarantined and reported in
 *   the fallback owner's digest; it never blocks the other digests. A corrupt marker counts as
 *   absent (the digest may be sent again rather than never).
 * (A crash between a publish and its marker can still repeat that one digest once its claim has
 * expired; subscribers can deduplicate on the `digestId` message attribute.)
 */
export async function notifyOwners(
  input: DigestInput,
  ports: { publisher: DigestPublisher; store: ObjectStore },
): Promise<NotifyResult> {
  const { store } = ports;
  const result: NotifyResult = { sent: [], alreadySent: [], deferred: [], resent: [], quarantined: [] };
  const now = input.now.toISOString();

  const quarantine = async (
    key: string,
    stored: { body: string; etag: string },
    what: string,
    reason: string,
  ) => result.quarantined.push(await quarantineObject(store, key, stored, { what, reason }));

  async function claim(digestId: string): Promise<ClaimOutcome> {
    const key = sentKey(digestId);
    const body = JSON.stringify({ digestId, state: 'claimed', claimedAt: now });
    for (let attempt = 1; attempt <= 4; attempt++) {
      try {
        return { claimed: true, etag: (await store.put(key, body, { ifNoneMatch: '*' })).etag };
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
      }
      const existing = await store.get(key);
      if (!existing) continue; // released by a failed publish meanwhile
      const marker = STORED.sentMarker.parse(existing.body);
      if (!marker.ok) {
        await quarantine(key, existing, STORED.sentMarker.what, marker.reason);
        continue;
      }
      if (marker.value.state !== 'claimed') return { claimed: false, state: 'sent' };
      const claimedAt = Date.parse(marker.value.claimedAt ?? '');
      if (input.now.getTime() - claimedAt < CLAIM_LEASE_MS) return { claimed: false, state: 'claimed' };
      try {
        return { claimed: true, etag: (await store.put(key, body, { ifMatch: existing.etag })).etag };
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
      }
    }
    // Still contended after all that: someone else is on it.
    return { claimed: false, state: 'claimed' };
  }

  const markSent = (digestId: string) =>
    store.put(sentKey(digestId), JSON.stringify({ digestId, state: 'sent', sentAt: now }));

  async function release(digestId: string, etag: string) {
    try {
      await store.delete(sentKey(digestId), { ifMatch: etag });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
    }
  }

  /** Publishes what this run claimed; returns the ids accepted and the failures (claims released). */
  async function publishClaimed(digests: Array<{ digest: Digest; etag: string }>) {
    if (digests.length === 0) return { sent: new Set<string>(), failed: [] as NotifyResult['deferred'] };
    const outcome = await ports.publisher.publish(digests.map((entry) => entry.digest));
    const sent = new Set(outcome.sent);
    const delivered = new Map(outcome.failed.map((failure) => [failure.digestId, failure.delivered]));
    for (const { digest, etag } of digests) {
      if (sent.has(digest.digestId)) {
        await markSent(digest.digestId);
        continue;
      }
      // Half sent (chat out, the finding list not): the outbox keeps which half, before the claim
      // goes, so the next run sends the other half only and chat does not repeat the digest.
      const half = delivered.get(digest.digestId);
      if (half?.length)
        await store.put(outboxKey(digest.digestId), JSON.stringify({ ...digest, delivered: half }));
      await release(digest.digestId, etag);
    }
    return { sent, failed: outcome.failed.map(({ digestId, reason }) => ({ digestId, reason })) };
  }

  // Earlier failures first: they are older news.
  const waiting: Array<{ digest: Digest; etag: string }> = [];
  /** What an earlier attempt of this scan delivered of its own digests, rebuilt below. */
  const ownDelivered = new Map<string, DigestAudience[]>();
  for await (const object of store.list(OUTBOX_PREFIX)) {
    const stored = await store.get(object.key);
    if (!stored) continue;
    const parsed = STORED.outbox.parse(stored.body);
    if (!parsed.ok) {
      await quarantine(object.key, stored, STORED.outbox.what, parsed.reason);
      continue;
    }
    const digest = parsed.value as Digest;
    // This scan's own digest, left by an earlier attempt of this run: rebuilt and sent below.
    if (digest.digestId === `${input.scanId}.${digest.owner}`) {
      if (digest.delivered?.length) ownDelivered.set(digest.digestId, digest.delivered);
      continue;
    }
    const claimed = await claim(digest.digestId);
    if (claimed.claimed) waiting.push({ digest, etag: claimed.etag });
    else if (claimed.state === 'sent') await store.delete(object.key);
  }
  const resent = await publishClaimed(waiting);
  for (const { digest } of waiting) {
    if (!resent.sent.has(digest.digestId)) continue;
    await store.delete(outboxKey(digest.digestId));
    result.resent.push(digest.digestId);
  }
  // Still in the outbox for the run after this one, and failing again is news too.
  result.deferred.push(...resent.failed);

  const digests = buildDigests({
    ...input,
    // The commands in a digest name the store this run reads, unless the caller named it.
    store: input.store ?? storeArgument(store.location),
    findings: [...input.findings, ...storeFindings(result, input, store)],
  });
  const pending: Array<{ digest: Digest; etag: string }> = [];
  for (const built of digests) {
    const delivered = ownDelivered.get(built.digestId);
    const digest = delivered ? { ...built, delivered } : built;
    // In the outbox before it is claimed: a run killed anywhere from here to its sent marker (a
    // Lambda timeout, OOM) leaves the digest for the next run, which sends it once the claim expired.
    await store.put(outboxKey(digest.digestId), JSON.stringify(digest));
    const claimed = await claim(digest.digestId);
    if (claimed.claimed) pending.push({ digest, etag: claimed.etag });
    else {
      // Sent already: nothing to keep. Claimed by another run: that run removes it once sent.
      if (claimed.state === 'sent') await store.delete(outboxKey(digest.digestId));
      result.alreadySent.push(digest.digestId);
    }
  }
  const outcome = await publishClaimed(pending);
  for (const { digest } of pending) {
    if (!outcome.sent.has(digest.digestId)) continue;
    await store.delete(outboxKey(digest.digestId));
    result.sent.push(digest);
  }
  // What failed stays in the outbox for the next run.
  result.deferred.push(...outcome.failed);
  return result;
}

/**
 * What NotifyOwners returns to the state machine: the digest ids of each kind, at most MAX_LISTED
 * each (an outbox a broken topic filled for a week can hold thousands, and Step Functions refuses a
 * result over 256 KiB even after every digest went out), and how many of each there were.
 */
export function notifySummary(result: NotifyResult) {
  return {
    sent: listAtMost(result.sent).listed.map((digest) => digest.digestId),
    alreadySent: listAtMost(result.alreadySent).listed,
    deferred: listAtMost(result.deferred).listed.map((failure) => ({
      digestId: failure.digestId,
      reason: limitText(failure.reason, MAX_REASON_CHARS),
    })),
    resent: listAtMost(result.resent).listed,
    counts: {
      sent: result.sent.length,
      alreadySent: result.alreadySent.length,
      deferred: result.deferred.length,
      resent: result.resent.length,
    },
  };
}

/** The store.corrupt-object findings of what this run quarantined, as news for the fallback owner. */
function storeFindings(
  result: NotifyResult,
  input: { scanId: string; now: Date },
  store: ObjectStore,
): Finding[] {
  const at = input.now.toISOString();
  return result.quarantined.map((corrupt) => {
    const draft = corruptObjectFinding(corrupt, STORE_SCOPE, store.location);
    return {
      ...draft,
      id: findingId(draft),
      status: 'new',
      scanId: input.scanId,
      firstSeenAt: at,
      lastSeenAt: at,
    };
  });
}

/** A store's location as `--store` takes it: `s3://bucket` (no trailing slash) or the directory. */
export function storeArgument(location: string): string {
  return location.startsWith('s3://') ? location.replace(/\/+$/, '') : location;
}
