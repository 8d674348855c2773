/**
 * Schemas of every object driftwatch reads back from its own store (findings, current documents,
 * suppression records, run records, summaries, the notification outbox and sent markers). A run
 * must never trust a truncated or hand-edited object: it would crash every later run, or worse,
 * resolve findings that are still open. Objects are loose (unknown fields pass) so an object
 * written by an older or newer driftwatch is read, not quarantined; the fields driftwatch relies
 * on are checked for presence and type.
 */
import * as z from 'zod/mini';
import type { ScanSummary, WorkspaceRun } from './findings-store.js';
import { FINDING_ID_PATTERN } from './fingerprint.js';
import { STORE_SCHEMA_VERSION } from './layout.js';
import type { CurrentDocument } from './lifecycle.js';
import { CHECKS, DRIFT_ACTIONS, FINDING_KINDS, FINDING_STATUSES, type Finding, SEVERITIES } from './model.js';
import type { PendingRecord } from './pending-records.js';

const text = z.string();
const nonEmpty = z.string().check(z.minLength(1));
const counts = z.record(z.string(), z.number());
/**
 * A finding id is its fingerprint, 64 lowercase hex (fingerprint.ts). Any other text is no id this
 * driftwatch made: a short one (`ac0e`) is a prefix of real ids, so it could never be named alone,
 * and it cannot be a key part (suppressions/<id>.json).
 */
const findingIdText = z.string().check(z.regex(FINDING_ID_PATTERN, 'not a finding id (64 lowercase hex)'));
/**
 * A time driftwatch wrote (an ISO string): ages, nights, trends and expiries are computed from it,
 * so text that is no time (`yesterday`, an empty string) is a wrong type, not a finding of age NaN
 * (a report of the store failed on it with an unexpected error, tables said `NaNd`).
 */
const time = z.string().check(z.refine((value) => !Number.isNaN(Date.parse(value)), 'not a date and time'));

const suppressionSchema = z.looseObject({ reason: text, by: text, until: time, at: time });

const findingSchema = z.looseObject({
  id: findingIdText,
  kind: z.enum(FINDING_KINDS),
  ruleId: nonEmpty,
  severity: z.enum(SEVERITIES),
  status: z.enum(FINDING_STATUSES),
  workspace: nonEmpty,
  owner: z.optional(text),
  environment: z.optional(text),
  // Three shapes (Terraform, backend, cluster) that share no required field: an object is enough.
  resource: z.optional(z.record(z.string(), z.unknown())),
  drift: z.optional(
    z.looseObject({
      action: z.enum(DRIFT_ACTIONS),
      changes: z.array(
        z.looseObject({ path: text, before: z.unknown(), after: z.unknown(), sensitive: z.boolean() }),
      ),
    }),
  ),
  title: text,
  detail: text,
  evidence: z.record(z.string(), z.unknown()),
  remediation: z.looseObject({ summary: text, steps: z.array(text) }),
  scanId: text,
  firstSeenAt: time,
  lastSeenAt: time,
  ageDays: z.optional(z.number()),
  check: z.optional(z.enum(CHECKS)),
  valueHash: z.optional(text),
  resolvedAt: z.optional(time),
  suppression: z.optional(suppressionSchema),
});

const scanRecordSchema = z.looseObject({
  scanId: text,
  status: z.enum(['ok', 'failed', 'busy', 'partial']),
  at: time,
});

const currentDocumentSchema = z.looseObject({
  workspace: nonEmpty,
  updatedAt: time,
  lastScan: scanRecordSchema,
  checks: z.partialRecord(z.enum(CHECKS), scanRecordSchema),
  findings: z.array(findingSchema),
  resolved: z.array(
    z.looseObject({
      id: findingIdText,
      check: z.enum(CHECKS),
      resolvedAt: time,
      firstSeenAt: time,
      suppression: z.optional(suppressionSchema),
    }),
  ),
});

const suppressionRecordSchema = z.looseObject({
  id: findingIdText,
  scope: nonEmpty,
  suppression: z.nullable(suppressionSchema),
});

const workspaceRunSchema = z.looseObject({
  durationMs: z.number(),
  initMs: z.optional(z.number()),
  plansMs: z.array(z.number()),
  noiseRemoved: counts,
});

const summarySchema = z.looseObject({
  scanId: nonEmpty,
  startedAt: time,
  finishedAt: time,
  workspaces: z.looseObject({
    total: z.number(),
    scanned: z.number(),
    failed: z.number(),
    busy: z.number(),
    skipped: z.number(),
  }),
  durationsMs: z.looseObject({
    total: z.number(),
    workspaces: z.record(
      z.string(),
      z.looseObject({ total: z.number(), init: z.optional(z.number()), plans: z.array(z.number()) }),
    ),
  }),
  findings: z.looseObject({ total: z.number(), bySeverity: counts, byKind: counts }),
  noiseRemoved: counts,
  failures: z.array(z.looseObject({ workspace: text, check: z.optional(z.enum(CHECKS)), reason: text })),
});

/**
 * A scanner's run handed to RecordFindings (pending-records.ts): the drafts of one scope and check,
 * before the lifecycle. Deployed scanners may not write current/ or history themselves.
 */
const pendingRecordSchema = z.looseObject({
  scanId: nonEmpty,
  workspace: nonEmpty,
  check: z.enum(CHECKS),
  outcome: z.enum(['ok', 'failed', 'busy', 'partial']),
  now: text,
  drafts: z.array(
    z.omit(findingSchema, {
      id: true,
      status: true,
      scanId: true,
      firstSeenAt: true,
      lastSeenAt: true,
    }),
  ),
});

