import { mapConcurrently } from '../scan/map-concurrently.js';
import { limitText } from '../text/sanitize.js';
import {
  CURRENT_PREFIX,
  currentKey,
  SCANS_PREFIX,
  scanDate,
  scanHistoryKey,
  scanPrefix,
  scanRunKey,
  scanSummaryKey,
  scopeOfCurrentKey,
  scratchPrefix,
  suppressionKey,
} from './layout.js';
import {
  type CurrentDocument,
  type RecordedScan,
  recordWorkspaceScan,
  type ScanOutcome,
  setSuppression,
  supersededHistory,
  supersedingRun,
} from './lifecycle.js';
import { CHECKS, type Check, type Finding, type FindingDraft, type Suppression } from './model.js';
import { type ObjectStore, PreconditionFailedError, putIfAbsent } from './object-store.js';
import {
  type CorruptObject,
  corruptObjectFinding,
  overwriteCondition,
  quarantineObject,
} from './quarantine.js';
import { NewerStoreObjectError, STORED, type StoredSchema } from './stored-schemas.js';

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

/** A compare-and-swap that lost this many times in a row gives up with an error naming the key. */
export class UpdateConflictError extends Error {
  constructor(key: string, attempts: number, options?: { cause?: unknown }) {
    super(
      `${key} was changed by other writers ${attempts} times in a row while this run updated it: run again`,
      options,
    );
    this.name = 'UpdateConflictError';
  }
}

/**
 * Reads and writes findings in the bucket layout. The current document of a workspace is
 * updated with a compare-and-swap on its ETag and retried on conflict, so two writers of the
 * same workspace (a rescan racing a slow Map iteration) never lose each other's findings.
 *
 * Every object read back is checked against its schema (stored-schemas.ts). One that does not
 * match is moved to `quarantine/` and the run goes on without it: a corrupt current document is
 * recorded as absent plus a `store.corrupt-object` finding in its scope; a corrupt history file is
 * replaced by that finding (so the summary and the digest still report the scope); anything else is
 * skipped and listed by `takeCorruptions()` for the caller to report. A `readOnly` store (listings,
 * the query API) leaves corrupt objects where they are and only lists them.
 */
