import type { FindingsStore, ScanRef } from '../findings/findings-store.js';
import { lockObservationKey } from '../findings/layout.js';
import { type ObjectStore, putIfAbsent } from '../findings/object-store.js';
import { confirmLocks, type LockConfirmation, observeLocks } from '../locks/check-locks.js';
import type { LockObservation } from '../locks/observation.js';
import { mapConcurrently } from '../scan/map-concurrently.js';
import type { ScopeCheckOutcome } from '../scan/summary.js';
import { type BackendCheckResult, checkBackend } from './check-backend.js';
import type { BackendReader } from './ports.js';
import type { ScopeRun } from './scope-runs.js';
import { type BackendTarget, targetScopes } from './target.js';

/**
 * The CheckBackend, ObserveLocks and ConfirmLocks stages: check, then record in the findings store,
 * one bucket at a time (a Lambda invocation) or every bucket of a scan (the local runner).
 */
export interface BackendStageDeps {
  /** A reader for the bucket's account and region (the workspace's read-only role). */
  readerFor(target: BackendTarget): Promise<BackendReader>;
  findings: FindingsStore;
  /** Where lock observations wait for their confirmation (the findings bucket). */
  objects: ObjectStore;
  now: () => Date;
  /**
   * The same scan runs the backend check of every bucket it checks locks in (the nightly pipeline,
   * not `driftwatch locks`): a lock check that cannot reach the bucket at all leaves the one
   * finding of that cause to `backend.preflight` (issue: one cause, one finding).
   */
  backendCheckedAlongside?: boolean;
}

/** Buckets checked at once. */
const BUCKET_CONCURRENCY = 4;

export class LockObservationMissingError extends Error {
  constructor(key: string, options?: { cause?: unknown }) {
    super(`no lock observation at ${key}: run ObserveLocks for this scan and bucket first`, options);
    this.name = 'LockObservationMissingError';
  }
}

export async function checkAndRecordBackend(
  target: BackendTarget,
  deps: BackendStageDeps,
  scan: ScanRef,
): Promise<{ outcomes: ScopeCheckOutcome[]; result: BackendCheckResult }> {
  const started = deps.now();
  const result = await checkBackend(await deps.readerFor(target), target);
  return { outcomes: await recordRuns(deps, scan, 'backend', result.runs, started), result };
}

export async function observeAndStoreLocks(
  target: BackendTarget,
  deps: BackendStageDeps,
  scan: ScanRef,
): Promise<{ key: string; observation: LockObservation }> {
  const observation = await observeLocks(await deps.readerFor(target), target, scan.scanId, deps.now);
  const key = lockObservationKey(scan.scanId, target.bucketPlacement.workspace);
  if (await putIfAbsent(deps.objects, key, JSON.stringify(observation, null, 2))) return { key, observation };
  // A retried ObserveLocks (the first answer was lost) keeps the first look: a new one would move
  // the confirmation window past the Wait LoadRegistry set, and ConfirmLocks would come too early.
  return { key, observation: await readLockObservation(deps.objects, scan.scanId, target) };
}

export async function readLockObservation(
  objects: ObjectStore,
  scanId: string,
  target: BackendTarget,
): Promise<LockObservation> {
  const key = lockObservationKey(scanId, target.bucketPlacement.workspace);
  const stored = await objects.get(key);
  if (!stored) throw new LockObservationMissingError(key);
  return JSON.parse(stored.body) as LockObservation;
}

/** How long ConfirmLocks may wait for a window that has not quite passed, and how it waits. */
export interface LateWindowWait {
  maxMs: number;
  sleep(ms: number): Promise<void>;
}

/**
 * ConfirmLocks for one bucket. A bucket observed late in a long ObserveLocks Map can come to
 * ConfirmLocks shortly before its own window ends: with `lateWindow`, that rest is waited out
 * (up to `maxMs`) instead of failing the bucket; beyond it, ConfirmationTooEarlyError.
 */
