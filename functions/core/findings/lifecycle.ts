import { canonicalJson } from '../redaction/secrets.js';
import { openDays } from './describe.js';
import { findingId, sha256Hex } from './fingerprint.js';
import { STORE_SCHEMA_VERSION } from './layout.js';
import type { Check, DriftDetail, Finding, FindingDraft, FindingStatus, Suppression } from './model.js';

/**
 * `current/<scope>.json`: the open findings of one scope (a registry workspace, or a state bucket
 * for bucket-wide checks), the recently resolved ones (to recognise a regression), and how the last
 * run of each check went.
 */
export interface CurrentDocument {
  /** STORE_SCHEMA_VERSION of the driftwatch that wrote it (absent: 1). */
  schemaVersion?: number;
  workspace: string;
  updatedAt: string;
  /** The latest run of any check. */
  lastScan: ScanRecord;
  checks: Partial<Record<Check, ScanRecord>>;
  findings: Finding[];
  resolved: ResolvedRecord[];
}

export interface ScanRecord {
  scanId: string;
  status: ScanOutcome;
  at: string;
}

/** What is remembered of a resolved finding, for as long as it may come back as `regressed`. */
export interface ResolvedRecord {
  id: string;
  check: Check;
  resolvedAt: string;
  firstSeenAt: string;
  suppression?: Suppression;
}

/**
 * ok: the check's result is trusted; failed, busy (state moved under the plan) and partial (it
 * looked at part of the scope only, like `locks --prefix`): it is not, so it resolves nothing it
 * did not see.
 */
export type ScanOutcome = 'ok' | 'failed' | 'busy' | 'partial';

export interface RecordedScan {
  current: CurrentDocument;
  /** Lines of `scans/.../<scope>.jsonl`: every finding seen in this run, and those it resolved. */
  history: Finding[];
}

export interface ScanContext {
  workspace: string;
  scanId: string;
  now: Date;
  outcome: ScanOutcome;
  check: Check;
}

/** A resolved finding that comes back within this window is `regressed`, later it is `new`. */
export const REGRESSION_WINDOW_MS = 90 * 24 * 60 * 60_000;

/** Findings produced by the scan machinery itself rather than by looking at infrastructure. */
const SCAN_HEALTH_KINDS = new Set<Finding['kind']>(['scan-failed', 'workspace-busy']);

/** Statuses a digest reports in full (DESIGN.md principle 8). */
export const NOTIFIED_STATUSES: ReadonlySet<FindingStatus> = new Set(['new', 'changed', 'regressed']);

/**
 * Hash of what a finding says, never of when: severity, title and changed values. Titles must not
 * carry volatile data (ages, timestamps) or every run would look `changed`.
 */
export function valueHashOf(draft: Pick<FindingDraft, 'severity' | 'title' | 'drift'>): string {
  // canonicalJson({ severity, title, drift }), written directly: members in sorted order, and the
  // drift of the one shape every finding has without copying it into sorted objects first.
  const drift = draft.drift ?? null;
  const driftText = (drift !== null && canonicalDriftText(drift)) || canonicalJson(drift);
  return sha256Hex(
    `{"drift":${driftText},"severity":${canonicalJson(draft.severity)},"title":${canonicalJson(draft.title)}}`,
  ).slice(0, 16);
}

/**
 * canonicalJson of `{action, changes: [{path, before, after, sensitive}]}` (the shape findings
 * build), or undefined for any other shape (canonicalJson then writes it the general way).
 */
