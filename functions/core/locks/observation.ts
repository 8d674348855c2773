import type { ReadFailure } from '../backend/ports.js';
import type { LockInfo } from './lock-info.js';

/** One lock as seen at one moment: a `.tflock` object or a DynamoDB lock item. */
export interface ObservedLock {
  source: 's3' | 'dynamodb';
  /** The `.tflock` key, or the DynamoDB item's LockID (`<bucket>/<state key>`). */
  location: string;
  table?: string;
  stateKey: string;
  /** S3 only: equal ETags of one key mean an unchanged body, so the second look needs no GET. */
  etag?: string;
  /**
   * S3 only: the lock object's last-modified time (ISO), by S3's clock. Terraform writes the
   * `.tflock` once, when it takes the lock, so the lock is no older than this whatever Created says.
   */
  writtenAt?: string;
  lock?: LockInfo;
  /** Why the body is not Terraform lock info (never the body itself). */
  unreadable?: string;
}

/** A failed read during a lock check; `stateKey` places it in the scope of that state's owner. */
export interface LockReadFailure extends ReadFailure {
  stateKey?: string;
}

/**
 * The ObserveLocks phase's record, `locks/scan=<scanId>/<bucket scope>.json`: the first of the two
 * observations, and when the second may be made. It holds lock metadata only (holder, operation,
 * times), never state content.
 */
export interface LockObservation {
  scanId: string;
  bucket: string;
  prefix: string;
  observedAt: string;
  /** Not before this time may ConfirmLocks decide (observedAt, when no observed lock can become stale in the window). */
  confirmAt: string;
  confirmAfterMs: number;
  stateObjects: number;
  locks: ObservedLock[];
  failures: LockReadFailure[];
  /** The first look's preflight failed: there is nothing to confirm, and ConfirmLocks reads nothing. */
  preflight?: LockReadFailure;
}

/** The same lock place in two observations: one `.tflock` key, or one item of one table. */
export function lockPlace(lock: Pick<ObservedLock, 'source' | 'table' | 'location'>): string {
  return `${lock.source}:${lock.table ?? ''}:${lock.location}`;
}