export async function confirmAndRecordLocks(
  target: BackendTarget,
  deps: BackendStageDeps,
  scan: ScanRef,
  lateWindow?: LateWindowWait,
): Promise<{ outcomes: ScopeCheckOutcome[]; confirmation: LockConfirmation }> {
  const started = deps.now();
  const first = await readLockObservation(deps.objects, scan.scanId, target);
  const remainingMs = Date.parse(first.confirmAt) - deps.now().getTime();
  if (lateWindow && remainingMs > 0 && remainingMs <= lateWindow.maxMs) await lateWindow.sleep(remainingMs);
  const confirmation = await confirmLocks(await deps.readerFor(target), target, first, deps.now, {
    backendCheckedAlongside: deps.backendCheckedAlongside === true,
  });
  return { outcomes: await recordRuns(deps, scan, 'locks', confirmation.runs, started), confirmation };
}

/** CheckBackend for every bucket; a bucket that throws is an error outcome, the others go on. */
export function checkAndRecordBackends(
  targets: readonly BackendTarget[],
  deps: BackendStageDeps,
  scan: ScanRef,
): Promise<ScopeCheckOutcome[]> {
  return forEachBucket(targets, 'backend', deps, async (target) => {
    return (await checkAndRecordBackend(target, deps, scan)).outcomes;
  });
}

/** ObserveLocks for every bucket; returns when the last confirmation may start. */
export async function observeAndStoreAllLocks(
  targets: readonly BackendTarget[],
  deps: BackendStageDeps,
  scan: ScanRef,
): Promise<{ confirmAt: Date; locks: number; errors: ScopeCheckOutcome[] }> {
  let confirmAt = deps.now();
  let locks = 0;
  const errors = await forEachBucket(targets, 'locks', deps, async (target) => {
    const { observation } = await observeAndStoreLocks(target, deps, scan);
    const at = new Date(observation.confirmAt);
    if (at > confirmAt) confirmAt = at;
    locks += observation.locks.length;
    return [];
  });
  return { confirmAt, locks, errors };
}

export function confirmAndRecordAllLocks(
  targets: readonly BackendTarget[],
  deps: BackendStageDeps,
  scan: ScanRef,
): Promise<ScopeCheckOutcome[]> {
  return forEachBucket(targets, 'locks', deps, async (target) => {
    return (await confirmAndRecordLocks(target, deps, scan)).outcomes;
  });
}

async function forEachBucket(
  targets: readonly BackendTarget[],
  check: 'backend' | 'locks',
  deps: BackendStageDeps,
  work: (target: BackendTarget) => Promise<ScopeCheckOutcome[]>,
): Promise<ScopeCheckOutcome[]> {
  const outcomes = await mapConcurrently(targets, BUCKET_CONCURRENCY, async (target) => {
    const started = deps.now();
    try {
      return await work(target);
    } catch (error) {
      // One bucket's failure (the store, a bug) must not stop the others: each of its scopes says so.
      const durationMs = deps.now().getTime() - started.getTime();
      const reason = (error as Error).message;
      return targetScopes(target).map((placement) => ({
        scope: placement.workspace,
        check,
        findings: [],
        durationMs,
        error: reason,
      }));
    }
  });
  return outcomes.flat();
}

async function recordRuns(
  deps: BackendStageDeps,
  scan: ScanRef,
  check: 'backend' | 'locks',
  runs: readonly ScopeRun[],
  started: Date,
): Promise<ScopeCheckOutcome[]> {
  const durationMs = deps.now().getTime() - started.getTime();
  const outcomes: ScopeCheckOutcome[] = [];
  for (const run of runs) {
    const recorded = await deps.findings.recordWorkspace(
      { ...scan, now: deps.now() },
      { workspace: run.placement.workspace, check, outcome: run.outcome },
      run.drafts,
    );
    outcomes.push({ scope: run.placement.workspace, check, findings: recorded.history, durationMs });
  }
  return outcomes;
}