function canonicalDriftText(drift: DriftDetail): string | undefined {
  if (!hasExactly(drift, DRIFT_KEYS) || !Array.isArray(drift.changes)) return undefined;
  let text = `{"action":${canonicalJson(drift.action)},"changes":[`;
  for (let index = 0; index < drift.changes.length; index++) {
    const change = drift.changes[index];
    if (change === undefined || !hasExactly(change, CHANGE_KEYS)) return undefined;
    text += `${index === 0 ? '' : ','}{"after":${canonicalJson(change.after)},"before":${canonicalJson(change.before)},"path":${canonicalJson(change.path)},"sensitive":${canonicalJson(change.sensitive)}}`;
  }
  return `${text}]}`;
}
const DRIFT_KEYS = ['action', 'changes'];
const CHANGE_KEYS = ['path', 'before', 'after', 'sensitive'];

/** A plain object with these own keys and no other (in any order). */
function hasExactly(value: object, keys: readonly string[]): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !keys.includes(key)) return false;
    count++;
  }
  return count === keys.length;
}

/**
 * Applies one run of one check to a scope's current document:
 * - seen before and still open: `ongoing`, or `changed` when its value hash moved;
 * - resolved within the regression window and seen again: `regressed`;
 * - otherwise `new`; under an active suppression: `suppressed` (never notified);
 * - an expired suppression reopens its finding as `new` (the expiry is in the evidence);
 * - open findings of this check not seen by a trusted run are resolved; a failed, busy or partial
 *   run proves nothing about what it did not see, so it resolves only scan-health findings.
 * Findings of other checks in the same scope are left exactly as they were.
 */
export function recordWorkspaceScan(
  previous: CurrentDocument | undefined,
  drafts: readonly FindingDraft[],
  scan: ScanContext,
): RecordedScan {
  const now = scan.now.toISOString();
  const nowMs = scan.now.getTime();
  const previousFindings = previous?.findings ?? [];
  const open = new Map(
    previousFindings.filter((finding) => finding.check === scan.check).map((f) => [f.id, f]),
  );
  const recentlyResolved = new Map(
    (previous?.resolved ?? [])
      .filter((record) => nowMs - Date.parse(record.resolvedAt) <= REGRESSION_WINDOW_MS)
      .map((record) => [record.id, record]),
  );

  // A later run of this check, recorded first, that this run is applied after (supersedingRun: it was
  // not trusted, this one is): its scan-failed or workspace-busy finding is newer news than anything
  // this run can say about the scan's health, so it stays open.
  const laterHealth = laterRun(previous, scan) !== undefined;
  const ageOfNew = openDays(now, scan.now);
  const seen = new Map<string, Finding>();
  /** Open findings at an old address that a finding at the new one took over (not resolved). */
  const movedAway = new Set<string>();
  for (const draft of drafts) {
    const id = findingId(draft);
    if (seen.has(id)) continue;
    const valueHash = valueHashOf(draft);
    const carried = open.has(id) ? undefined : carriedOverFromOldAddress(draft, open, movedAway);
    if (carried) movedAway.add(carried.id);
    const before = open.get(id) ?? carried;
    const resolved = before ? undefined : recentlyResolved.get(id);
    // A first sighting recorded by a clock that was ahead is no later than this one (ages never < 0).
    const firstSeenAt = before && Date.parse(before.firstSeenAt) <= nowMs ? before.firstSeenAt : now;
    const finding = seenFinding(draft, id, valueHash, scan, firstSeenAt, now);
    if (before) {
      finding.status = sameValue(before, draft, valueHash, carried !== undefined) ? 'ongoing' : 'changed';
      finding.previousSeenAt = before.lastSeenAt;
    }
    if (carried) finding.evidence = { ...finding.evidence, carriedOverFrom: carried.id };
    if (resolved) {
      finding.status = 'regressed';
      finding.resolvedAt = resolved.resolvedAt;
    }
    // Every finding first seen now is 0 days old: computed once, not parsed back per finding.
    finding.ageDays = finding.firstSeenAt === now ? ageOfNew : openDays(finding.firstSeenAt, scan.now);
    const suppression = before?.suppression ?? resolved?.suppression;
    if (suppression && Date.parse(suppression.until) > nowMs) {
      finding.status = 'suppressed';
      finding.suppression = suppression;
    } else if (suppression) {
      finding.status = 'new';
      finding.evidence = { ...finding.evidence, suppressionExpired: suppression };
    }
    seen.set(id, finding);
  }

  const carriedOver: Finding[] = [];
  const resolvedNow: Finding[] = [];
  for (const finding of open.values()) {
    if (seen.has(finding.id) || movedAway.has(finding.id)) continue;
    const health = SCAN_HEALTH_KINDS.has(finding.kind);
    const trustedToResolve = health ? !laterHealth : scan.outcome === 'ok';
    if (trustedToResolve)
      resolvedNow.push({ ...finding, status: 'resolved', scanId: scan.scanId, resolvedAt: now });
    else carriedOver.push(finding);
  }

  const otherChecks = previousFindings.filter((finding) => finding.check !== scan.check);
  const resolvedRecords = [
    ...[...recentlyResolved.values()].filter((record) => !seen.has(record.id)),
    ...resolvedNow.map((finding) => toResolvedRecord(finding, now)),
  ];
  const record: ScanRecord = { scanId: scan.scanId, status: scan.outcome, at: now };
  return {
    current: {
      schemaVersion: STORE_SCHEMA_VERSION,
      workspace: scan.workspace,
      updatedAt: now,
      lastScan: record,
      checks: { ...previous?.checks, [scan.check]: record },
      findings: [...otherChecks, ...seen.values(), ...carriedOver],
      resolved: resolvedRecords,
    },
    history: [...seen.values(), ...resolvedNow],
  };
}

