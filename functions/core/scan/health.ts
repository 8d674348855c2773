import type { ScanSummary } from '../findings/findings-store.js';
import type { FindingDraft } from '../findings/model.js';
import { RESCAN_PREFIX } from './runner-plan.js';

export interface ScanHealth {
  /** The most recent scan that finished, if any. */
  lastCompleted?: ScanSummary;
  /** No scan finished within `alertAfterMs`: the nightly run itself is broken. */
  missing: boolean;
  /** When the last scan finished (or undefined), and how long ago, for people. */
  sinceMs?: number;
}

/** Judges the nightly scans from their summaries (DESIGN.md principle 8: a scan that did not run is an alert). */
export function scanHealth(summaries: readonly ScanSummary[], now: Date, alertAfterMs: number): ScanHealth {
  // A re-scan on demand (`driftwatch invoke --workspace/--account`) covers part of the estate: not a night.
  const lastCompleted = summaries
    .filter((summary) => !summary.scanId.startsWith(RESCAN_PREFIX))
    .sort((a, b) => b.finishedAt.localeCompare(a.finishedAt))[0];
  if (!lastCompleted) return { missing: true };
  const sinceMs = now.getTime() - Date.parse(lastCompleted.finishedAt);
  return { lastCompleted, missing: sinceMs > alertAfterMs, sinceMs };
}

/**
 * The key a scan-missing alert is sent under (its digest id: each is sent once). One per alertAfter
 * period the outage has lasted, so a scanner down for a week is said again every period, not once
 * on its first hour and never after: `missing-after-<last scan>`, then `…-2`, `…-3`. With no scan
 * ever completed there is no start to count from: once.
 */
export function scanMissingAlertId(health: ScanHealth, alertAfterMs: number): string {
  const base = `missing-after-${health.lastCompleted?.scanId ?? 'none'}`;
  const periods = health.sinceMs === undefined ? 1 : Math.floor(health.sinceMs / alertAfterMs);
  return periods > 1 ? `${base}-${periods}` : base;
}

/** The scope the scan-missing alert is recorded under (it belongs to no workspace). */
export const HEALTH_SCOPE = 'driftwatch';

export function scanMissingFinding(
  health: ScanHealth,
  fallbackOwner: string,
  alertAfterMs: number,
): FindingDraft {
  const last = health.lastCompleted;
  const hours = Math.round(alertAfterMs / 3_600_000);
  return {
    kind: 'scan-failed',
    ruleId: 'scan.missing',
    severity: 'high',
    workspace: HEALTH_SCOPE,
    owner: fallbackOwner,
    title: `No driftwatch scan completed within ${hours}h`,
    detail: last
      ? `The last completed scan is ${last.scanId}, finished at ${last.finishedAt}${health.sinceMs === undefined ? '' : ` (${Math.floor(health.sinceMs / 3_600_000)}h ago)`}. Drift, locks and backends are not being checked.`
      : 'No scan has ever completed in this findings store. Drift, locks and backends are not being checked.',
    evidence: { lastScanId: last?.scanId, lastFinishedAt: last?.finishedAt, alertAfterMs },
    remediation: {
      summary: 'Find out why the nightly scan did not run or did not finish, then start one by hand.',
      steps: [
        "Check the state machine executions (failed, timed out or never started) and the scheduler's dead-letter queue.",
        "Look at the scan Lambdas' logs for the last run.",
        'Start a scan by hand once fixed (start the state machine, or `driftwatch scan` locally).',
      ],
    },
  };
}
