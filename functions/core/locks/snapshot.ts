import { discoverBackend, preflightTarget } from '../backend/discovery.js';
import {
  BackendReadError,
  type BackendReader,
  type LockTableItem,
  ObjectTooLargeError,
} from '../backend/ports.js';
import { type BackendTarget, inPrefix } from '../backend/target.js';
import { mapConcurrently } from '../scan/map-concurrently.js';
import { byteSize } from '../text/byte-size.js';
import { parseLockInfo } from './lock-info.js';
import { classifyTableItem } from './lock-table.js';
import type { LockReadFailure, ObservedLock } from './observation.js';

/** Lock objects read at once. */
const LOCK_READ_CONCURRENCY = 8;

/** Every lock of one bucket at one moment, and the last write of each locked state then. */
export interface LockSnapshot {
  /** When the look began and ended: the proof measures its window conservatively between them. */
  startedAt: Date;
  finishedAt: Date;
  locks: ObservedLock[];
  /** Last write (ISO) of each locked state object; absent key: no such state; null: no time known. */
  stateWrites: Record<string, string | null>;
  stateObjects: number;
  failures: LockReadFailure[];
  /** The preflight failed: nothing else was read (no listing, no lock, no table). */
  preflight?: LockReadFailure;
}

/**
 * One look at a bucket's locks: a preflight, a listing (pages, not a request per key), one GET per
 * lock whose body is new (a lock seen before with the same ETag is not read again), one scan per
 * lock table. When the preflight fails the look stops there: an unreachable bucket is one failure,
 * not a failure per lock or per table.
 */
export async function snapshotLocks(
  reader: BackendReader,
  target: BackendTarget,
  now: () => Date,
  seenBefore: readonly ObservedLock[] = [],
): Promise<LockSnapshot> {
  const startedAt = now();
  const snapshot: LockSnapshot = {
    startedAt,
    finishedAt: startedAt,
    locks: [],
    stateWrites: {},
    stateObjects: 0,
    failures: [],
  };
  const preflight = await preflightTarget(reader, target);
  if (preflight) {
    snapshot.preflight = preflight;
    snapshot.finishedAt = now();
    return snapshot;
  }
  let discovery: Awaited<ReturnType<typeof discoverBackend>>;
  try {
    discovery = await discoverBackend(reader, target);
  } catch (error) {
    if (!(error instanceof BackendReadError)) throw error;
    snapshot.failures.push(error.failure);
    snapshot.finishedAt = now();
    return snapshot;
  }
  snapshot.stateObjects = discovery.stateKeys.length;

  const known = new Map(
    seenBefore.filter((lock) => lock.source === 's3' && lock.etag).map((lock) => [lock.location, lock]),
  );
  const s3Locks = await mapConcurrently(discovery.locks, LOCK_READ_CONCURRENCY, async (object) => {
    const base: ObservedLock = { source: 's3', location: object.key, stateKey: object.stateKey };
    if (object.etag !== undefined) base.etag = object.etag;
    if (object.lastModified !== undefined) base.writtenAt = object.lastModified.toISOString();
    const previous = known.get(object.key);
    if (previous && previous.etag === object.etag) return withBody(base, previous);
    // The listing's size first (no GET); the reader checks again, as the object may have grown since.
    if (object.size > MAX_LOCK_BYTES) return { ...base, unreadable: oversizedLock(object.size) };
    try {
      const body = await reader.readObject(target.bucket, object.key, undefined, MAX_LOCK_BYTES);
      return body === undefined ? undefined : withParsedBody(base, body);
    } catch (error) {
      if (error instanceof ObjectTooLargeError) return { ...base, unreadable: oversizedLock(error.bytes) };
      if (!(error instanceof BackendReadError)) throw error;
      // An archived lock is a lock nobody can read, Terraform included: release it, do not restore it.
      if (error.failure.code === 'InvalidObjectState')
        return { ...base, unreadable: archivedLock(error.failure.storageClass) };
      snapshot.failures.push({ ...error.failure, stateKey: object.stateKey });
      return undefined;
    }
  });
  snapshot.locks.push(...s3Locks.filter((lock): lock is ObservedLock => lock !== undefined));

  for (const { table } of target.lockTables) {
    try {
      for (const item of await reader.lockTableItems(table, target.bucket)) {
        const classified = classifyTableItem(target.bucket, item);
        if (classified?.kind !== 'lock' || !inPrefix(target, classified.stateKey)) continue;
        const base: ObservedLock = {
          source: 'dynamodb',
          location: item.lockId,
          table,
          stateKey: classified.stateKey,
        };
        snapshot.locks.push(
          item.info !== undefined
            ? withParsedBody(base, item.info)
            : { ...base, unreadable: missingInfo(item) },
        );
      }
    } catch (error) {
      if (!(error instanceof BackendReadError)) throw error;
      snapshot.failures.push(error.failure);
    }
  }

  for (const lock of snapshot.locks) {
    const state = discovery.objects.get(lock.stateKey);
    if (state) snapshot.stateWrites[lock.stateKey] = state.lastModified?.toISOString() ?? null;
  }
  snapshot.finishedAt = now();
  return snapshot;
}

/** Terraform's lock info is a few hundred bytes; a lock body is never read beyond this. */
const MAX_LOCK_BYTES = 64 * 1024;

/**
 * A `.tflock` in an archive storage class (a lifecycle transition reached it, so it has sat there for
 * days): S3 serves it to no one until it is restored, yet Terraform's conditional write of its own
 * lock fails on it, so it blocks the workspace. Its ID cannot be read, so the lock rules' steps
 * remove the object rather than restore it.
 */
function archivedLock(storageClass: string | undefined): string {
  return `the lock object is archived in ${storageClass ?? 'an archive storage class'} (a lifecycle transition moved it after it had been there for days), so S3 serves it to no one, Terraform included, until it is restored; restoring a lock only to release it is not worth the wait`;
}

function oversizedLock(bytes: number): string {
  return `the lock body is ${byteSize(bytes)}, more than any lock Terraform writes (driftwatch reads at most ${byteSize(MAX_LOCK_BYTES)})`;
}

function missingInfo(item: LockTableItem): string {
  return item.infoType !== undefined
    ? `the lock item's Info is of DynamoDB type ${item.infoType}, not the lock JSON (a string) Terraform writes`
    : 'the lock item has no Info, the lock JSON Terraform writes';
}

function withParsedBody(base: ObservedLock, body: string): ObservedLock {
  const parsed = parseLockInfo(body);
  return parsed.ok ? { ...base, lock: parsed.lock } : { ...base, unreadable: parsed.reason };
}

function withBody(base: ObservedLock, previous: ObservedLock): ObservedLock {
  if (previous.lock) return { ...base, lock: previous.lock };
  return previous.unreadable === undefined ? base : { ...base, unreadable: previous.unreadable };
}
