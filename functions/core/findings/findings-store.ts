import { CURRENT_PREFIX, currentKey, scanHistoryKey, scanSummaryKey } from './layout.js';
import {
  type CurrentDocument,
  type RecordedScan,
  recordWorkspaceScan,
  type ScanOutcome,
} from './lifecycle.js';
import type { Check, Finding, FindingDraft } from './model.js';
import { type ObjectStore, PreconditionFailedError } from './object-store.js';

export interface ScanRef {
  scanId: string;
  startedAt: Date;
}

export interface ScanSummary {
  scanId: string;
  startedAt: string;
  finishedAt: string;
  workspaces: { total: number; scanned: number; failed: number; busy: number; skipped: number };
  durationsMs: {
    total: number;
    workspaces: Record<string, { total: number; init?: number; plans: number[] }>;
  };
  findings: { total: number; bySeverity: Record<string, number>; byKind: Record<string, number> };
  noiseRemoved: Record<string, number>;
  /** Scopes whose check failed; `check` is absent for Terraform scans. */
  failures: Array<{ workspace: string; check?: Check; reason: string }>;
}

const MAX_CONFLICT_RETRIES = 8;

/**
 * Reads and writes findings in the bucket layout. The current document of a workspace is
 * updated with a compare-and-swap on its ETag and retried on conflict, so two writers of the
 * same workspace (a rescan racing a slow Map iteration) never lose each other's findings.
 */
export function createFindingsStore(store: ObjectStore) {
  async function readCurrent(
    workspace: string,
  ): Promise<{ document: CurrentDocument; etag: string } | undefined> {
    const stored = await store.get(currentKey(workspace));
    return stored ? { document: JSON.parse(stored.body) as CurrentDocument, etag: stored.etag } : undefined;
  }

  return {
    location: store.location,
    readCurrent,

    /**
     * Records one run of one check for one scope. History is per scan, scope and check
     * (`<scope>.jsonl` for Terraform, `<scope>.<check>.jsonl` for the others), so checks of the
     * same scope in one scan never overwrite each other's lines.
     */
    async recordWorkspace(
      scan: ScanRef & { now: Date },
      target: { workspace: string; check: Check; outcome: ScanOutcome },
      drafts: readonly FindingDraft[],
    ): Promise<RecordedScan & { historyKey: string }> {
      const { workspace, check, outcome } = target;
      const historyKey = scanHistoryKey(scan.startedAt, scan.scanId, workspace, check);
      for (let attempt = 1; ; attempt++) {
        const previous = await readCurrent(workspace);
        const recorded = recordWorkspaceScan(previous?.document, drafts, {
          workspace,
          scanId: scan.scanId,
          now: scan.now,
          outcome,
          check,
        });
        await store.put(historyKey, toJsonLines(recorded.history));
        try {
          await store.put(
            currentKey(workspace),
            JSON.stringify(recorded.current, null, 2),
            previous ? { ifMatch: previous.etag } : { ifNoneMatch: '*' },
          );
          return { ...recorded, historyKey };
        } catch (error) {
          if (!(error instanceof PreconditionFailedError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
        }
      }
    },

    async writeSummary(scan: ScanRef, summary: ScanSummary): Promise<string> {
      const key = scanSummaryKey(scan.startedAt, scan.scanId);
      await store.put(key, JSON.stringify(summary, null, 2));
      return key;
    },

    /** Every open finding of every workspace. */
    async openFindings(): Promise<Finding[]> {
      const findings: Finding[] = [];
      for await (const object of store.list(CURRENT_PREFIX)) {
        if (!object.key.endsWith('.json')) continue;
        const stored = await store.get(object.key);
        if (stored) findings.push(...(JSON.parse(stored.body) as CurrentDocument).findings);
      }
      return findings;
    },
  };
}

export type FindingsStore = ReturnType<typeof createFindingsStore>;

function toJsonLines(findings: readonly Finding[]): string {
  return findings.map((finding) => JSON.stringify(finding)).join('\n') + (findings.length ? '\n' : '');
}
