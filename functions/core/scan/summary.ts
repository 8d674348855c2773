import type { ScanSummary, WorkspaceRun } from '../findings/findings-store.js';
import type { Check, Finding } from '../findings/model.js';
import type { WorkspaceScanResult } from './scan-workspace.js';

export interface WorkspaceOutcome {
  workspace: string;
  result?: WorkspaceScanResult;
  /** Seen in this scan (with lifecycle fields). */
  findings: Finding[];
  /** Timings and noise removed; absent when the scan threw before it had any. */
  run?: WorkspaceRun;
  /** Set when the scan or the recording of this workspace threw. */
  error?: string;
}

/** A run of another check (backend, locks, cluster) for one scope. */
export interface ScopeCheckOutcome {
  scope: string;
  check: Check;
  findings: Finding[];
  durationMs: number;
  error?: string;
}

/** What the summary keeps of a workspace's scan besides its findings (no values: rule counts only). */
export function workspaceRun(result: WorkspaceScanResult, durationMs: number): WorkspaceRun {
  const noiseRemoved: Record<string, number> = {};
  for (const removal of result.noiseRemoved) {
    noiseRemoved[removal.rule] = (noiseRemoved[removal.rule] ?? 0) + removal.paths.length;
  }
  return {
    durationMs,
    initMs: result.durationsMs.init,
    plansMs: result.durationsMs.plans,
    noiseRemoved,
  };
}

/** The scan's `summary.json`: what ran, what failed, how long it took, what was found and filtered. */
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
  const count = (findings: readonly Finding[]) => {
    for (const finding of findings) {
      if (finding.status === 'resolved') continue;
      total++;
      bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
      byKind[finding.kind] = (byKind[finding.kind] ?? 0) + 1;
    }
  };
  for (const outcome of outcomes) {
    const { run } = outcome;
    if (run) {
      workspaces[outcome.workspace] = { total: run.durationMs, init: run.initMs, plans: run.plansMs };
      for (const [rule, removed] of Object.entries(run.noiseRemoved)) {
        noiseRemoved[rule] = (noiseRemoved[rule] ?? 0) + removed;
      }
    }
    count(outcome.findings);
    const failure = outcome.error ?? openFailure(outcome.findings);
    if (failure) failures.push({ workspace: outcome.workspace, reason: failure });
  }
  for (const outcome of checks) {
    count(outcome.findings);
    const failure = outcome.error ?? openFailure(outcome.findings);
    if (failure) failures.push({ workspace: outcome.scope, check: outcome.check, reason: failure });
  }
  const statusCount = (status: WorkspaceScanResult['status']) =>
    outcomes.filter((outcome) => !outcome.error && statusOf(outcome) === status).length;
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

/**
 * How a workspace's scan went: from its result when the runner has it, else (the deployed
 * RecordFindings stage, which only has the history lines) from the scan-health findings it recorded.
 */
function statusOf(outcome: WorkspaceOutcome): WorkspaceScanResult['status'] {
  if (outcome.result) return outcome.result.status;
  const open = outcome.findings.filter((finding) => finding.status !== 'resolved');
  if (open.some((finding) => finding.kind === 'scan-failed')) return 'failed';
  if (open.some((finding) => finding.kind === 'workspace-busy')) return 'busy';
  return 'ok';
}

/** Why the run failed, if it did: its open scan-failed finding (a resolved one is yesterday's news). */
function openFailure(findings: readonly Finding[]): string | undefined {
  return findings.find((finding) => finding.kind === 'scan-failed' && finding.status !== 'resolved')?.detail;
}
