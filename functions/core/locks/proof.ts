import type { StaleAfter } from '../backend/target.js';
import { createdProblem, lockCreatedAt, operationKind } from './lock-info.js';
import type { ObservedLock } from './observation.js';

/**
 * DESIGN.md principle 6. A lock is stale only when all of these hold:
 * 1. it was seen twice, at least the confirmation window apart;
 * 2. with the same lock ID both times (a released and retaken lock has a new ID);
 * 3. its age at the second look is past the threshold for its operation;
 * 4. its state object was not written since the lock was taken (a holder that writes state is alive).
 * Anything less proves nothing and alerts nobody.
 */
export type LockVerdict =
  /** Released before the second look. */
  | { kind: 'gone' }
  /** Released and retaken (or rewritten) between the looks. */
  | { kind: 'replaced'; byLockId?: string }
  /** Not enough to decide: the window has not passed, or the state's last write is unknown. */
  | { kind: 'unconfirmed'; reason: string }
  | { kind: 'young'; ageMs: number; thresholdMs: number }
  /** The same unreadable body both times (not lock info, or no usable Created). */
  | { kind: 'unreadable'; reason: string }
  /** Stale, and its state object does not exist. */
  | { kind: 'orphaned'; ageMs: number; thresholdMs: number }
  /** Old, but its state was written after it was taken: someone is still working. */
  | { kind: 'live-writer'; ageMs: number; thresholdMs: number; stateLastWrite: Date }
  | { kind: 'stale'; ageMs: number; thresholdMs: number; stateLastWrite: Date };

export type StateAtConfirmation = { exists: false } | { exists: true; lastModified?: Date };

export interface LockProofInput {
  first: ObservedLock;
  firstObservedAt: Date;
  /** The same lock place at the second look; undefined when it is gone. */
  second: ObservedLock | undefined;
  secondObservedAt: Date;
  confirmAfterMs: number;
  staleAfterMs: StaleAfter;
  state: StateAtConfirmation;
}

export function decideLock(input: LockProofInput): LockVerdict {
  const { first, second } = input;
  if (second === undefined) return { kind: 'gone' };
  if (!sameLock(first, second)) {
    const replaced: LockVerdict = { kind: 'replaced' };
    if (second.lock) replaced.byLockId = second.lock.id;
    return replaced;
  }
  const created = takenAt(first, input.secondObservedAt);
  const thresholdMs = thresholdFor(input.staleAfterMs, first.lock?.operation);
  const ageMs = created ? input.secondObservedAt.getTime() - created.getTime() : undefined;
  // Young is young however close the looks were (ObserveLocks skips the wait when every lock is).
  if (ageMs !== undefined && ageMs < thresholdMs) return { kind: 'young', ageMs, thresholdMs };
  const windowMs = input.secondObservedAt.getTime() - input.firstObservedAt.getTime();
  if (windowMs < input.confirmAfterMs)
    return {
      kind: 'unconfirmed',
      reason: `observations ${windowMs} ms apart, window ${input.confirmAfterMs} ms`,
    };
  if (first.lock === undefined) return { kind: 'unreadable', reason: first.unreadable ?? 'unreadable lock' };
  if (created === undefined || ageMs === undefined) {
    const reason =
      createdProblem(first.lock, input.secondObservedAt) ?? 'the lock has no usable Created time';
    return { kind: 'unreadable', reason };
  }
  if (!input.state.exists) return { kind: 'orphaned', ageMs, thresholdMs };
  const stateLastWrite = input.state.lastModified;
  if (stateLastWrite === undefined)
    return { kind: 'unconfirmed', reason: 'the state object has no last-modified time' };
  if (writtenSince(stateLastWrite, created))
    return { kind: 'live-writer', ageMs, thresholdMs, stateLastWrite };
  return { kind: 'stale', ageMs, thresholdMs, stateLastWrite };
}

export function thresholdFor(staleAfterMs: StaleAfter, operation: string | undefined): number {
  return staleAfterMs[operationKind(operation)];
}

/**
 * Whether a lock could become stale by the end of the window: if none can, the second look cannot
 * alert, so it need not wait (a held lock then never makes a local scan sit out the window).
 */
export function needsConfirmation(
  lock: ObservedLock,
  observedAt: Date,
  confirmAfterMs: number,
  staleAfterMs: StaleAfter,
): boolean {
  const created = takenAt(lock, observedAt);
  if (created === undefined) return true;
  const ageAtWindowEnd = observedAt.getTime() + confirmAfterMs - created.getTime();
  return ageAtWindowEnd >= thresholdFor(staleAfterMs, lock.lock?.operation);
}

/**
 * When the lock was taken: its Created, unless S3 wrote the `.tflock` later than that. Created is the
 * holder's clock (a runner hours behind, a tool that writes a fixed time); a lock S3 stored minutes
 * ago is minutes old, and calling it hours old made a running plan (which writes no state) stale.
 */
function takenAt(lock: ObservedLock, now: Date): Date | undefined {
  const created = lock.lock ? lockCreatedAt(lock.lock, now) : undefined;
  if (created === undefined || lock.writtenAt === undefined) return created;
  const written = Date.parse(lock.writtenAt);
  return written > created.getTime() ? new Date(written) : created;
}

function sameLock(first: ObservedLock, second: ObservedLock): boolean {
  // Created too: an ID shown in part (capped, redacted) is the same for two locks that share the
  // shown part, and a lock taken again has another Created.
  if (first.lock && second.lock)
    return first.lock.id === second.lock.id && first.lock.created === second.lock.created;
  if (first.lock || second.lock) return false;
  // Two unreadable bodies: the same object only if its ETag did not change (S3).
  return first.etag !== undefined ? first.etag === second.etag : first.unreadable === second.unreadable;
}

/**
 * S3 keeps last-modified times to the second, lock Created times to the nanosecond. A write in a
 * later second than the lock's is the holder's. A write in the lock's own second is taken for the
 * write that came before it: `terraform apply && terraform plan` writes the state and locks it again
 * within the second, and that write counted as the holder's kept a killed plan's lock a "live writer"
 * for ever. A holder that wrote within the same second and then nothing until the lock is past its
 * threshold (an hour and more) is not writing either.
 */
function writtenSince(stateLastWrite: Date, created: Date): boolean {
  return stateLastWrite.getTime() >= (Math.floor(created.getTime() / 1000) + 1) * 1000;
}
