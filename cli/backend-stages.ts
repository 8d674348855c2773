import type { Logger } from '../functions/adapters/logger.js';
import {
  type BackendStageDeps,
  checkAndRecordBackends,
  confirmAndRecordAllLocks,
  observeAndStoreAllLocks,
} from '../functions/core/backend/stages.js';
import type { BackendTarget } from '../functions/core/backend/target.js';
import type { ScanRef } from '../functions/core/findings/findings-store.js';
import { durationText } from '../functions/core/locks/duration-text.js';
import type { ScopeCheckOutcome } from '../functions/core/scan/summary.js';
import { waitWithProgress } from './wait.js';

/** The CheckBackend, ObserveLocks and ConfirmLocks stages in-process, with their log lines. */

export async function checkBackendsStage(
  targets: readonly BackendTarget[],
  deps: BackendStageDeps,
  scan: ScanRef,
  logger: Logger,
): Promise<ScopeCheckOutcome[]> {
  if (targets.length === 0) return [];
  const outcomes = await checkAndRecordBackends(targets, deps, scan);
  logOutcomes(logger, 'backend checked', outcomes);
  return outcomes;
}

/** What ConfirmLocks needs from ObserveLocks in-process: when it may start, and failed buckets. */
export interface LockWindow {
  confirmAt: Date;
  locks: number;
  errors: ScopeCheckOutcome[];
}

export async function observeLocksStage(
  targets: readonly BackendTarget[],
  deps: BackendStageDeps,
  scan: ScanRef,
  logger: Logger,
): Promise<LockWindow | undefined> {
  if (targets.length === 0) return undefined;
  const window = await observeAndStoreAllLocks(targets, deps, scan);
  logger.info('locks observed', {
    buckets: targets.length,
    locks: window.locks,
    confirmAt: window.confirmAt,
  });
  for (const error of window.errors)
    logger.error('lock observation failed', { scope: error.scope, error: error.error });
  return window;
}

/** Waits out what is left of the confirmation window (ScanTerraform ran inside it), then confirms. */
export async function confirmLocksStage(
  targets: readonly BackendTarget[],
  window: LockWindow,
  deps: BackendStageDeps,
  scan: ScanRef,
  logger: Logger,
): Promise<ScopeCheckOutcome[]> {
  const failed = new Set(window.errors.map((error) => error.scope));
  await waitWithProgress(window.confirmAt.getTime() - deps.now().getTime(), (remainingMs) =>
    logger.info('waiting for the lock confirmation window', { remaining: durationText(remainingMs) }),
  );
  // A bucket whose observation failed has nothing to confirm: its error outcome stands.
  const observed = targets.filter((target) => !failed.has(target.bucketPlacement.workspace));
  const outcomes = await confirmAndRecordAllLocks(observed, deps, scan);
  logOutcomes(logger, 'locks confirmed', outcomes);
  return [...window.errors, ...outcomes];
}

function logOutcomes(logger: Logger, message: string, outcomes: readonly ScopeCheckOutcome[]): void {
  for (const outcome of outcomes) {
    if (outcome.error) logger.error(`${message}: failed`, { scope: outcome.scope, error: outcome.error });
    else
      logger.info(message, {
        scope: outcome.scope,
        findings: outcome.findings.filter((finding) => finding.status !== 'resolved').length,
      });
  }
}
