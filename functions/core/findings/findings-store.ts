import { mapConcurrently } from '../scan/map-concurrently.js';
import {
  CURRENT_PREFIX,
  currentKey,
  SCANS_PREFIX,
  scanDate,
  scanHistoryKey,
  scanPrefix,
  scanRunKey,
  scanSummaryKey,
  scratchPrefix,
  suppressionKey,
} from './layout.js';
import {
  type CurrentDocument,
  type RecordedScan,
  recordWorkspaceScan,
  type ScanOutcome,
  setSuppression,
} from './lifecycle.js';
import { CHECKS, type Check, type Finding, type FindingDraft, type Suppression } from './model.js';
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

/**
 * How one workspace's Terraform scan went beyond its findings: timings and the noise removed (per
 * rule, counts only). Deployed, the scan and the summary run in different Lambdas; this carries it.
 */
export interface WorkspaceRun {
  durationMs: number;
  initMs?: number;
  plansMs: number[];
  noiseRemoved: Record<string, number>;
}

const MAX_CONFLICT_RETRIES = 8;
const READ_CONCURRENCY = 16;
const DAY_MS = 24 * 60 * 60_000;

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

  /**
   * Compare-and-swap of one scope's current document: read it with its ETag, compute the next one,
   * write it only if nobody else did in between, otherwise start over with what they wrote.
   */
  async function updateCurrent(
    scope: string,
    next: (previous: CurrentDocument | undefined) => Promise<CurrentDocument | undefined>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const previous = await readCurrent(scope);
      const document = await next(previous?.document);
      if (!document) return;
      try {
        await store.put(
          currentKey(scope),
          JSON.stringify(document, null, 2),
          previous ? { ifMatch: previous.etag } : { ifNoneMatch: '*' },
        );
        return;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
      }
    }
  }

  /**
   * Every object under the prefixes whose key passes `wanted`, read in parallel (a few dozen at a
   * time): listing is paged, but a thousand scopes read one after the other would take minutes.
   */
  async function readAll(
    prefixes: readonly string[],
    wanted: (key: string) => boolean,
  ): Promise<Array<{ key: string; body: string }>> {
    const keys: string[] = [];
    for (const prefix of prefixes) {
      for await (const object of store.list(prefix)) if (wanted(object.key)) keys.push(object.key);
    }
    const read = await mapConcurrently(keys, READ_CONCURRENCY, async (key) => {
      const stored = await store.get(key);
      return stored ? { key, body: stored.body } : undefined;
    });
    return read.filter((object) => object !== undefined);
  }

  /** `scans/dt=<day>/` of the last `days` days, newest first. */
  const recentDays = (now: Date, days: number) =>
    Array.from(
      { length: days },
      (_, back) => `${SCANS_PREFIX}dt=${scanDate(new Date(now.getTime() - back * DAY_MS))}/`,
    );

  return {
    location: store.location,
    readCurrent,

    /**
     * Records one run of one check for one scope. History is per scan, scope and check
     * (`<scope>.jsonl` for Terraform, `<scope>@<check>.jsonl` for the others), so checks of the
     * same scope in one scan never overwrite each other's lines.
     */
    async recordWorkspace(
      scan: ScanRef & { now: Date },
      target: { workspace: string; check: Check; outcome: ScanOutcome },
      drafts: readonly FindingDraft[],
    ): Promise<RecordedScan & { historyKey: string }> {
      const { workspace, check, outcome } = target;
      const historyKey = scanHistoryKey(scan.startedAt, scan.scanId, workspace, check);
      let recorded: RecordedScan | undefined;
      await updateCurrent(workspace, async (previous) => {
        recorded = recordWorkspaceScan(previous, drafts, {
          workspace,
          scanId: scan.scanId,
          now: scan.now,
          outcome,
          check,
        });
        // History before the current document: a crash in between leaves history a rerun rewrites.
        await store.put(historyKey, toJsonLines(recorded.history));
        return recorded.current;
      });
      return { ...recorded!, historyKey };
    },

    /**
     * Sets or lifts the suppression of an open finding wherever it lives; records the suppression
     * itself under `suppressions/<id>.json`. Returns the finding, or undefined for an unknown id.
     */
    async suppress(id: string, suppression: Suppression | undefined): Promise<Finding | undefined> {
      const holding = (await readAll([CURRENT_PREFIX], (key) => key.endsWith('.json'))).find((object) =>
        (JSON.parse(object.body) as CurrentDocument).findings.some((finding) => finding.id === id),
      );
      if (!holding) return undefined;
      const scope = holding.key.slice(CURRENT_PREFIX.length).replace(/\.json$/, '');
      let updated: Finding | undefined;
      await updateCurrent(scope, async (previous) => {
        const next = previous && setSuppression(previous, id, suppression);
        updated = next?.findings.find((finding) => finding.id === id);
        return next;
      });
      if (updated) {
        await store.put(
          suppressionKey(id),
          JSON.stringify({ id, scope, suppression: suppression ?? null }, null, 2),
        );
      }
      return updated;
    },

    /** Keeps a workspace's run record in the scan's scratch space for the summary stage. */
    async recordRun(scan: ScanRef, workspace: string, run: WorkspaceRun): Promise<void> {
      await store.put(scanRunKey(scan.scanId, workspace), JSON.stringify(run));
    },

    /** The run records of one scan, by workspace. */
    async scanRuns(scan: ScanRef): Promise<Map<string, WorkspaceRun>> {
      const prefix = `${scratchPrefix(scan.scanId)}runs/`;
      const objects = await readAll([prefix], (key) => key.endsWith('.json'));
      return new Map(
        objects.map((object) => [
          object.key.slice(prefix.length, -'.json'.length),
          JSON.parse(object.body) as WorkspaceRun,
        ]),
      );
    },

    async writeSummary(scan: ScanRef, summary: ScanSummary): Promise<string> {
      const key = scanSummaryKey(scan.startedAt, scan.scanId);
      await store.put(key, JSON.stringify(summary, null, 2));
      return key;
    },

    /** Summaries of the scans started in the last `days` days (newest first). */
    async recentSummaries(now: Date, days = 14): Promise<ScanSummary[]> {
      const objects = await readAll(recentDays(now, days), (key) => key.endsWith('/summary.json'));
      return objects
        .map((object) => JSON.parse(object.body) as ScanSummary)
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    },

    /** Every history line of one scan (all scopes and checks): what NotifyOwners reports. */
    async scanHistory(scan: ScanRef): Promise<Finding[]> {
      return (await this.scanHistoryFiles(scan)).flatMap((file) => file.findings);
    },

    /** The scan's history files, one per scope and check (an empty file: the run found nothing). */
    async scanHistoryFiles(
      scan: ScanRef,
    ): Promise<Array<{ scope: string; check: Check; findings: Finding[] }>> {
      const prefix = scanPrefix(scan.startedAt, scan.scanId);
      const files: Array<{ scope: string; check: Check; findings: Finding[] }> = [];
      for (const object of await readAll([prefix], (key) => key.endsWith('.jsonl'))) {
        const name = object.key.slice(prefix.length, -'.jsonl'.length);
        const [scope = name, check = 'terraform'] = name.split('@');
        if (!(CHECKS as readonly string[]).includes(check)) continue;
        files.push({ scope, check: check as Check, findings: parseJsonLines(object.body) });
      }
      return files;
    },

    /** History lines of the scans started in the last `days` days (to list resolved findings). */
    async recentHistory(now: Date, days: number): Promise<Finding[]> {
      const objects = await readAll(recentDays(now, days), (key) => key.endsWith('.jsonl'));
      return objects.flatMap((object) => parseJsonLines(object.body));
    },

    /** Every open finding of every workspace. */
    async openFindings(): Promise<Finding[]> {
      const objects = await readAll([CURRENT_PREFIX], (key) => key.endsWith('.json'));
      return objects.flatMap((object) => (JSON.parse(object.body) as CurrentDocument).findings);
    },
  };
}

export type FindingsStore = ReturnType<typeof createFindingsStore>;

function parseJsonLines(body: string): Finding[] {
  return body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Finding);
}

function toJsonLines(findings: readonly Finding[]): string {
  return findings.map((finding) => JSON.stringify(finding)).join('\n') + (findings.length ? '\n' : '');
}
