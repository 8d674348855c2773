import { openDays } from '../findings/describe.js';
import { shortIdLength } from '../findings/finding-ids.js';
import { createFindingsStore, type ScanSummary } from '../findings/findings-store.js';
import { CURRENT_PREFIX, scanDate } from '../findings/layout.js';
import type { CurrentDocument } from '../findings/lifecycle.js';
import {
  type Check,
  type Finding,
  type FindingStatus,
  SEVERITIES,
  type Severity,
  severityRank,
} from '../findings/model.js';
import type { ListedObject, ObjectStore } from '../findings/object-store.js';
import { presentFindings } from '../findings/present.js';
import { STORED } from '../findings/stored-schemas.js';
import { redactText } from '../redaction/secrets.js';
import { mapConcurrently } from '../scan/map-concurrently.js';

/**
 * What the HTML report shows, read from the findings store. Pure data: `renderReport` turns it into
 * the file, tests and the WriteReports stage read it directly. Nothing here reads a clock: "now" is
 * the latest scan's time, so the same store always gives the same report.
 */
export interface ReportData {
  /** The latest scan's time (ISO): every age and "tonight" in the report is relative to it. */
  generatedAt: string;
  /** Set on a report with only this owner's findings. */
  owner?: string;
  /** Where the findings were read (`s3://bucket/` or a directory), for the commands the report shows. */
  store?: string;
  /** Nights of history the trend and the finding histories cover. */
  nights: number;
  /** The scan "tonight" refers to: the latest summary, else the latest run recorded in current/. */
  latestScan?: {
    scanId: string;
    startedAt: string;
    finishedAt?: string;
    workspaces?: ScanSummary['workspaces'];
  };
  /**
   * Open findings (every status but resolved) and the findings the latest scan resolved, in a
   * stable order: most severe first, then workspace, then id.
   */
  findings: Finding[];
  /** Per finding id: how it was seen night after night (only the nights where something moved). */
  history: Record<string, HistoryEntry[]>;
  /** One entry per night, oldest first, `nights` long, ending on the latest scan's night. */
  trend: TrendNight[];
  /** Workspaces (and scopes) whose latest scan failed, and why. */
  failures: ScanFailure[];
  /** Objects of the store that could not be read: the report is missing what they held. */
  unreadable: Array<{ key: string; what: string; reason: string }>;
  /** Owners present in the store (all of them, also on an owner's report): for per-owner reports. */
  owners: string[];
  /** Characters of the finding ids shown (12, more when two ids share 12: findings/finding-ids.ts). */
  shortIdLength: number;
}

export interface HistoryEntry {
  /** The night (YYYY-MM-DD, UTC) of the scan. */
  night: string;
  scanId: string;
  status: FindingStatus;
  severity: Severity;
}

export interface TrendNight {
  night: string;
  /** False on a night without any scan recorded: a gap, not zero drift. */
  scanned: boolean;
  /** Open findings (not resolved, not suppressed) as the night's scans saw them, by severity. */
  bySeverity: Record<Severity, number>;
}

export interface ScanFailure {
  workspace: string;
  check?: Check;
  owner?: string;
  reason: string;
  /** The scan-failed finding, when there is one (short id, first failed at). */
  findingId?: string;
  since?: string;
}

/** Finding kinds the "backend and lock health" section lists. */
export const HEALTH_KINDS: ReadonlySet<Finding['kind']> = new Set([
  'backend-policy',
  'state-integrity',
  'stale-lock',
]);

/** What "the oldest open drift" is taken from: changes made outside the declared configuration. */
export const DRIFT_KINDS: ReadonlySet<Finding['kind']> = new Set(['terraform-drift', 'cluster-drift']);

export const DEFAULT_NIGHTS = 30;
const READ_CONCURRENCY = 16;

export class EmptyStoreError extends Error {
  constructor(location: string, unreadable: ReportData['unreadable'] = []) {
    const [first] = unreadable;
    super(
      first
        ? // Scans were recorded, but no current document can be read: say which and why, not "no scan".
          `no current document in the findings store at ${location} can be read: ${first.key} is not a valid ${first.what} (${first.reason})${unreadable.length > 1 ? `, and ${unreadable.length - 1} more` : ''}; restore a good version, or let the next scan write it again`
        : `no scan has been recorded in the findings store at ${location}: run driftwatch scan (or deploy and let the nightly scan run) first, or pass --store with the store a scan wrote to`,
    );
    this.name = 'EmptyStoreError';
  }
}

