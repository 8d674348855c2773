import { parseJsonObject } from '../backend/json-body.js';
import { redactedExcerpt } from '../redaction/secrets.js';

/**
 * Terraform's lock info (statemgr.LockInfo), as written to `<state key>.tflock` by the S3 backend
 * (`use_lockfile`) and to the `Info` attribute of a DynamoDB lock item:
 * `{"ID":"…","Operation":"OperationTypeApply","Info":"","Who":"ci@runner-7","Version":"1.11.4",
 *   "Created":"2026-11-29T01:12:03.123456789Z","Path":"tfstate/payments/terraform.tfstate"}`.
 */
export interface LockInfo {
  /** The ID as shown: redacted and capped like every field. */
  id: string;
  /**
   * Set when `id` is not the whole ID (it was longer than the cap, or held text that looks like a
   * secret): no command may name it, `terraform force-unlock` would be handed the wrong ID.
   */
  idIncomplete?: true;
  /** `OperationTypePlan`, `OperationTypeApply`, `OperationTypeRefresh`, or a command (`state-push`…). */
  operation?: string;
  info?: string;
  /** The holder, `user@host`. */
  who?: string;
  /** Terraform version of the holder. */
  version?: string;
  /** RFC 3339 (nanoseconds); missing or invalid means the lock's age cannot be proven. */
  created?: string;
  path?: string;
}

export type ParsedLock = { ok: true; lock: LockInfo } | { ok: false; reason: string };

/** Lock bodies come from anyone who can write the bucket: fields are redacted, then capped. */
const MAX_FIELD = 200;

/** Parses a lock body. Unreadable bodies give a reason that never quotes the body. */
export function parseLockInfo(body: string): ParsedLock {
  const parsed = parseJsonObject(body, 'the lock body');
  if (!parsed.ok) return parsed;
  const fields = parsed.value;
  const text = (name: string): string | undefined => {
    const value = fields[name];
    if (typeof value !== 'string' || value === '') return undefined;
    return redactedExcerpt(value, MAX_FIELD);
  };
  const id = text('ID');
  if (id === undefined) return { ok: false, reason: 'the lock body has no ID' };
  const lock: LockInfo = id === fields.ID ? { id } : { id, idIncomplete: true };
  const optional = [
    ['operation', 'Operation'],
    ['info', 'Info'],
    ['who', 'Who'],
    ['version', 'Version'],
    ['created', 'Created'],
    ['path', 'Path'],
  ] as const;
  for (const [field, name] of optional) {
    const value = text(name);
    if (value !== undefined) lock[field] = value;
  }
  return { ok: true, lock };
}

/** Terraform writes Created as RFC 3339 (Go's time.Time, nanoseconds). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
/** Go's zero time.Time, `0001-01-01T00:00:00Z`, is a Created never set; no Terraform lock predates 2014. */
const FIRST_TERRAFORM_MS = Date.UTC(2014, 0, 1);
/** Clocks disagree a little; a lock taken further ahead of our clock than this has no usable age. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * When the lock was taken, or undefined when Created cannot give its age: missing, not RFC 3339
 * (Date.parse reads `"1"` or `"12/31/1999"` as dates in 2000 or 2001, which made any state written
 * since look like a live writer's), or more than CLOCK_SKEW_MS ahead of `now` (a lock from 2099 was
 * young for ever). Either way the lock cannot be proven stale: it is reported as unreadable.
 */
export function lockCreatedAt(lock: LockInfo, now: Date): Date | undefined {
  return createdProblem(lock, now) === undefined ? new Date(Date.parse(lock.created!)) : undefined;
}

/** Why a lock's Created gives no age (`lockCreatedAt` is undefined), in the words of a finding. */
export function createdProblem(lock: LockInfo, now: Date): string | undefined {
  if (lock.created === undefined) return 'the lock has no Created time, so its age cannot be proven';
  const ms = rfc3339Ms(lock.created);
  if (ms === undefined)
    return 'the lock Created time is not an RFC 3339 time (Terraform writes one), so its age cannot be proven';
  if (ms < FIRST_TERRAFORM_MS)
    return 'the lock Created time is before Terraform existed (0001-01-01 is an unset time), so its age cannot be proven';
  if (ms > now.getTime() + CLOCK_SKEW_MS)
    return 'the lock Created time is in the future, so its age cannot be proven';
  return undefined;
}

/**
 * An RFC 3339 time on the calendar, or undefined. Date.parse rolls `2026-02-30` over to March 2 and
 * reads hour 24 as the next day; Go, and so Terraform, refuses both.
 */
function rfc3339Ms(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour] = match.slice(1, 5).map(Number) as [number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (hour > 23 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

export type OperationKind = 'plan' | 'apply' | 'default';

/** Which threshold applies: plan and apply have their own, every other command the default one. */
export function operationKind(operation: string | undefined): OperationKind {
  if (operation === 'OperationTypePlan') return 'plan';
  if (operation === 'OperationTypeApply') return 'apply';
  return 'default';
}

/** `OperationTypeApply` → `apply`; other commands as Terraform names them. */
export function operationLabel(operation: string | undefined): string {
  if (operation === undefined) return 'unknown operation';
  return operation.startsWith('OperationType')
    ? operation.slice('OperationType'.length).toLowerCase()
    : operation;
}
