import {
  FINDING_KINDS,
  FINDING_STATUSES,
  type Finding,
  SEVERITIES,
  type Severity,
  severityRank,
} from '../findings/model.js';
import { SAFE_ID } from '../registry/model.js';
import { limitText } from '../text/sanitize.js';
import { parseSince, TimeFilterError } from './since.js';

/** Filters of the findings API and the CLI: every one optional, all must match. */
export interface FindingsFilter {
  owner?: string;
  workspace?: string;
  kind?: string;
  status?: string;
  /** At or above this severity, as the CLI's --severity (`high`: high and critical). */
  severity?: Severity;
  /** First seen (a resolved finding: resolved) at or after. */
  since?: Date;
}

export interface FindingsQuery extends FindingsFilter {
  limit: number;
  cursor?: string;
}

/**
 * `ownerOf` is whose a finding is to the reader: its owner by default; the findings API gives one
 * without an owner to the fallback owner, so `owner=` selects what the owner is shown unfiltered.
 */
export function matchesFilter(
  finding: Finding,
  filter: FindingsFilter,
  ownerOf: (finding: Finding) => string | undefined = (candidate) => candidate.owner,
): boolean {
  const seen =
    finding.status === 'resolved' ? (finding.resolvedAt ?? finding.lastSeenAt) : finding.firstSeenAt;
  return (
    (!filter.owner || ownerOf(finding) === filter.owner) &&
    (!filter.workspace || finding.workspace === filter.workspace) &&
    (!filter.kind || finding.kind === filter.kind) &&
    (!filter.status || finding.status === filter.status) &&
    (!filter.severity || severityRank(finding.severity) <= severityRank(filter.severity)) &&
    (!filter.since || Date.parse(seen) >= filter.since.getTime())
  );
}

export class InvalidQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidQueryError';
  }
}

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/** The statuses an open finding (what the API lists) can have. */
const OPEN_STATUSES = FINDING_STATUSES.filter((status) => status !== 'resolved');

const PARAMETERS = ['owner', 'workspace', 'kind', 'status', 'severity', 'since', 'limit', 'cursor'] as const;

/** The query string of a request as API Gateway hands it over (HTTP API v2, or REST API v1). */
export interface QueryString {
  rawQueryString?: string;
  queryStringParameters?: Readonly<Record<string, string | undefined>> | null;
  multiValueQueryStringParameters?: Readonly<Record<string, readonly string[] | undefined>> | null;
}

/**
 * One value per parameter name. A name given twice is refused: an HTTP API joins the values with
 * commas (`owner=a&owner=b` reads as the owner `a,b`, an empty page), a REST API keeps the last, and
 * either way the caller would get an answer to a question it did not ask.
 */