/**
 * Reads the report's data: current documents (open findings, latest runs), the scan summaries and the
 * history of the last `nights` nights. Read-only: corrupt objects are listed in `unreadable`, never moved.
 */
export async function loadReportData(
  store: ObjectStore,
  options: { owner?: string; nights?: number; asOf?: Date },
): Promise<ReportData> {
  return reportDataOf(await readReportSource(store, options), options.owner, options.asOf);
}

/** What every report of a store is made from, read once (the nightly reports make one per owner). */
export interface ReportSource {
  store: string;
  nights: number;
  documents: CurrentDocument[];
  summaries: ScanSummary[];
  history: Finding[];
  unreadable: ReportData['unreadable'];
  lastRun: { scanId: string; at: string };
}

/** The store's reads for reports: the I/O of loadReportData, shared by every owner's report. */
export async function readReportSource(
  store: ObjectStore,
  options: { nights?: number } = {},
): Promise<ReportSource> {
  const nights = Math.max(1, Math.floor(options.nights ?? DEFAULT_NIGHTS));
  const findingsStore = createFindingsStore(listingOnce(store), { readOnly: true });
  const unreadable: ReportData['unreadable'] = [];

  const documents = await readCurrentDocuments(store, unreadable);
  const lastRun = latestRun(documents);
  if (!lastRun) throw new EmptyStoreError(store.location, unreadable);
  // Summaries are written after every run; a report of a store whose last scan wrote none (a local
  // check run, an interrupted scan) still reads as of the latest recorded run.
  const summaries = await findingsStore.recentSummaries(new Date(lastRun.at), nights + 1);
  const history = await findingsStore.recentHistory(new Date(generatedAtOf(lastRun, summaries[0])), nights);
  for (const corrupt of findingsStore.takeCorruptions())
    unreadable.push({ key: corrupt.key, what: corrupt.what, reason: corrupt.reason });
  return { store: store.location, nights, documents, summaries, history, unreadable, lastRun };
}

/** Summaries and history live in the same day folders: each folder is listed once for both. */
function listingOnce(store: ObjectStore): ObjectStore {
  const listed = new Map<string, Promise<ListedObject[]>>();
  const listAll = async (prefix: string) => {
    const objects: ListedObject[] = [];
    for await (const object of store.list(prefix)) objects.push(object);
    return objects;
  };
  return {
    location: store.location,
    get: (key) => store.get(key),
    put: (key, body, options) => store.put(key, body, options),
    delete: (key, options) => store.delete(key, options),
    async *list(prefix) {
      if (!listed.has(prefix)) listed.set(prefix, listAll(prefix));
      yield* await listed.get(prefix)!;
    },
  };
}

function generatedAtOf(lastRun: { at: string }, summary: ScanSummary | undefined): string {
  return maxIso([lastRun.at, summary?.finishedAt ?? lastRun.at]);
}

/**
 * The report of everybody, or of one owner, from what was read (pure). Its findings are presented
 * as every reader of the store shows them (presentFinding: redacted once more, and an expired
 * suppression hides nothing) as of `asOf`, by default the latest scan's time; the reasons of failures
 * a summary names are redacted too.
 */