/** What the publisher and the outbox need of a digest; the message itself is the chat payload. */
const digestSchema = z.looseObject({
  owner: nonEmpty,
  digestId: nonEmpty,
  message: z.looseObject({
    content: z.looseObject({ title: text, description: text }),
    metadata: z.looseObject({ summary: text }),
  }),
  attributes: z.looseObject({
    owner: nonEmpty,
    severity: z.enum(SEVERITIES),
    environment: z.array(text),
    kinds: z.array(text),
    digestId: nonEmpty,
  }),
  counts,
  // Audiences already sent; strings, not an enum: a newer driftwatch's audience is read, not quarantined.
  delivered: z.optional(z.array(text)),
});

/**
 * `notifications/sent/<digestId>.json`. Markers written before claims existed have `sentAt` and no
 * `state`: they mean sent.
 */
const sentMarkerSchema = z.looseObject({
  digestId: nonEmpty,
  state: z.optional(z.enum(['claimed', 'sent'])),
  claimedAt: z.optional(text),
  sentAt: z.optional(text),
});
export type SentMarker = z.infer<typeof sentMarkerSchema>;

export interface StoredSchema<T> {
  /** What the object is, for reasons a person reads: "current document", "outbox digest". */
  readonly what: string;
  /** Throws NewerStoreObjectError for an object of a newer driftwatch: it is not corrupt, it is not ours to judge. */
  parse(body: string): { ok: true; value: T } | { ok: false; reason: string };
}

/**
 * An object written by a newer driftwatch. It is not corrupt, and it must never be quarantined or
 * rewritten by this one: its findings, suppressions and regression memory would be lost. Every reader
 * stops on it with this error instead.
 */
export class NewerStoreObjectError extends Error {
  constructor(
    readonly what: string,
    readonly version: number,
    key?: string,
  ) {
    super(
      `${key ?? `a ${what}`} in the findings store was written by a newer driftwatch (store schema ${version}; this one reads up to ${STORE_SCHEMA_VERSION}): upgrade driftwatch before reading or scanning into this store`,
    );
    this.name = 'NewerStoreObjectError';
  }

  /** The same error naming the object's key (parse does not know it). */
  at(key: string): NewerStoreObjectError {
    return new NewerStoreObjectError(this.what, this.version, key);
  }
}

/** Throws NewerStoreObjectError for an object whose `schemaVersion` is not one this driftwatch knows. */
function assertKnownVersion(what: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || !('schemaVersion' in value)) return;
  const version = (value as { schemaVersion: unknown }).schemaVersion;
  if (typeof version === 'number' && Number.isInteger(version) && version >= 1) {
    if (version > STORE_SCHEMA_VERSION) throw new NewerStoreObjectError(what, version);
  }
}

function jsonSchema<T>(what: string, schema: z.ZodMiniType): StoredSchema<T> {
  return {
    what,
    parse(body) {
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch (error) {
        return { ok: false, reason: `not JSON (${jsonErrorWithoutExcerpt(error)})` };
      }
      assertKnownVersion(what, value);
      const parsed = schema.safeParse(value);
      return parsed.success
        ? { ok: true, value: value as T }
        : { ok: false, reason: firstIssue(parsed.error) };
    },
  };
}

/** JSON Lines: one finding a line; one bad line makes the file corrupt (a truncated write). */
function jsonLinesSchema(what: string, line: z.ZodMiniType): StoredSchema<Finding[]> {
  return {
    what,
    parse(body) {
      const findings: Finding[] = [];
      const lines = body.split('\n');
      for (const [index, text] of lines.entries()) {
        if (text.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (error) {
          return { ok: false, reason: `line ${index + 1} is not JSON (${jsonErrorWithoutExcerpt(error)})` };
        }
        const parsed = line.safeParse(value);
        if (!parsed.success) return { ok: false, reason: `line ${index + 1}: ${firstIssue(parsed.error)}` };
        findings.push(value as Finding);
      }
      return { ok: true, value: findings };
    },
  };
}

/**
 * JSON.parse's message without the excerpt of the text Node 20 quotes (`Unexpected token 'g',
 * "{"a": ghp_abcdef"... is not valid JSON`): the reason is printed, put in reports and in the
 * `store.corrupt-object` finding every digest carries, and the excerpt may be part of a secret.
 */
function jsonErrorWithoutExcerpt(error: unknown): string {
  const message = (error as Error).message;
  return message.replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
}

/** The first problem, with where it is: `findings[3].kind: Invalid option ...`. */
function firstIssue(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (!issue) return 'does not match its schema';
  const path = issue.path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
  return path ? `${path}: ${issue.message}` : issue.message;
}

export const STORED = {
  current: jsonSchema<CurrentDocument>('current document', currentDocumentSchema),
  history: jsonLinesSchema('history file', findingSchema),
  suppression: jsonSchema<{ id: string; scope: string }>('suppression record', suppressionRecordSchema),
  run: jsonSchema<WorkspaceRun>('run record', workspaceRunSchema),
  summary: jsonSchema<ScanSummary>('scan summary', summarySchema),
  // The Digest type lives in notify/; core/findings must not depend on it, the caller narrows.
  outbox: jsonSchema<unknown>('outbox digest', digestSchema),
  sentMarker: jsonSchema<SentMarker>('sent marker', sentMarkerSchema),
  pendingRecord: jsonSchema<PendingRecord>('pending record', pendingRecordSchema),
} as const;
