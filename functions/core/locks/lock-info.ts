import { parseJsonObject } from '../backend/json-body.js';
import { redactText } from '../redaction/secrets.js';

/**
 * Terraform's lock info (statemgr.LockInfo), as written to `<state key>.tflock` by the S3 backend
 * (`use_lockfile`) and to the `Info` attribute of a DynamoDB lock item:
 * `{"ID":"…","Operation":"OperationTypeApply","Info":"","Who":"ci@runner-7","Version":"1.11.4",
 *   "Created":"2026-11-29T01:12:03.123456789Z","Path":"tfstate/payments/terraform.tfstate"}`.
 */
export interface LockInfo {
  id: string;
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

/** Lock bodies come from anyone who can write the bucket: fields are capped and redacted. */
const MAX_FIELD = 200;

/** Parses a lock body. Unreadable bodies give a reason that never quotes the body. */
export function parseLockInfo(body: string): ParsedLock {
  const parsed = parseJsonObject(body, 'the lock body');
  if (!parsed.ok) return parsed;
  const fields = parsed.value;
  const text = (name: string): string | undefined => {
    const value = fields[name];
    if (typeof value !== 'string' || value === '') return undefined;
    return redactText(value.length > MAX_FIELD ? `${value.slice(0, MAX_FIELD)}…` : value);
  };
  const id = text('ID');
  if (id === undefined) return { ok: false, reason: 'the lock body has no ID' };
  const lock: LockInfo = { id };
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

/** When the lock was taken, or undefined when Created is missing or not a time. */
export function lockCreatedAt(lock: LockInfo): Date | undefined {
  if (lock.created === undefined) return undefined;
  const ms = Date.parse(lock.created);
  return Number.isNaN(ms) ? undefined : new Date(ms);
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