export function reportDataOf(source: ReportSource, owner?: string, asOf?: Date): ReportData {
  const { documents, summaries, history, nights, lastRun } = source;
  const summary = summaries[0];
  const latestScan: ReportData['latestScan'] = summary
    ? {
        scanId: summary.scanId,
        startedAt: summary.startedAt,
        finishedAt: summary.finishedAt,
        workspaces: summary.workspaces,
      }
    : { scanId: lastRun.scanId, startedAt: lastRun.at };
  const generatedAt = generatedAtOf(lastRun, summary);
  const now = new Date(generatedAt);

  const mine = (finding: Pick<Finding, 'owner'>) => owner === undefined || finding.owner === owner;

  const open = documents.flatMap((document) => document.findings);
  const openIds = new Set(open.map((finding) => finding.id));
  const resolvedTonight = latestLines(
    history.filter((line) => line.status === 'resolved' && line.scanId === latestScan.scanId),
  ).filter((line) => !openIds.has(line.id));
  const findings = presentFindings([...open, ...resolvedTonight].filter(mine), asOf ?? now)
    .map((finding) => ({ ...finding, ageDays: ageOf(finding, now) }))
    .sort(compareFindings);

  const owners = [
    ...new Set([...open, ...history].flatMap((finding) => (finding.owner ? [finding.owner] : []))),
  ].sort(compareText);

  const ownHistory = history.filter(mine);
  return {
    generatedAt,
    ...(owner !== undefined ? { owner } : {}),
    store: source.store,
    nights,
    latestScan,
    findings,
    history: historyOf(findings, ownHistory),
    trend: trendOf(ownHistory, summaries, now, nights),
    failures: failuresOf(documents, summary, findings, owner),
    unreadable: [...source.unreadable].sort((a, b) => compareText(a.key, b.key)),
    owners,
    shortIdLength: shortIdLength(findings.map((finding) => finding.id)),
  };
}

async function readCurrentDocuments(
  store: ObjectStore,
  unreadable: ReportData['unreadable'],
): Promise<CurrentDocument[]> {
  const keys: string[] = [];
  for await (const object of store.list(CURRENT_PREFIX))
    if (object.key.endsWith('.json')) keys.push(object.key);
  keys.sort(compareText);
  const read = await mapConcurrently(keys, READ_CONCURRENCY, async (key) => {
    const stored = await store.get(key);
    if (!stored) return undefined;
    const parsed = STORED.current.parse(stored.body);
    if (parsed.ok) return parsed.value;
    unreadable.push({ key, what: STORED.current.what, reason: parsed.reason });
    return undefined;
  });
  return read.filter((document) => document !== undefined);
}

/** The most recent run of any check in any scope. */
function latestRun(documents: readonly CurrentDocument[]): { scanId: string; at: string } | undefined {
  let latest: { scanId: string; at: string } | undefined;
  for (const document of documents) {
    const runs = [document.lastScan, ...Object.values(document.checks ?? {})];
    for (const run of runs)
      if (run && (!latest || run.at > latest.at || (run.at === latest.at && run.scanId > latest.scanId)))
        latest = { scanId: run.scanId, at: run.at };
  }
  return latest;
}