/**
 * A draft as a finding this run saw, status `new` until the caller says otherwise. Object.assign, not
 * `{ ...draft, id, ... }`: the same properties in the same order, but V8 copies a spread followed by
 * more properties one by one (~10× slower at 50,000 findings).
 */
function seenFinding(
  draft: FindingDraft,
  id: string,
  valueHash: string,
  scan: ScanContext,
  firstSeenAt: string,
  now: string,
): Finding {
  return Object.assign({}, draft, {
    id,
    status: 'new' as const,
    check: scan.check,
    valueHash,
    scanId: scan.scanId,
    firstSeenAt,
    lastSeenAt: now,
  });
}

/**
 * How far after this run's observation a run that overlapped it can have finished. A run is recorded
 * by its own scan, which the state machine stops after at most 23 hours (scanTimeoutHours), and its
 * pending record expires with the scratch space after a day: an overlapping run ends within a day.
 */
export const MAX_RUN_OVERLAP_MS = 24 * 60 * 60_000;

/**
 * The check's last recorded run when it finished after this one and belongs to another scan: a
 * re-scan that overlapped the night and was recorded first. A recorded run more than
 * MAX_RUN_OVERLAP_MS ahead overlapped nothing: its time came from a clock that was ahead (a laptop,
 * a runner with a wrong clock). Taking it as later would freeze the scope until real time caught up,
 * every run in between reporting its new drift as `ongoing` and keeping none of it.
 */
function laterRun(
  previous: CurrentDocument | undefined,
  scan: Pick<ScanContext, 'scanId' | 'now' | 'check'>,
): ScanRecord | undefined {
  const last = previous?.checks?.[scan.check];
  if (!last || last.scanId === scan.scanId) return undefined;
  const ahead = Date.parse(last.at) - scan.now.getTime();
  return ahead > 0 && ahead <= MAX_RUN_OVERLAP_MS ? last : undefined;
}

/**
 * The later run (laterRun) that makes this one's observation old news, so it must not be applied
 * (supersededHistory); undefined otherwise. A later run that failed, was busy or partial saw nothing
 * this trusted run did not: it supersedes only a run that was not trusted either. Otherwise the
 * night's drift that a failed re-scan overtook would be written as `ongoing` and kept nowhere.
 */
