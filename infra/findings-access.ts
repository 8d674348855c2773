import type { HandlerName } from './constructs/driftwatch-function.js';
import { FINDINGS_PREFIXES, type FindingsGrant } from './constructs/findings-storage.js';

/** Prefixes of the findings bucket a function may touch (functions/core/findings/layout.ts, notify, quarantine). */
export const FINDINGS_ACCESS_PREFIXES = {
  scans: FINDINGS_PREFIXES.scans,
  current: FINDINGS_PREFIXES.current,
  scratch: FINDINGS_PREFIXES.scratch,
  locks: FINDINGS_PREFIXES.locks,
  notifications: FINDINGS_PREFIXES.notifications,
  reports: FINDINGS_PREFIXES.reports,
  /** Where RecordFindings moves a corrupt current document, history file or pending record. */
  quarantine: FINDINGS_PREFIXES.quarantine,
  /** Where the notification functions move a corrupt outbox entry or sent marker (and only there). */
  notificationQuarantine: `${FINDINGS_PREFIXES.quarantine}${FINDINGS_PREFIXES.notifications}`,
} as const;

export type FindingsPrefix = keyof typeof FINDINGS_ACCESS_PREFIXES;

export interface FindingsAccess {
  read: readonly FindingsPrefix[];
  write: readonly FindingsPrefix[];
  /** Deletes are granted only where a prefix's life cycle needs one. */
  delete: readonly FindingsPrefix[];
  /**
   * The function records findings through pending records (DRIFTWATCH_RECORDING=deferred):
   * it runs code that can reach its credentials, or records on behalf of one that does.
   */
  deferredRecording?: true;
}

/**
 * What each function does with the findings bucket, read from its code path (handlers/ → core/):
 *
 * - Scanning stages read `current/` (the previous document for their result, a cluster's previous
 *   state) and write only the scan's `scratch/` (pending records, run records); ObserveLocks only
 *   stores its observation under `locks/`, which ConfirmLocks reads. None may write `current/`,
 *   `scans/` or `notifications/`, and none deletes: ScanTerraform and ScanCluster run Terraform
 *   providers, modules and cluster clients that can reach their credentials.
 * - LoadRegistry reads `current/` (which workspaces timed out last night) and writes the Maps' item
 *   lists to `scratch/`.
 * - RecordFindings alone writes `current/` and `scans/` (history, summaries); it quarantines corrupt
 *   objects of those prefixes and pending records to `quarantine/`. It never deletes: a corrupt
 *   object it cannot remove is overwritten in place (quarantine.ts) and its version stays.
 * - NotifyOwners and CheckHealth read history and summaries (`scans/`) and own `notifications/`:
 *   claims and sent markers are released and outbox entries removed once a digest went out — the one
 *   prefix whose life cycle needs deletes. Their corrupt objects go to `quarantine/notifications/`.
 * - WriteReports reads `current/` and history and writes only `reports/` (no deletes: old reports
 *   expire by the bucket's life cycle). NotifyOwners reads `reports/` to link each digest to its
 *   owner's report (a presigned GET works only as far as its signer may read).
 * - QueryFindings reads `current/` only.
 */
export const FINDINGS_ACCESS: Record<HandlerName, FindingsAccess> = {
  'load-registry': { read: ['current'], write: ['scratch'], delete: [] },
  'check-backend': { read: ['current'], write: ['scratch'], delete: [], deferredRecording: true },
  // Stores its observation for ConfirmLocks and records nothing itself.
  'observe-locks': { read: [], write: ['locks'], delete: [], deferredRecording: true },
  'confirm-locks': {
    read: ['current', 'locks'],
    write: ['scratch'],
    delete: [],
    deferredRecording: true,
  },
  'scan-terraform': { read: ['current'], write: ['scratch'], delete: [], deferredRecording: true },
  'scan-cluster': { read: ['current'], write: ['scratch'], delete: [], deferredRecording: true },
  'record-scan-failure': { read: ['current'], write: ['scratch'], delete: [], deferredRecording: true },
  'record-findings': {
    read: ['scratch', 'current', 'scans'],
    write: ['current', 'scans', 'quarantine'],
    delete: [],
  },
  'write-reports': { read: ['current', 'scans'], write: ['reports'], delete: [] },
  'notify-owners': {
    read: ['scans', 'notifications', 'reports'],
    write: ['notifications', 'notificationQuarantine'],
    delete: ['notifications'],
  },
  'check-health': {
    read: ['scans', 'notifications'],
    write: ['notifications', 'notificationQuarantine'],
    delete: ['notifications'],
  },
  'query-findings': { read: ['current'], write: [], delete: [] },
};

/** The one function that writes history (`scans/`): the bucket policy denies every other writer. */
export const HISTORY_WRITER: HandlerName = 'record-findings';

/** The bucket prefixes of an access entry, for FindingsStorage.grantFindings. */
export function findingsGrant(access: FindingsAccess): FindingsGrant {
  const prefixes = (names: readonly FindingsPrefix[]) => names.map((name) => FINDINGS_ACCESS_PREFIXES[name]);
  return { read: prefixes(access.read), write: prefixes(access.write), delete: prefixes(access.delete) };
}

/** The environment that goes with an access entry: deferred recording where it is asked for. */
export function recordingEnvironment(access: FindingsAccess): Record<string, string> {
  return access.deferredRecording ? { DRIFTWATCH_RECORDING: 'deferred' } : {};
}