export function singleValuedParameters(request: QueryString): Record<string, string> {
  const names = request.rawQueryString
    ? [...new URLSearchParams(request.rawQueryString).keys()]
    : Object.entries(request.multiValueQueryStringParameters ?? {}).flatMap(([name, values]) =>
        (values ?? []).map(() => name),
      );
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined)
    throw new InvalidQueryError(`${shownName(repeated)} is given more than once: give each parameter once`);
  // fromEntries defines each name as its own property: an assignment of `__proto__` would set the
  // prototype (or nothing) instead, and that parameter would pass as no parameter at all.
  return Object.fromEntries(
    Object.entries(request.queryStringParameters ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
}

/**
 * Parses query-string parameters; unknown parameters and bad values are a 400 with the reason. An
 * empty value is refused too (`owner=` from an unset variable would otherwise list every owner).
 * `now` resolves a `since` given as a duration (`7d`).
 */
export function parseFindingsQuery(
  parameters: Readonly<Record<string, string | undefined>>,
  now: Date,
): FindingsQuery {
  const known: readonly string[] = PARAMETERS;
  const unknown = Object.keys(parameters).filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new InvalidQueryError(
      `unknown parameter(s): ${unknown.slice(0, 5).map(shownName).join(', ')}${unknown.length > 5 ? ', …' : ''}; use ${known.join(', ')}`,
    );
  const empty = known.find((name) => parameters[name] === '');
  if (empty !== undefined)
    throw new InvalidQueryError(`${empty} is empty: give a value, or leave ${empty} out`);
  const oneOf = (name: string, allowed: readonly string[]) => {
    const value = parameters[name];
    if (value !== undefined && !allowed.includes(value))
      throw new InvalidQueryError(`${name} must be one of ${allowed.join(', ')}`);
    return value;
  };
  const id = (name: 'owner' | 'workspace', what: string) => {
    const value = parameters[name];
    // Every owner and scope id is one (registry ids become S3 key parts): anything else matches nothing.
    if (value !== undefined && !SAFE_ID.test(value))
      throw new InvalidQueryError(
        `${name} is ${what}: 1-63 characters from a-z, 0-9, '-', '_' and '.', starting with a letter or digit`,
      );
    return value;
  };
  const query: FindingsQuery = { limit: DEFAULT_PAGE_SIZE };
  const owner = id('owner', 'a team id of the registry');
  if (owner) query.owner = owner;
  const workspace = id('workspace', 'a workspace or scope id');
  if (workspace) query.workspace = workspace;
  const kind = oneOf('kind', FINDING_KINDS);
  if (kind) query.kind = kind;
  // The API answers from current/, which holds open findings only: `resolved` would be an empty page
  // that reads as "nothing was resolved". The CLI reads the scan history for it.
  if (parameters.status === 'resolved')
    throw new InvalidQueryError(
      'status=resolved: this API lists open findings; resolved ones are in the scan history: driftwatch findings --status resolved --since 7d --store s3://<findings bucket>, or Athena',
    );
  const status = oneOf('status', OPEN_STATUSES);
  if (status) query.status = status;
  const severity = oneOf('severity', SEVERITIES);
  if (severity) query.severity = severity as Severity;
  if (parameters.since !== undefined) {
    // `…T08:00:00+01:00` unencoded in a URL: a query string reads `+` as a space.
    if (/T[\d:.]+ \d{2}:?\d{2}$/.test(parameters.since))
      throw new InvalidQueryError(
        `since: ${limitText(parameters.since, 80)} has a space where its time zone's '+' was (a query string reads '+' as a space): write it %2B (2026-11-01T08:00:00%2B01:00), or give the time in UTC with Z`,
      );
    try {
      query.since = parseSince(parameters.since, now, 'since');
    } catch (error) {
      if (error instanceof TimeFilterError) throw new InvalidQueryError(error.message);
      throw error;
    }
  }
  if (parameters.limit !== undefined) {
    // Digits only: Number() would also take `1e2`, `0x10` and ` 5 `.
    const limit = /^\d{1,6}$/.test(parameters.limit) ? Number(parameters.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_PAGE_SIZE)) {
      throw new InvalidQueryError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    query.limit = limit;
  }
  if (parameters.cursor !== undefined) {
    decodeCursor(parameters.cursor);
    query.cursor = parameters.cursor;
  }
  return query;
}

/** A parameter name as a message quotes it: cut, so a hostile name cannot fill the answer. */
function shownName(name: string): string {
  return JSON.stringify(limitText(name, 40)).slice(1, -1);
}

export interface FindingsPage {
  findings: Finding[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
  /** Findings of this page too large for any answer: their ids, to read another way. */
  omitted?: Array<{ id: string; bytes: number }>;
}

export interface PageOptions {
  /** What the reader is shown of a finding (as of now, redacted); the finding itself by default. */
  present?: (finding: Finding) => Finding;
  /** What one finding adds to the answer, in bytes, and how many bytes a page may hold. */
  sizeOf?: (finding: Finding) => number;
  maxBytes?: number;
  /** Whose a finding is, for the `owner` filter (matchesFilter). */
  ownerOf?: (finding: Finding) => string | undefined;
}

/**
 * One page of matching findings in a stable order (most severe first, then workspace, then id).
 * The cursor is the sort key of the last finding returned, so pages stay consistent while findings
 * are added or resolved between requests. A page ends at `limit` findings or before `maxBytes`,
 * whichever comes first (at least one finding a page); a finding larger than `maxBytes` on its own
 * is named in `omitted` instead, so every match is either on a page or named, once.
 */
export function queryFindings(
  findings: readonly Finding[],
  query: FindingsQuery,
  options: PageOptions = {},
): FindingsPage {
  const {
    present = (finding: Finding) => finding,
    sizeOf,
    maxBytes = Number.POSITIVE_INFINITY,
    ownerOf,
  } = options;
  const matching = findings
    .filter((finding) => matchesFilter(finding, query, ownerOf))
    .sort((a, b) => compareKeys(sortKey(a), sortKey(b)));
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const start = after ? matching.findIndex((finding) => compareKeys(sortKey(finding), after) > 0) : 0;
  if (start < 0) return { findings: [] };
  const page: Finding[] = [];
  const omitted: Array<{ id: string; bytes: number }> = [];
  let bytes = 0;
  let next = start;
  for (; next < matching.length && page.length + omitted.length < query.limit; next++) {
    const shown = present(matching[next]!);
    const size = sizeOf ? sizeOf(shown) : 0;
    if (size > maxBytes) {
      omitted.push({ id: shown.id, bytes: size });
      continue;
    }
    if (page.length > 0 && bytes + size > maxBytes) break;
    page.push(shown);
    bytes += size;
  }
  const last = matching[next - 1];
  return {
    findings: page,
    ...(next < matching.length && last ? { nextCursor: encodeCursor(sortKey(last)) } : {}),
    ...(omitted.length > 0 ? { omitted } : {}),
  };
}

type SortKey = [number, string, string];

function sortKey(finding: Finding): SortKey {
  return [severityRank(finding.severity), finding.workspace, finding.id];
}

/**
 * By UTF-16 code units, not localeCompare: a collation holds some different strings equal (an
 * ignorable character, a soft hyphen), and the cursor would then skip the second of them.
 */
function compareKeys(a: SortKey, b: SortKey): number {
  return a[0] - b[0] || compareText(a[1], b[1]) || compareText(a[2], b[2]);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): SortKey {
  // Ours are a severity rank, a scope id (at most 63 characters) and a finding id, in base64url.
  if (cursor.length > 400 || !/^[A-Za-z0-9_-]+$/.test(cursor))
    throw new InvalidQueryError('cursor is not one this API returned');
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(key) &&
      key.length === 3 &&
      Number.isInteger(key[0]) &&
      key[0] >= 0 &&
      key[0] < SEVERITIES.length &&
      typeof key[1] === 'string' &&
      typeof key[2] === 'string'
    ) {
      return key as SortKey;
    }
  } catch {
    // fall through
  }
  throw new InvalidQueryError('cursor is not one this API returned');
}