function maxIso(times: readonly string[]): string {
  return times.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

/** Age in whole days as of the report's time: resolved findings stop aging when resolved. */
function ageOf(finding: Finding, now: Date): number {
  const until = finding.status === 'resolved' && finding.resolvedAt ? new Date(finding.resolvedAt) : now;
  return Math.max(0, openDays(finding.firstSeenAt, until));
}

/** When a history line was written: a resolved line at its resolution, any other when it was seen. */
function lineTime(line: Finding): string {
  return line.status === 'resolved' ? (line.resolvedAt ?? line.lastSeenAt) : line.lastSeenAt;
}

/** One line per finding id: the latest. */
function latestLines(lines: readonly Finding[]): Finding[] {
  const latest = new Map<string, Finding>();
  for (const line of lines) {
    const known = latest.get(line.id);
    if (!known || lineTime(line) > lineTime(known)) latest.set(line.id, line);
  }
  return [...latest.values()];
}

function historyOf(findings: readonly Finding[], lines: readonly Finding[]): ReportData['history'] {
  const wanted = new Set(findings.map((finding) => finding.id));
  const byId = new Map<string, Finding[]>();
  for (const line of lines) {
    if (!wanted.has(line.id)) continue;
    const list = byId.get(line.id) ?? [];
    list.push(line);
    byId.set(line.id, list);
  }
  const history: ReportData['history'] = {};
  for (const id of [...byId.keys()].sort(compareText)) {
    const sorted = byId
      .get(id)!
      .sort((a, b) => compareText(lineTime(a), lineTime(b)) || compareText(a.scanId, b.scanId));
    const entries: HistoryEntry[] = [];
    for (const [index, line] of sorted.entries()) {
      const previous = entries.at(-1);
      const last = index === sorted.length - 1;
      // Night after night of `ongoing` says nothing: keep the first, every move, and the latest.
      if (previous && previous.status === line.status && previous.severity === line.severity && !last)
        continue;
      entries.push({
        night: lineTime(line).slice(0, 10),
        scanId: line.scanId,
        status: line.status,
        severity: line.severity,
      });
    }
    history[id] = entries;
  }
  return history;
}

function emptyCounts(): Record<Severity, number> {
  return Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<Severity, number>;
}

/**
 * Open findings per night as that night's scans saw them (the last line of each finding that night;
 * the same count a scan summary keeps, less suppressed findings, and per owner). A night with no
 * scan is a gap. Workspaces whose scan failed that night add nothing that night (their findings
 * were not seen), exactly as in the summaries.
 */
function trendOf(
  lines: readonly Finding[],
  summaries: readonly ScanSummary[],
  now: Date,
  nights: number,
): TrendNight[] {
  const byNight = new Map<string, Finding[]>();
  for (const line of lines) {
    const night = scanDate(new Date(lineTime(line)));
    const list = byNight.get(night) ?? [];
    list.push(line);
    byNight.set(night, list);
  }
  const scannedNights = new Set(summaries.map((summary) => summary.startedAt.slice(0, 10)));
  const trend: TrendNight[] = [];
  for (let back = nights - 1; back >= 0; back--) {
    const night = scanDate(new Date(now.getTime() - back * DAY_MS));
    const bySeverity = emptyCounts();
    const seen = byNight.get(night) ?? [];
    for (const line of latestLines(seen))
      if (line.status !== 'resolved' && line.status !== 'suppressed') bySeverity[line.severity]++;
    // On an owner's report, a night whose scan saw nothing of theirs is still a scanned night.
    const scanned = seen.length > 0 || scannedNights.has(night);
    trend.push({ night, scanned, bySeverity });
  }
  return trend;
}

function failuresOf(
  documents: readonly CurrentDocument[],
  summary: ScanSummary | undefined,
  findings: readonly Finding[],
  owner: string | undefined,
): ScanFailure[] {
  const failures = new Map<string, ScanFailure>();
  const keyOf = (workspace: string, check?: Check) => `${workspace}@${check ?? 'terraform'}`;
  for (const finding of findings) {
    if (finding.kind !== 'scan-failed' || finding.status === 'resolved') continue;
    failures.set(keyOf(finding.workspace, finding.check === 'terraform' ? undefined : finding.check), {
      workspace: finding.workspace,
      ...(finding.check && finding.check !== 'terraform' ? { check: finding.check } : {}),
      ...(finding.owner ? { owner: finding.owner } : {}),
      reason: finding.detail || finding.title,
      findingId: finding.id,
      since: finding.firstSeenAt,
    });
  }
  // Failures the summary names without a finding of the owner's (a scope that threw while recording):
  // on an owner's report only for workspaces whose findings are the owner's.
  const ownersOf = new Map<string, Set<string>>();
  for (const document of documents)
    for (const finding of document.findings)
      if (finding.owner)
        ownersOf.set(document.workspace, (ownersOf.get(document.workspace) ?? new Set()).add(finding.owner));
  for (const failure of summary?.failures ?? []) {
    const key = keyOf(failure.workspace, failure.check === 'terraform' ? undefined : failure.check);
    if (failures.has(key)) continue;
    if (owner !== undefined && !ownersOf.get(failure.workspace)?.has(owner)) continue;
    failures.set(key, {
      workspace: failure.workspace,
      ...(failure.check && failure.check !== 'terraform' ? { check: failure.check } : {}),
      // A summary's text, from the store like a finding's: redacted as a finding's detail is.
      reason: redactText(failure.reason),
    });
  }
  return [...failures.entries()].sort(([a], [b]) => compareText(a, b)).map(([, failure]) => failure);
}

const DAY_MS = 24 * 60 * 60_000;

/** Code-unit order: the same on every machine and locale (localeCompare is not). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most severe first, then workspace, then id (the order of the findings API). */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    severityRank(a.severity) - severityRank(b.severity) ||
    compareText(a.workspace, b.workspace) ||
    compareText(a.id, b.id)
  );
}

