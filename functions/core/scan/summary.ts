import type { ScanSummary } from '../findings/findings-store.js';
import type { Check, Finding } from '../findings/model.js';
import type { WorkspaceScanResult } from './scan-workspace.js';

export interface WorkspaceOutcome {
  workspace: string;
  result?: WorkspaceScanResult;
  /** Seen in this scan (with lifecycle fields). */
  findings: Finding[];
  durationMs: number;
  /** Set when the scan or the recording of this workspace threw. */
  error?: string;
}

/** The scan's `summary.json`: what ran, what failed, how long it took, what was found and filtered. */
/** A run of another check (backend, locks, cluster) for one scope. */
export interface ScopeCheckOutcome {
  scope: string;
  check: Check;
  findings: Finding[];
  durationMs: number;
  error?: string;
}

export function summarizeScan(
  scan: { scanId: string; startedAt: Date; finishedAt: Date; totalWorkspaces: number },
  outcomes: readonly WorkspaceOutcome[],
  checks: readonly ScopeCheckOutcome[] = [],
): ScanSummary {
  const bySeverity: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  const noiseRemoved: Record<string, number> = {};
  const failures: ScanSummary['failures'] = [];
  const workspaces: ScanSummary['durationsMs']['workspaces'] = {};
  let total = 0;
  for (const outcome of outcomes) {
    workspaces[outcome.workspace] = {
      total: outcome.durationMs,
      init: outcome.result?.durationsMs.init,
      plans: outcome.result?.durationsMs.plans ?? [],
    };
    for (const finding of outcome.findings) {
      if (finding.status === 'resolved') continue;
      total++;
      bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
      byKind[finding.kind] = (byKind[finding.kind] ?? 0) + 1;
    }
    for (const removal of outcome.result?.noiseRemoved ?? []) {
      noiseRemoved[removal.rule] = (noiseRemoved[removal.rule] ?? 0) + removal.paths.length;
    }
    const failure =
      outcome.error ?? outcome.findings.find((finding) => finding.kind === 'scan-failed')?.detail;
    if (failure) failures.push({ workspace: outcome.workspace, reason: failure });
  }
  for (const outcome of checks) {
    for (const finding of outcome.findings) {
      if (finding.status === 'resolved') continue;
      total++;
      bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
      byKind[finding.kind] = (byKind[finding.kind] ?? 0) + 1;
    }
    const failure =
      outcome.error ?? outcome.findings.find((finding) => finding.kind === 'scan-failed')?.detail;
    if (failure) failures.push({ workspace: outcome.scope, check: outcome.check, reason: failure });
  }
  const statusCount = (status: WorkspaceScanResult['status']) =>
    outcomes.filter((outcome) => !outcome.error && outcome.result?.status === status).length;
  return {
    scanId: scan.scanId,
    startedAt: scan.startedAt.toISOString(),
    finishedAt: scan.finishedAt.toISOString(),
    workspaces: {
      total: scan.totalWorkspaces,
      scanned: statusCount('ok'),
      failed: statusCount('failed') + outcomes.filter((outcome) => outcome.error).length,
      busy: statusCount('busy'),
      skipped: scan.totalWorkspaces - outcomes.length,
    },
    durationsMs: { total: scan.finishedAt.getTime() - scan.startedAt.getTime(), workspaces },
    findings: { total, bySeverity, byKind },
    noiseRemoved,
    failures,
  };
}