export function createFindingsStore(store: ObjectStore, options: { readOnly?: boolean } = {}) {
  const corruptions: CorruptObject[] = [];
  /**
   * Current documents quarantined by a plain read (a cluster scan reads its previous document
   * first): the scope's next record reports them, since by then the document is gone.
   */
  const corruptCurrent = new Map<string, CorruptObject>();

  /** An object checked against its schema; a corrupt one is quarantined and returned as such. */
  async function readChecked<T>(
    key: string,
    schema: StoredSchema<T>,
  ): Promise<{ value: T; etag: string } | { corrupt: CorruptObject } | undefined> {
    const stored = await store.get(key);
    if (!stored) return undefined;
    const parsed = parseNaming(key, schema, stored.body);
    if (parsed.ok) return { value: parsed.value, etag: stored.etag };
    // A read-only caller (a listing, the query API) reports and leaves it: moving it away would
    // leave nothing for the next scan to record its store.corrupt-object finding from.
    const corrupt: CorruptObject = options.readOnly
      ? { key, what: schema.what, reason: parsed.reason, etag: stored.etag, removed: false }
      : await quarantineObject(store, key, stored, { what: schema.what, reason: parsed.reason });
    corruptions.push(corrupt);
    return { corrupt };
  }

  /** The current document and its ETag; a corrupt one is quarantined and reads as absent. */
  async function readCurrent(
    workspace: string,
  ): Promise<{ document: CurrentDocument; etag: string } | undefined> {
    const read = await readChecked(currentKey(workspace), STORED.current);
    if (read && 'corrupt' in read) corruptCurrent.set(workspace, read.corrupt);
    return read && 'value' in read ? { document: read.value, etag: read.etag } : undefined;
  }

  /**
   * Compare-and-swap of one scope's current document: read it with its ETag, compute the next one,
   * write it only if nobody else did in between, otherwise start over with what they wrote.
   * `onCorrupt` hears of a current document that had to be quarantined on the way.
   */
  async function updateCurrent(
    scope: string,
    next: (previous: CurrentDocument | undefined) => Promise<CurrentDocument | undefined>,
    onCorrupt: (corrupt: CorruptObject) => void = () => {},
  ): Promise<void> {
    const key = currentKey(scope);
    for (let attempt = 1; ; attempt++) {
      const read = await readChecked(key, STORED.current);
      const corrupt = read && 'corrupt' in read ? read.corrupt : undefined;
      if (corrupt) onCorrupt(corrupt);
      const previous = read && 'value' in read ? read : undefined;
      const document = await next(previous?.value);
      if (!document) return;
      try {
        await store.put(
          key,
          JSON.stringify(document, null, 2),
          // A corrupt version left in place (no delete permission, the copy failed) is overwritten:
          // its bytes are unusable, and safe in quarantine/ (or the bucket's versions).
          previous
            ? { ifMatch: previous.etag }
            : corrupt
              ? overwriteCondition(corrupt)
              : { ifNoneMatch: '*' },
        );
        return;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
        if (attempt >= MAX_CONFLICT_RETRIES) throw new UpdateConflictError(key, attempt, { cause: error });
      }
    }
  }

  /**
   * Every object under the prefixes whose key passes `wanted`, read in parallel (a few dozen at a
   * time): listing is paged, but a thousand scopes read one after the other would take minutes.
   */
  async function readAll<T>(
    prefixes: readonly string[],
    wanted: (key: string) => boolean,
    schema: StoredSchema<T>,
  ): Promise<Array<{ key: string; value: T } | { key: string; corrupt: CorruptObject }>> {
    const keys: string[] = [];
    for (const prefix of prefixes) {
      for await (const object of store.list(prefix)) if (wanted(object.key)) keys.push(object.key);
    }
    const read = await mapConcurrently(keys, READ_CONCURRENCY, async (key) => {
      const checked = await readChecked(key, schema);
      if (!checked) return undefined;
      return 'value' in checked ? { key, value: checked.value } : { key, corrupt: checked.corrupt };
    });
    return read.filter((object) => object !== undefined);
  }

  /** The valid objects only: corrupt ones are already quarantined and in `corruptions`. */
  async function readAllValid<T>(
    prefixes: readonly string[],
    wanted: (key: string) => boolean,
    schema: StoredSchema<T>,
  ): Promise<Array<{ key: string; value: T }>> {
    return (await readAll(prefixes, wanted, schema)).filter((object) => 'value' in object);
  }

  /**
   * Every scope's current document, keyed by its scope. One that names another scope than its key (a
   * copy under another name) is not that scope's: it is listed as corrupt, left in place, and not read.
   */
  async function readCurrentDocuments(): Promise<Array<{ scope: string; value: CurrentDocument }>> {
    const documents = await readAllValid(
      [CURRENT_PREFIX],
      (key) => scopeOfCurrentKey(key) !== undefined,
      STORED.current,
    );
    return documents.flatMap(({ key, value }) => {
      const scope = scopeOfCurrentKey(key)!;
      if (value.workspace === scope) return [{ scope, value }];
      corruptions.push({
        key,
        what: STORED.current.what,
        reason: `holds the document of ${limitText(JSON.stringify(value.workspace), 80)}, not of ${scope}`,
        etag: '',
        removed: false,
      });
      return [];
    });
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

    /** Objects quarantined by this store since the last call (and forgets them). */
    takeCorruptions(): CorruptObject[] {
      return corruptions.splice(0);
    },

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
      // The scope's own document was unusable: the scope is recorded afresh and says why.
      const corrupt: FindingDraft[] = [];
      const readEarlier = corruptCurrent.get(workspace);
      corruptCurrent.delete(workspace);
      if (readEarlier) corrupt.push(corruptObjectFinding(readEarlier, workspace, store.location));
      await updateCurrent(
        workspace,
        async (previous) => {
          const context = { workspace, scanId: scan.scanId, now: scan.now, outcome, check };
          if (previous?.checks?.[check]?.scanId === scan.scanId) {
            // This scan already recorded this check of the scope: this is its retry (a RecordScanFailure
            // whose answer was lost, a Map item run twice). Applying it again would turn this scan's new
            // findings into `ongoing` ones and rewrite its history so, and the digest would stay silent;
            // the first record stands, as for pending records.
            const written = await readChecked(historyKey, STORED.history);
            const history = written && 'value' in written ? written.value : undefined;
            recorded = {
              current: previous,
              history: history ?? recordWorkspaceScan(undefined, [...drafts, ...corrupt], context).history,
            };
            return undefined;
          }
          const later = supersedingRun(previous, context);
          if (previous && later) {
            // A later scan of this check was recorded first (an overlapping re-scan): this older run
            // changes nothing, and a history this scan already wrote (a retry) is kept as it is.
            const history = supersededHistory(previous, [...drafts, ...corrupt], context, later);
            recorded = { current: previous, history };
            await putIfAbsent(store, historyKey, toJsonLines(history));
            return undefined;
          }
          recorded = recordWorkspaceScan(previous, [...drafts, ...corrupt], context);
          // History before the current document: a crash in between leaves history a rerun rewrites.
          await store.put(historyKey, toJsonLines(recorded.history));
          return recorded.current;
        },
        (object) => corrupt.push(corruptObjectFinding(object, workspace, store.location)),
      );
      return { ...recorded!, historyKey };
    },

    /**
     * Resolves every open finding of a scope that no scan records any more (a workspace, cluster or
     * state bucket removed from or renamed in the registry), as a run of each of its checks that
     * found nothing would: `resolved` in its current document, with history lines under `scan`.
     * `open` are its open findings as the caller read them. Returns what it resolved, and what is
     * still open after (a finding stored without the check that made it, which no run resolves).
     */
    async retireScope(
      scope: string,
      open: readonly Finding[],
      scan: ScanRef & { now: Date },
    ): Promise<{ resolved: Finding[]; stillOpen: Finding[] }> {
      const resolved: Finding[] = [];
      let stillOpen = [...open];
      for (const check of new Set(open.flatMap((finding) => finding.check ?? []))) {
        const recorded = await this.recordWorkspace(scan, { workspace: scope, check, outcome: 'ok' }, []);
        resolved.push(...recorded.history.filter((finding) => finding.status === 'resolved'));
        stillOpen = recorded.current.findings.filter((finding) => finding.status !== 'resolved');
      }
      return { resolved, stillOpen };
    },

    /**
     * Sets or lifts the suppression of an open finding wherever it lives; records the suppression
     * itself under `suppressions/<id>.json`. Returns the finding, or undefined for an unknown id.
     */
    async suppress(id: string, suppression: Suppression | undefined): Promise<Finding | undefined> {
      const holding = (await readCurrentDocuments()).find((object) =>
        object.value.findings.some((finding) => finding.id === id),
      );
      if (!holding) return undefined;
      const { scope } = holding;
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
      const objects = await readAllValid([prefix], (key) => key.endsWith('.json'), STORED.run);
      return new Map(
        objects.map((object) => [object.key.slice(prefix.length, -'.json'.length), object.value]),
      );
    },

    async writeSummary(scan: ScanRef, summary: ScanSummary): Promise<string> {
      const key = scanSummaryKey(scan.startedAt, scan.scanId);
      await store.put(key, JSON.stringify(summary, null, 2));
      return key;
    },

    /** Summaries of the scans started in the last `days` days (newest first). */
    async recentSummaries(now: Date, days = 14): Promise<ScanSummary[]> {
      const objects = await readAllValid(
        recentDays(now, days),
        (key) => key.endsWith('/summary.json'),
        STORED.summary,
      );
      return objects.map((object) => object.value).sort((a, b) => b.startedAt.localeCompare(a.startedAt));
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
      const isHistory = (key: string) => {
        const name = key.slice(prefix.length, -'.jsonl'.length);
        return (
          key.endsWith('.jsonl') && (CHECKS as readonly string[]).includes(name.split('@')[1] ?? 'terraform')
        );
      };
      for (const object of await readAll([prefix], isHistory, STORED.history)) {
        const name = object.key.slice(prefix.length, -'.jsonl'.length);
        const [scope = name, checkName = 'terraform'] = name.split('@');
        const check = checkName as Check;
        if ('value' in object) {
          files.push({ scope, check, findings: object.value });
          continue;
        }
        // What the scope recorded is lost; the finding that says so takes its place, so the summary
        // counts the scope as failed and its digest reports it (both read this file after us).
        const replacement = recordWorkspaceScan(
          undefined,
          [corruptObjectFinding(object.corrupt, scope, store.location)],
          { workspace: scope, scanId: scan.scanId, now: scan.startedAt, outcome: 'failed', check },
        ).history;
        // A read-only reader (NotifyOwners, deployed: it may not write history) uses the replacement
        // without storing it; RecordFindings, which ran before, stored it if it saw the same file.
        if (!options.readOnly) {
          try {
            await store.put(object.key, toJsonLines(replacement), overwriteCondition(object.corrupt));
          } catch (error) {
            // The scope's run rewrote its history meanwhile: the next reader gets that instead.
            if (!(error instanceof PreconditionFailedError)) throw error;
          }
        }
        files.push({ scope, check, findings: replacement });
      }
      return files;
    },

    /**
     * History lines of the scans started in the last `days` days (to list resolved findings); with
     * `scope`, only that scope's files (all its checks), so one finding's history reads one file per
     * scan instead of every workspace's.
     */
    async recentHistory(now: Date, days: number, scope?: string): Promise<Finding[]> {
      const ofScope = (key: string) => {
        const name = key.slice(key.lastIndexOf('/') + 1, -'.jsonl'.length);
        return name === scope || name.startsWith(`${scope}@`);
      };
      const objects = await readAllValid(
        recentDays(now, days),
        (key) => key.endsWith('.jsonl') && (scope === undefined || ofScope(key)),
        STORED.history,
      );
      return objects.flatMap((object) => object.value);
    },

    /** Every open finding of every workspace. */
    async openFindings(): Promise<Finding[]> {
      return (await readCurrentDocuments()).flatMap((object) => object.value.findings);
    },
  };
}

export type FindingsStore = ReturnType<typeof createFindingsStore>;

/** schema.parse, an object of a newer driftwatch named by its key. */
function parseNaming<T>(key: string, schema: StoredSchema<T>, body: string) {
  try {
    return schema.parse(body);
  } catch (error) {
    throw error instanceof NewerStoreObjectError ? error.at(key) : error;
  }
}

function toJsonLines(findings: readonly Finding[]): string {
  return findings.map((finding) => JSON.stringify(finding)).join('\n') + (findings.length ? '\n' : '');
}
