import { findingId } from './fingerprint.js';
import type { Finding, FindingDraft } from './model.js';

/** `current/<workspace>.json`: the open findings of one workspace and how its last scan went. */
export interface CurrentDocument {
  workspace: string;
  updatedAt: string;
  lastScan: { scanId: string; status: ScanOutcome; at: string };
  findings: Finding[];
}

/** ok: the plan was trusted; failed/busy: it was not, so nothing it did not see may be resolved. */
export type ScanOutcome = 'ok' | 'failed' | 'busy';

export interface RecordedScan {
  current: CurrentDocument;
  /** Lines of `scans/.../<workspace>.jsonl`: every finding seen in this scan, and those it resolved. */
  history: Finding[];
}

/** Findings produced by the scan machinery itself rather than by looking at infrastructure. */
const SCAN_HEALTH_KINDS = new Set<Finding['kind']>(['scan-failed', 'workspace-busy']);

/**
 * Applies one workspace scan to its current document. A finding keeps its id and firstSeenAt for
 * as long as it stays open. A failed or busy scan proves nothing about the infrastructure, so it
 * never resolves an infrastructure finding: those stay open exactly as they were.
 */
export function recordWorkspaceScan(
  previous: CurrentDocument | undefined,
  drafts: readonly FindingDraft[],
  scan: { workspace: string; scanId: string; now: Date; outcome: ScanOutcome },
): RecordedScan {
  const now = scan.now.toISOString();
  const previousById = new Map((previous?.findings ?? []).map((finding) => [finding.id, finding]));
  const seen = new Map<string, Finding>();
  for (const draft of drafts) {
    const id = findingId(draft);
    if (seen.has(id)) continue;
    const before = previousById.get(id);
    seen.set(id, {
      ...draft,
      id,
      status: before ? 'ongoing' : 'new',
      scanId: scan.scanId,
      firstSeenAt: before?.firstSeenAt ?? now,
      lastSeenAt: now,
    });
  }

  const carriedOver: Finding[] = [];
  const resolved: Finding[] = [];
  for (const finding of previousById.values()) {
    if (seen.has(finding.id)) continue;
    const trustedToResolve = scan.outcome === 'ok' || SCAN_HEALTH_KINDS.has(finding.kind);
    if (trustedToResolve) resolved.push({ ...finding, status: 'resolved', scanId: scan.scanId });
    else carriedOver.push(finding);
  }

  const open = [...seen.values(), ...carriedOver];
  return {
    current: {
      workspace: scan.workspace,
      updatedAt: now,
      lastScan: { scanId: scan.scanId, status: scan.outcome, at: now },
      findings: open,
    },
    history: [...seen.values(), ...resolved],
  };
}
