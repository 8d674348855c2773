import {
  FINDING_KINDS,
  FINDING_STATUSES,
  type Finding,
  SEVERITIES,
  severityRank,
} from '../findings/model.js';

/** Filters of the findings API and the CLI: every one optional, all must match. */
export interface FindingsFilter {
  owner?: string;
  workspace?: string;
  kind?: string;
  status?: string;
  severity?: string;
  /** First seen (a resolved finding: resolved) at or after. */
  since?: Date;
}

export interface FindingsQuery extends FindingsFilter {
  limit: number;
  cursor?: string;
}

export function matchesFilter(finding: Finding, filter: FindingsFilter): boolean {
  const seen =
    finding.status === 'resolved' ? (finding.resolvedAt ?? finding.lastSeenAt) : finding.firstSeenAt;
  return (
    (!filter.owner || finding.owner === filter.owner) &&
    (!filter.workspace || finding.workspace === filter.workspace) &&
    (!filter.kind || finding.kind === filter.kind) &&
    (!filter.status || finding.status === filter.status) &&
    (!filter.severity || finding.severity === filter.severity) &&
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

/** Parses query-string parameters; unknown parameters and bad values are a 400 with the reason. */
export function parseFindingsQuery(parameters: Readonly<Record<string, string | undefined>>): FindingsQuery {
  const known = new Set(['owner', 'workspace', 'kind', 'status', 'severity', 'since', 'limit', 'cursor']);
  const unknown = Object.keys(parameters).filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw new InvalidQueryError(`unknown parameter(s): ${unknown.join(', ')}; use ${[...known].join(', ')}`);
  const oneOf = (name: string, allowed: readonly string[]) => {
    const value = parameters[name];
    if (value !== undefined && !allowed.includes(value))
      throw new InvalidQueryError(`${name} must be one of ${allowed.join(', ')}`);
    return value;
  };
  const query: FindingsQuery = { limit: DEFAULT_PAGE_SIZE };
  if (parameters.owner) query.owner = parameters.owner;
  if (parameters.workspace) query.workspace = parameters.workspace;
  const kind = oneOf('kind', FINDING_KINDS);
  if (kind) query.kind = kind;
  const status = oneOf('status', FINDING_STATUSES);
  if (status) query.status = status;
  const severity = oneOf('severity', SEVERITIES);
  if (severity) query.severity = severity;
  if (parameters.since !== undefined) {
    const since = new Date(parameters.since);
    if (!/^\d{4}-\d{2}-\d{2}/.test(parameters.since) || Number.isNaN(since.getTime())) {
      throw new InvalidQueryError('since must be an ISO date or time, e.g. 2026-11-01');
    }
    query.since = since;
  }
  if (parameters.limit !== undefined) {
    const limit = Number(parameters.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
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

export interface FindingsPage {
  findings: Finding[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * One page of matching findings in a stable order (most severe first, then workspace, then id).
 * The cursor is the sort key of the last finding returned, so pages stay consistent while findings
 * are added or resolved between requests.
 */
export function queryFindings(findings: readonly Finding[], query: FindingsQuery): FindingsPage {
  const matching = findings
    .filter((finding) => matchesFilter(finding, query))
    .sort((a, b) => compareKeys(sortKey(a), sortKey(b)));
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const start = after ? matching.findIndex((finding) => compareKeys(sortKey(finding), after) > 0) : 0;
  const page = start < 0 ? [] : matching.slice(start, start + query.limit);
  const last = page.at(-1);
  const more = start >= 0 && start + query.limit < matching.length;
  return more && last ? { findings: page, nextCursor: encodeCursor(sortKey(last)) } : { findings: page };
}

type SortKey = [number, string, string];

function sortKey(finding: Finding): SortKey {
  return [severityRank(finding.severity), finding.workspace, finding.id];
}

function compareKeys(a: SortKey, b: SortKey): number {
  return a[0] - b[0] || a[1].localeCompare(b[1]) || a[2].localeCompare(b[2]);
}

function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): SortKey {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(key) &&
      key.length === 3 &&
      typeof key[0] === 'number' &&
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