export function supersedingRun(
  previous: CurrentDocument | undefined,
  scan: Pick<ScanContext, 'scanId' | 'now' | 'check' | 'outcome'>,
): ScanRecord | undefined {
  const later = laterRun(previous, scan);
  return later && (later.status === 'ok' || scan.outcome !== 'ok') ? later : undefined;
}

/**
 * History lines of a run that a later run of the same check superseded (supersedingRun). Applying it
 * would roll the scope back: findings the later run found would be resolved, and ones it resolved
 * would come back as regressed. So the document stays as it is, and the run's lines record what it saw
 * as no news: `ongoing` (`suppressed` under the open finding's suppression), with
 * `evidence.supersededBy` naming the later scan, which already reported the changes.
 */
export function supersededHistory(
  previous: CurrentDocument,
  drafts: readonly FindingDraft[],
  scan: ScanContext,
  by: ScanRecord,
): Finding[] {
  const now = scan.now.toISOString();
  const open = new Map(previous.findings.filter((f) => f.check === scan.check).map((f) => [f.id, f]));
  const lines = new Map<string, Finding>();
  for (const draft of drafts) {
    const id = findingId(draft);
    if (lines.has(id)) continue;
    const before = open.get(id);
    const finding = seenFinding(draft, id, valueHashOf(draft), scan, before?.firstSeenAt ?? now, now);
    finding.status = before?.status === 'suppressed' ? 'suppressed' : 'ongoing';
    finding.ageDays = openDays(finding.firstSeenAt, scan.now);
    finding.evidence = { ...draft.evidence, supersededBy: { scanId: by.scanId, at: by.at } };
    if (before?.status === 'suppressed' && before.suppression) finding.suppression = before.suppression;
    lines.set(id, finding);
  }
  return [...lines.values()];
}

/**
 * A finding at an address a `moved` block moved its resource to (`resource.movedFrom`) takes over
 * the open finding of the same kind, rule and paths at the old address: the refactor is not news,
 * so it keeps its first sighting, age and suppression instead of "old resolved, new new".
 */
function carriedOverFromOldAddress(
  draft: FindingDraft,
  open: ReadonlyMap<string, Finding>,
  taken: ReadonlySet<string>,
): Finding | undefined {
  const resource = draft.resource;
  if (!resource || !('address' in resource) || resource.movedFrom === undefined) return undefined;
  const oldId = findingId({ ...draft, resource: { ...resource, address: resource.movedFrom } });
  return taken.has(oldId) ? undefined : open.get(oldId);
}

/**
 * Whether a finding says what it said before. A carried-over finding's title names its old address,
 * so it is compared as if it still had that title: only a different severity or value is `changed`.
 */
function sameValue(before: Finding, draft: FindingDraft, valueHash: string, carried: boolean): boolean {
  if (!carried) return before.valueHash === valueHash;
  return before.valueHash === valueHashOf({ ...draft, title: before.title });
}

/** Marks an open finding suppressed until a date (or lifts the suppression with `undefined`). */
export function setSuppression(
  document: CurrentDocument,
  id: string,
  suppression: Suppression | undefined,
): CurrentDocument | undefined {
  const target = document.findings.find((finding) => finding.id === id);
  if (!target) return undefined;
  const findings = document.findings.map((finding) => {
    if (finding.id !== id) return finding;
    const { suppression: _lifted, ...rest } = finding;
    return suppression
      ? { ...rest, status: 'suppressed' as const, suppression }
      : { ...rest, status: 'ongoing' as const };
  });
  return { ...document, updatedAt: suppression?.at ?? document.updatedAt, findings };
}

function toResolvedRecord(finding: Finding, now: string): ResolvedRecord {
  const record: ResolvedRecord = {
    id: finding.id,
    check: finding.check!,
    resolvedAt: now,
    firstSeenAt: finding.firstSeenAt,
  };
  if (finding.suppression) record.suppression = finding.suppression;
  return record;
}
