import { SAFE_ID } from '../registry/model.js';
import { FINDING_ID_PATTERN } from './fingerprint.js';
import type { Check } from './model.js';

/**
 * The version of the store's objects this driftwatch writes and reads (`schemaVersion`; an object
 * without one is version 1). A driftwatch that writes what an older one cannot read (a new kind,
 * status, check, a field whose meaning changed) raises it; older ones then stop on its objects
 * (NewerStoreObjectError) instead of quarantining and rewriting them as corrupt.
 */
export const STORE_SCHEMA_VERSION = 1;

/**
 * Keys of the findings bucket (DESIGN.md "S3 layout"). Athena partitions on `dt`; the API and the
 * lifecycle read `current/`. Every variable part is validated here, before it becomes a key.
 */
export const SCAN_ID = /^[A-Za-z0-9][A-Za-z0-9\-_.]{0,79}$/;

export class InvalidKeyPartError extends Error {
  constructor(what: string, value: string) {
    super(
      `invalid ${what} '${value}': use lowercase letters, digits, '-', '_' and '.' (at most 63 characters)`,
    );
    this.name = 'InvalidKeyPartError';
  }
}

export function assertWorkspaceId(workspace: string): string {
  if (!SAFE_ID.test(workspace)) throw new InvalidKeyPartError('workspace id', workspace);
  return workspace;
}

export function assertScanId(scanId: string): string {
  if (!SCAN_ID.test(scanId)) throw new InvalidKeyPartError('scan id', scanId);
  return scanId;
}

/** `YYYY-MM-DD` of the scan's start, in UTC. */
export function scanDate(startedAt: Date): string {
  return startedAt.toISOString().slice(0, 10);
}

export function scanPrefix(startedAt: Date, scanId: string): string {
  return `scans/dt=${scanDate(startedAt)}/scan=${assertScanId(scanId)}/`;
}

export function scanHistoryKey(
  startedAt: Date,
  scanId: string,
  workspace: string,
  check: Check = 'terraform',
): string {
  // '@' is not allowed in scope ids, so the check can always be told apart from the scope.
  const suffix = check === 'terraform' ? '' : `@${check}`;
  return `${scanPrefix(startedAt, scanId)}${assertWorkspaceId(workspace)}${suffix}.jsonl`;
}

/**
 * Working space of one scan (the Maps' item lists, each workspace's run record): only the scan's
 * own stages read it, and the deployed bucket expires it after a day.
 */
export function scratchPrefix(scanId: string): string {
  return `scratch/scan=${assertScanId(scanId)}/`;
}

export function scanRunKey(scanId: string, workspace: string): string {
  return `${scratchPrefix(scanId)}runs/${assertWorkspaceId(workspace)}.json`;
}

export function scanSummaryKey(startedAt: Date, scanId: string): string {
  return `${scanPrefix(startedAt, scanId)}summary.json`;
}

export function currentKey(workspace: string): string {
  return `current/${assertWorkspaceId(workspace)}.json`;
}

/**
 * The scope whose current document `key` is, or undefined for any other key under `current/`: a copy
 * in a sub-folder (`current/old/x.json`), `x.json.bak`, a name no scope can have. Only the writer's
 * own keys are read back, so a stray copy never shows a scope's findings twice.
 */
export function scopeOfCurrentKey(key: string): string | undefined {
  const scope = /^current\/([^/]+)\.json$/.exec(key)?.[1];
  return scope !== undefined && SAFE_ID.test(scope) ? scope : undefined;
}

/** The audit record of a suppression (who, why, until when); the current document holds its effect. */
export function suppressionKey(findingId: string): string {
  if (!FINDING_ID_PATTERN.test(findingId)) throw new InvalidKeyPartError('finding id', findingId);
  return `suppressions/${findingId}.json`;
}

/**
 * The first observation of a bucket's locks (ObserveLocks), read back by ConfirmLocks after the
 * confirmation window: the two phases may run in separate Lambda invocations.
 */
export function lockObservationKey(scanId: string, scope: string): string {
  return `${LOCKS_PREFIX}scan=${assertScanId(scanId)}/${assertWorkspaceId(scope)}.json`;
}

/**
 * The HTML reports of one scan (WriteReports): one for everybody and one per owner with only that
 * owner's findings. Under `owners/` so that no owner id can name the report for everybody.
 */
export function reportKey(scanId: string, owner?: string): string {
  const scan = `${REPORTS_PREFIX}scan=${assertScanId(scanId)}/`;
  if (owner === undefined) return `${scan}everyone.html`;
  if (!SAFE_ID.test(owner)) throw new InvalidKeyPartError('owner id', owner);
  return `${scan}owners/${owner}.html`;
}

export const REPORTS_PREFIX = 'reports/';
export const LOCKS_PREFIX = 'locks/';
export const CURRENT_PREFIX = 'current/';
export const SCANS_PREFIX = 'scans/';

/**
 * Every top-level prefix a findings store (the deployed bucket included: infra's FINDINGS_PREFIXES)
 * writes under. An object outside all of them is not driftwatch's: a bucket holding one and no
 * current document is some other bucket (a state bucket passed as --store), not an empty store.
 */
export const STORE_TOP_LEVEL_PREFIXES = [
  'athena-results/',
  CURRENT_PREFIX,
  LOCKS_PREFIX,
  'notifications/',
  'quarantine/',
  REPORTS_PREFIX,
  SCANS_PREFIX,
  'scratch/',
  'suppressions/',
] as const;

/** A new scan id: sortable by time, unique enough for concurrent starts. */
export function newScanId(startedAt: Date, random: string): string {
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return assertScanId(`${stamp}-${random}`);
}
