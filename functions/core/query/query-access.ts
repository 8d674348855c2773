import * as z from 'zod/mini';
import type { Finding } from '../findings/model.js';
import { effectiveOwner } from '../routing/finding-owner.js';

/**
 * Who may read whose findings through the findings API. API Gateway's IAM authorization proves who
 * the caller is (the request context carries the caller's ARN, not its principal tags), so the
 * mapping is configuration: ARN patterns per owner, and the admins who see every owner.
 */
export interface QueryAccess {
  /** ARN patterns (`*` any run of characters, `?` one) of callers who see every owner's findings. */
  admins: string[];
  /** Owner (team id) → ARN patterns of callers who see that owner's findings. */
  owners: Record<string, string[]>;
  /** Whose a finding without an owner is (the registry's fallback owner, as in digests). */
  fallbackOwner: string;
}

export type QueryScope = { all: true } | { all: false; owners: ReadonlySet<string> };

export class QueryAccessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryAccessError';
  }
}

const pattern = z.string().check(
  z.refine((value) => value === '*' || value.startsWith('arn:'), {
    message: "an ARN pattern starts with 'arn:' (or is '*' for every caller)",
  }),
);
const accessSchema = z.object({
  admins: z.array(pattern),
  owners: z.record(z.string().check(z.minLength(1)), z.array(pattern)),
  fallbackOwner: z.string().check(z.minLength(1)),
});

/** The configuration as the stack serialises it (DRIFTWATCH_QUERY_ACCESS); a bad one names the field. */
export function parseQueryAccess(text: string): QueryAccess {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new QueryAccessError(
      'query access is not JSON: {"admins":[...],"owners":{...},"fallbackOwner":"..."}',
    );
  }
  const parsed = accessSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new QueryAccessError(
      `query access ${issue?.path.map(String).join('.') || '(value)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

/** `*` any run of characters (slashes and colons included), `?` exactly one; the rest literal. */
export function matchesArnPattern(patternText: string, arn: string): boolean {
  const source = patternText
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(arn);
}

/**
 * The names a caller goes by: its ARN as API Gateway gives it, and for an assumed-role session
 * (`arn:aws:sts::<account>:assumed-role/<role>/<session>`) the role's IAM ARN, which is what people
 * write. The session ARN carries no role path: a pattern for a role with a path matches its name
 * with `*` (`arn:aws:iam::111111111111:role/*payments-readers`).
 */
export function callerNames(arn: string): string[] {
  const session = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  return session ? [arn, `arn:${session[1]}:iam::${session[2]}:role/${session[3]}`] : [arn];
}

/**
 * What one caller may see: everything (an admin), the owners whose patterns match, or nothing
 * (undefined). A caller without an ARN (no IAM authorization) sees nothing.
 */
export function callerScope(callerArn: string | undefined, access: QueryAccess): QueryScope | undefined {
  if (!callerArn) return undefined;
  const names = callerNames(callerArn);
  const matches = (patterns: readonly string[]) =>
    patterns.some((candidate) => names.some((name) => matchesArnPattern(candidate, name)));
  if (matches(access.admins)) return { all: true };
  const owners = Object.entries(access.owners)
    .filter(([, patterns]) => matches(patterns))
    .map(([owner]) => owner);
  return owners.length > 0 ? { all: false, owners: new Set(owners) } : undefined;
}

/**
 * Whose a finding is to the API, for who may see it and for `owner=` alike, as digests route it: its
 * owner, or the fallback owner for one without (a store.corrupt-object finding) or whose owner is no id.
 */
export function findingOwner(
  finding: Pick<Finding, 'owner'>,
  access: Pick<QueryAccess, 'fallbackOwner'>,
): string {
  return effectiveOwner(finding, { fallbackOwner: access.fallbackOwner });
}

/** Whether the caller may see this finding; one it may not is, to it, a finding that does not exist. */
export function isVisible(finding: Finding, scope: QueryScope, access: QueryAccess): boolean {
  return scope.all || scope.owners.has(findingOwner(finding, access));
}

/** The one-line answer to a caller who may see nothing: who they are, and where access is granted. */
export function noAccessMessage(callerArn: string | undefined): string {
  return callerArn
    ? `${callerArn} may read no owner's findings: add it (or a pattern) to queryAccess.admins or queryAccess.owners.<team> and deploy`
    : 'the request carries no IAM caller: sign it with SigV4 (the API uses IAM authorization)';
}