/** The headline and tables of the report, computed from its data (renderReport and tests use it). */
export interface ReportSummary {
  open: Record<Severity, number>;
  openTotal: number;
  suppressed: number;
  newTonight: number;
  resolvedTonight: number;
  /** The open drift (terraform-drift, cluster-drift) first seen longest ago. */
  oldest?: { id: string; title: string; firstSeenAt: string; ageDays: number };
  /** Distinct workspaces (scopes) with a failed latest scan. */
  scanFailures: number;
  byOwner: GroupRow[];
  byEnvironment: GroupRow[];
  ages: Array<{ label: string; bySeverity: Record<Severity, number> }>;
  /** Backend-policy, state-integrity and stale-lock findings that are open. */
  health: Finding[];
}

export interface GroupRow {
  name: string;
  open: Record<Severity, number>;
  total: number;
  newTonight: number;
  oldestDays: number;
}

/** Drift age buckets, in days (upper bounds inclusive). */
export const AGE_BUCKETS: ReadonlyArray<{ label: string; upTo: number }> = [
  { label: '0–1 days', upTo: 1 },
  { label: '2–7 days', upTo: 7 },
  { label: '8–30 days', upTo: 30 },
  { label: '31–90 days', upTo: 90 },
  { label: 'over 90 days', upTo: Number.POSITIVE_INFINITY },
];

export function isOpen(finding: Pick<Finding, 'status'>): boolean {
  return finding.status !== 'resolved' && finding.status !== 'suppressed';
}

export function isNewTonight(finding: Finding, data: Pick<ReportData, 'latestScan'>): boolean {
  return (
    (finding.status === 'new' || finding.status === 'regressed') && finding.scanId === data.latestScan?.scanId
  );
}

export function summarizeReport(data: ReportData): ReportSummary {
  const open = data.findings.filter(isOpen);
  const counts = emptyCounts();
  for (const finding of open) counts[finding.severity]++;
  const oldest = open
    .filter((finding) => DRIFT_KINDS.has(finding.kind))
    .sort((a, b) => compareText(a.firstSeenAt, b.firstSeenAt) || compareFindings(a, b))[0];
  const group = (nameOf: (finding: Finding) => string): GroupRow[] => {
    const rows = new Map<string, GroupRow>();
    for (const finding of data.findings) {
      if (finding.status === 'resolved') continue;
      const name = nameOf(finding);
      const row = rows.get(name) ?? { name, open: emptyCounts(), total: 0, newTonight: 0, oldestDays: 0 };
      if (isOpen(finding)) {
        row.open[finding.severity]++;
        row.total++;
        row.oldestDays = Math.max(row.oldestDays, finding.ageDays ?? 0);
      }
      if (isNewTonight(finding, data)) row.newTonight++;
      rows.set(name, row);
    }
    return [...rows.values()].sort((a, b) => b.total - a.total || compareText(a.name, b.name));
  };
  const ages = AGE_BUCKETS.map((bucket) => ({ label: bucket.label, bySeverity: emptyCounts() }));
  for (const finding of open) {
    const index = AGE_BUCKETS.findIndex((bucket) => (finding.ageDays ?? 0) <= bucket.upTo);
    ages[index]!.bySeverity[finding.severity]++;
  }
  return {
    open: counts,
    openTotal: open.length,
    suppressed: data.findings.filter((finding) => finding.status === 'suppressed').length,
    newTonight: data.findings.filter((finding) => isNewTonight(finding, data)).length,
    resolvedTonight: data.findings.filter((finding) => finding.status === 'resolved').length,
    ...(oldest
      ? {
          oldest: {
            id: oldest.id,
            title: oldest.title,
            firstSeenAt: oldest.firstSeenAt,
            ageDays: oldest.ageDays ?? 0,
          },
        }
      : {}),
    scanFailures: new Set(data.failures.map((failure) => `${failure.workspace}@${failure.check ?? ''}`)).size,
    byOwner: group((finding) => finding.owner ?? '(no owner)'),
    byEnvironment: group((finding) => finding.environment ?? '(none)'),
    ages,
    health: open.filter((finding) => HEALTH_KINDS.has(finding.kind)),
  };
}
