import { mapConcurrently } from '../scan/map-concurrently.js';
import { createFindingsStore, type FindingsStore, type ScanRef } from './findings-store.js';
import { assertWorkspaceId, scanHistoryKey, scratchPrefix } from './layout.js';
import { recordWorkspaceScan, type ScanOutcome } from './lifecycle.js';
import { CHECKS, type Check, type FindingDraft } from './model.js';
import type { ObjectStore } from './object-store.js';
import { type CorruptObject, corruptObjectFinding, quarantineObject } from './quarantine.js';
import { STORED } from './stored-schemas.js';

/**
 * Deployed, the scanners run code driftwatch does not control (Terraform providers and modules, in
 * the same Lambda as the scanner's credentials). So they may not write `current/` or history: each
 * run leaves a pending record of its drafts in the scan's scratch space, and RecordFindings — whose
 * role alone writes `current/` and `scans/` — applies them with the lifecycle. A compromised run can
 * then at worst forge tonight's pending records; it cannot rewrite what earlier nights recorded.
 */
export interface PendingRecord {
  scanId: string;
  workspace: string;
  check: Check;
  outcome: ScanOutcome;
  /** When the run finished: the lifecycle's `now` for this scope. */
  now: string;
  drafts: FindingDraft[];
}

const RECORDS = 'records/';
const APPLY_CONCURRENCY = 16;

export function pendingRecordsPrefix(scanId: string): string {
  return `${scratchPrefix(scanId)}${RECORDS}`;
}

/** One key per scope and check: a later run of the same check in the same scan (a Catch) replaces it. */
export function pendingRecordKey(scanId: string, workspace: string, check: Check): string {
  return `${pendingRecordsPrefix(scanId)}${assertWorkspaceId(workspace)}@${check}.json`;
}

/**
 * A findings store for a deployed scanner: reads as usual (read-only: nothing is quarantined, that is
 * RecordFindings' job), and `recordWorkspace` writes a pending record instead of the current document
 * and history. What it returns is the lifecycle as of now (for the stage's result and logs); the
 * recorded truth is what RecordFindings computes when it applies the record.
 */
export function createDeferredFindingsStore(objects: ObjectStore): FindingsStore {
  const reader = createFindingsStore(objects, { readOnly: true });
  return {
    ...reader,
    async recordWorkspace(scan, target, drafts) {
      const { workspace, check, outcome } = target;
      const previous = await reader.readCurrent(workspace);
      const recorded = recordWorkspaceScan(previous?.document, drafts, {
        workspace,
        scanId: scan.scanId,
        now: scan.now,
        outcome,
        check,
      });
      const record: PendingRecord = {
        scanId: scan.scanId,
        workspace,
        check,
        outcome,
        now: scan.now.toISOString(),
        drafts: [...drafts],
      };
      await objects.put(pendingRecordKey(scan.scanId, workspace, check), JSON.stringify(record));
      return { ...recorded, historyKey: scanHistoryKey(scan.startedAt, scan.scanId, workspace, check) };
    },
  };
}

/**
 * RecordFindings: applies every pending record of the scan to its scope's current document and
 * history (compare-and-swap, as a scanner recording directly would), once: a scope whose current
 * document already records this scan for the check is skipped (a retried RecordFindings). A record that is not valid, or
 * whose content names another scope or check than its key, is quarantined and its scope recorded as
 * failed with a `store.corrupt-object` finding: nothing of that scope is resolved on its word.
 */
export async function applyPendingRecords(
  store: FindingsStore,
  objects: ObjectStore,
  scan: ScanRef,
): Promise<{ applied: number; alreadyApplied: number; corrupt: CorruptObject[] }> {
  const prefix = pendingRecordsPrefix(scan.scanId);
  const keys: string[] = [];
  for await (const object of objects.list(prefix)) if (object.key.endsWith('.json')) keys.push(object.key);
  const corrupt: CorruptObject[] = [];
  let applied = 0;
  let alreadyApplied = 0;
  await mapConcurrently(keys, APPLY_CONCURRENCY, async (key) => {
    const named = parseRecordKey(key.slice(prefix.length));
    const stored = await objects.get(key);
    if (!stored || !named) return;
    const parsed = STORED.pendingRecord.parse(stored.body);
    const problem = !parsed.ok
      ? parsed.reason
      : parsed.value.workspace !== named.workspace ||
          parsed.value.check !== named.check ||
          parsed.value.scanId !== scan.scanId
        ? `it names ${parsed.value.workspace}@${parsed.value.check} of scan ${parsed.value.scanId}, not its key's scope and scan`
        : undefined;
    if (parsed.ok && problem === undefined) {
      const record = parsed.value;
      // A retried RecordFindings must not apply a record twice: the second pass would turn this
      // scan's new findings into ongoing ones, and the digest would stay silent about them.
      const current = await store.readCurrent(record.workspace);
      if (current?.document.checks?.[record.check]?.scanId === scan.scanId) {
        alreadyApplied++;
        return;
      }
      await store.recordWorkspace(
        { ...scan, now: validDate(record.now) ?? scan.startedAt },
        { workspace: record.workspace, check: record.check, outcome: record.outcome },
        record.drafts,
      );
      applied++;
      return;
    }
    const quarantined = await quarantineObject(objects, key, stored, {
      what: STORED.pendingRecord.what,
      reason: problem ?? 'invalid',
    });
    corrupt.push(quarantined);
    await store.recordWorkspace(
      { ...scan, now: scan.startedAt },
      { workspace: named.workspace, check: named.check, outcome: 'failed' },
      [corruptObjectFinding(quarantined, named.workspace, objects.location)],
    );
  });
  return { applied, alreadyApplied, corrupt };
}

/** `<scope>@<check>.json`, both parts valid; anything else is not a record of ours and is left alone. */
function parseRecordKey(name: string): { workspace: string; check: Check } | undefined {
  const match = /^(.+)@([a-z]+)\.json$/.exec(name);
  if (!match || !(CHECKS as readonly string[]).includes(match[2]!)) return undefined;
  try {
    return { workspace: assertWorkspaceId(match[1]!), check: match[2] as Check };
  } catch {
    return undefined;
  }
}

function validDate(text: string): Date | undefined {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
