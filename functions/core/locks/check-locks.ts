import type { BackendReader, ReadFailure } from '../backend/ports.js';
import type { LockSubject } from '../backend/rule.js';
import { ruleDraft } from '../backend/rule.js';
import { LOCK_RULES } from '../backend/rules/index.js';
import { createScopeRuns, isBucketWide, type ScopeRun } from '../backend/scope-runs.js';
import { type BackendTarget, stateOwnerOf } from '../backend/target.js';
import { durationText } from './duration-text.js';
import { joinLockPlaces } from './joint-locks.js';
import { type LockObservation, lockPlace } from './observation.js';
import { decideLock, needsConfirmation } from './proof.js';
import { snapshotLocks } from './snapshot.js';

/** ConfirmLocks ran before the window had passed (a state machine Wait is missing or too short). */
export class ConfirmationTooEarlyError extends Error {
  constructor(
    readonly bucket: string,
    readonly confirmAt: Date,
    readonly remainingMs: number,
  ) {
    super(
      `locks of ${bucket} cannot be confirmed before ${confirmAt.toISOString()} (${durationText(remainingMs)} from now): the confirmation window has not passed`,
    );
    this.name = 'ConfirmationTooEarlyError';
  }
}

/**
 * ObserveLocks: the first look. The observation says when the second look may come: after the
 * confirmation window, or at once when no lock it saw could be past its threshold by then.
 */
export async function observeLocks(
  reader: BackendReader,
  target: BackendTarget,
  scanId: string,
  now: () => Date,
): Promise<LockObservation> {
  const snapshot = await snapshotLocks(reader, target, now);
  // The end of the look: the window is measured from the latest moment the first look could have been.
  const observedAt = snapshot.finishedAt;
  const waits = snapshot.locks.some((lock) =>
    needsConfirmation(
      lock,
      observedAt,
      target.confirmAfterMs,
      stateOwnerOf(target, lock.stateKey).staleAfterMs,
    ),
  );
  const observation: LockObservation = {
    scanId,
    bucket: target.bucket,
    prefix: target.prefix,
    observedAt: observedAt.toISOString(),
    confirmAt: new Date(observedAt.getTime() + (waits ? target.confirmAfterMs : 0)).toISOString(),
    confirmAfterMs: target.confirmAfterMs,
    stateObjects: snapshot.stateObjects,
    locks: snapshot.locks,
    failures: snapshot.failures,
  };
  // No lock was seen, so `waits` is false: ConfirmLocks may come at once and report the cause.
  if (snapshot.preflight) observation.preflight = snapshot.preflight;
  return observation;
}

export interface LockConfirmation {
  runs: ScopeRun[];
  /**
   * Each observed lock place and what the proof made of it (for logs and the CLI); `sameLockAs`
   * names the place whose finding this place is part of (a DynamoDB item beside its `.tflock`).
   */
  verdicts: Array<{ location: string; stateKey: string; verdict: string; sameLockAs?: string }>;
  /** Set when either look's preflight failed: no lock was proven, and the runs hold its one finding. */
  preflight?: ReadFailure;
}

/**
 * ConfirmLocks: the second look, and the proof for every lock of the first one. Only a proven
 * stale (or orphaned, or unreadable) lock is an alert; a lock older than its threshold whose state
 * was written since is `lock.live-writer` (info); anything else gives nothing. When either look's
 * preflight failed, its cause is the one finding (`lock.preflight`) and no lock is judged; when the
 * bucket cannot be reached at all and the backend check runs alongside, `backend.preflight` is.
 */
export async function confirmLocks(
  reader: BackendReader,
  target: BackendTarget,
  first: LockObservation,
  now: () => Date,
  options: { backendCheckedAlongside?: boolean } = {},
): Promise<LockConfirmation> {
  const confirmAt = new Date(first.confirmAt);
  const remainingMs = confirmAt.getTime() - now().getTime();
  if (remainingMs > 0) throw new ConfirmationTooEarlyError(target.bucket, confirmAt, remainingMs);

  const runs = createScopeRuns(target, 'locks');
  // A first look that could not reach the bucket has nothing to prove: its cause is the one finding.
  const failPreflight = (failure: ReadFailure) =>
    runs.failPreflight(failure, {
      reportedByBackendCheck: options.backendCheckedAlongside === true && isBucketWide(failure),
    });
  if (first.preflight) {
    failPreflight(first.preflight);
    return { runs: runs.finish(), verdicts: [], preflight: first.preflight };
  }
  const second = await snapshotLocks(reader, target, now, first.locks);
  if (second.preflight) {
    failPreflight(second.preflight);
    return { runs: runs.finish(), verdicts: [], preflight: second.preflight };
  }
  for (const failure of [...first.failures, ...second.failures]) {
    const placement =
      failure.stateKey === undefined ? undefined : stateOwnerOf(target, failure.stateKey).placement;
    runs.fail(placement, failure);
  }
  const secondLocks = new Map(second.locks.map((lock) => [lockPlace(lock), lock]));
  const verdicts: LockConfirmation['verdicts'] = [];
  const judged = first.locks.map((lock) => {
    const owner = stateOwnerOf(target, lock.stateKey);
    const lastWrite = second.stateWrites[lock.stateKey];
    const verdict = decideLock({
      first: lock,
      firstObservedAt: new Date(first.observedAt),
      second: secondLocks.get(lockPlace(lock)),
      // The start of the second look: the shortest window, and the youngest age, it could claim.
      secondObservedAt: second.startedAt,
      confirmAfterMs: first.confirmAfterMs,
      staleAfterMs: owner.staleAfterMs,
      state:
        lastWrite === undefined
          ? { exists: false }
          : lastWrite === null
            ? { exists: true }
            : { exists: true, lastModified: new Date(lastWrite) },
    });
    verdicts.push({ location: lock.location, stateKey: lock.stateKey, verdict: verdict.kind });
    return { lock, verdict };
  });
  // One lock held in two places (the `.tflock` and the DynamoDB item) is one finding.
  for (const { lock, verdict, alsoHeldIn } of joinLockPlaces(judged)) {
    for (const place of alsoHeldIn) verdicts[judged.indexOf(place)]!.sameLockAs = lock.location;
    const owner = stateOwnerOf(target, lock.stateKey);
    const subject: LockSubject = {
      bucket: target.bucket,
      lock,
      verdict,
      firstObservedAt: first.observedAt,
      secondObservedAt: second.startedAt.toISOString(),
    };
    if (alsoHeldIn.length > 0) subject.alsoHeldIn = alsoHeldIn.map((place) => place.lock);
    if (owner.cliWorkspace) subject.cliWorkspace = owner.cliWorkspace;
    for (const rule of LOCK_RULES) {
      const drafts = rule.evaluate(subject).map((violation) => ruleDraft(rule, violation, owner.placement));
      runs.add(owner.placement, drafts);
    }
  }
  return { runs: runs.finish(), verdicts };
}
