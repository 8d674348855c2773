import type { BackendResourceRef, FindingDraft, Remediation, Severity } from '../findings/model.js';
import type { ObservedLock } from '../locks/observation.js';
import type { LockVerdict } from '../locks/proof.js';
import { INVISIBLE_CHARACTERS } from '../text/sanitize.js';
import type { Observed } from './ports.js';
import type { BucketSettingName, BucketSettings, PublicGrant } from './settings.js';
import type { StateHeader } from './state-document.js';
import type { Placement } from './target.js';

/**
 * Backend rules in the cdk-nag / Cloud Custodian style: one file per rule, a stable id, a severity,
 * an explanation, a remediation, the IAM read actions it needs, and a pure `evaluate` that turns
 * what was read into violations. The registered list is `BACKEND_RULES` (rules/index.ts).
 */
interface RuleInfo {
  id: string;
  kind: 'backend-policy' | 'state-integrity' | 'stale-lock';
  /** The check that runs the rule (and whose runs resolve its findings). */
  check: 'backend' | 'locks';
  severity: Severity;
  /** One line: what the rule checks (the rules table of docs/backends-and-locks.md). */
  checks: string;
  /** Why it matters; it opens the detail of every finding of the rule. */
  explanation: string;
  iamActions: readonly string[];
}

export interface BucketRule extends RuleInfo {
  target: 'bucket';
  /** Settings the rule reads: when one could not be read, the rule is reported as not evaluated. */
  reads: readonly BucketSettingName[];
  evaluate(subject: BucketSubject): Violation[];
}

export interface StateRule extends RuleInfo {
  target: 'state';
  /** Bucket settings the rule depends on: when one could not be read, it is reported as not evaluated. */
  reads?: readonly BucketSettingName[];
  evaluate(subject: StateSubject): Violation[];
}

export interface LockRule extends RuleInfo {
  target: 'lock';
  evaluate(subject: LockSubject): Violation[];
}

export type BackendRule = BucketRule | StateRule | LockRule;

/** One problem found by a rule; the rule adds kind, id and (unless overridden) severity. */
export interface Violation {
  resource: BackendResourceRef;
  /** No volatile values (ages, times): a title that changes every night makes the finding `changed`. */
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  remediation: Remediation;
  severity?: Severity;
  /**
   * Why this violation matters, when the rule's explanation does not fit it (a deletion is not a
   * corrupt write; a header out of Terraform's order is readable state): replaces it in the detail.
   */
  explanation?: string;
}

export interface LockTableFacts {
  table: string;
  /** Registry workspaces (or `--lock-table`) that configure it. */
  configuredBy: string[];
  /** State keys with a lock item and with a digest item (`<bucket>/<key>-md5`) in the table. */
  items: Observed<{ lockedStateKeys: string[]; digestStateKeys: string[] }>;
}

export interface BucketSubject {
  bucket: string;
  settings: BucketSettings;
  /** Default encryption must be SSE-KMS. */
  expectKms: boolean;
  /** State objects found in the bucket (for lifecycle coverage). */
  stateKeys: readonly string[];
  /** The size S3 listed for each state object (its current version), for size-filtered lifecycle rules. */
  stateObjectSizes?: ReadonlyMap<string, number>;
  lockTables: readonly LockTableFacts[];
}

export interface StateVersionFacts {
  /** Undefined in a bucket that was never versioned. */
  versionId?: string;
  lastModified?: string;
  header?: StateHeader;
  /**
   * Encrypted by OpenTofu (an `encryption` block): readable state whose lineage and serial only
   * its key can show, so the rules that compare them pass over this version.
   */
  encrypted?: true;
  /** Why this version is not valid state v4 JSON (never its content). */
  unreadable?: string;
  /**
   * The storage class of a version S3 will not serve until restored (`GLACIER`, `DEEP_ARCHIVE`…):
   * `unreadable` says so too.
   */
  archived?: string;
  /** A delete marker: the state object was deleted (`unreadable` says so too). */
  deleted?: true;
  /** Written right after a delete marker: the state object was deleted, then written anew. */
  recreated?: true;
  /**
   * Why this version's header was not read, though it may be valid state: its fields are beyond the
   * bytes driftwatch reads of a state (members in another order than Terraform's).
   */
  headerUnknown?: string;
  /** The header was not read because the version is in format 1-3 (Terraform 0.11 or older) without one. */
  legacyFormat?: true;
  /**
   * The grants of this version's object ACL to everyone or to any AWS account. Read only where object
   * ACLs are in effect (object ownership is not BucketOwnerEnforced, IgnorePublicAcls is off);
   * absent when none, or when they were not read.
   */
  publicGrants?: PublicGrant[];
  /**
   * The server-side encryption S3 reported when the version was read (`algorithm` undefined: none
   * reported); absent when its content was not read (a delete marker, an archived version).
   */
  serverSideEncryption?: { algorithm?: string; kmsKeyId?: string };
}

export interface StateSubject {
  bucket: string;
  key: string;
  /** The most recent versions, newest first; the first is the current state. */
  versions: readonly StateVersionFacts[];
  /** The state must be encrypted with SSE-KMS (the owning workspace's `requireKms`). */
  expectKms?: boolean;
  /** The KMS key of the bucket's default encryption, when it is SSE-KMS with a key named. */
  bucketKmsKeyId?: string;
}

export interface LockSubject {
  bucket: string;
  /** The lock at the first observation. */
  lock: ObservedLock;
  /**
   * The same lock (same state, ID and Created) in other places: the DynamoDB item of a lock whose
   * `.tflock` is `lock`, when the backend sets both `use_lockfile` and `dynamodb_table`. The verdict
   * holds for every place (core/locks/joint-locks.ts).
   */
  alsoHeldIn?: ObservedLock[];
  verdict: LockVerdict;
  firstObservedAt: string;
  secondObservedAt: string;
  /** Terraform CLI workspace of the state, for `terraform workspace select`. */
  cliWorkspace?: string;
}

export function ruleDraft(rule: RuleInfo, violation: Violation, placement: Placement): FindingDraft {
  const draft: FindingDraft = {
    kind: rule.kind,
    ruleId: rule.id,
    severity: violation.severity ?? rule.severity,
    workspace: placement.workspace,
    resource: violation.resource,
    title: violation.title,
    detail: `${violation.detail} ${violation.explanation ?? rule.explanation}`,
    evidence: violation.evidence,
    remediation: violation.remediation,
  };
  if (placement.owner !== undefined) draft.owner = placement.owner;
  if (placement.environment !== undefined) draft.environment = placement.environment;
  return draft;
}

export const READ_ONLY =
  'driftwatch only reads: the change goes through the review and pipeline that manage the state bucket.';

/**
 * Bucket rules fix the bucket's bootstrap configuration: a Terraform snippet, and the same with the
 * AWS CLI; `then`, the steps that follow either.
 */
export function bootstrapRemediation(
  summary: string,
  terraform: string,
  cli: string,
  then: readonly string[] = [],
): Remediation {
  return {
    summary,
    steps: [
      `Terraform, in the configuration that manages the state bucket:\n${terraform}`,
      `Or with the AWS CLI:\n${cli}`,
      ...then,
      READ_ONLY,
    ],
  };
}

/** An HCL string literal (bucket names and keys are plain, but quotes must never break the snippet). */
export function hcl(value: string): string {
  return JSON.stringify(value);
}

const UNSEEN_IN_SHELL = new RegExp(`[${INVISIBLE_CHARACTERS}]`);
const SHELL_ESCAPES: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  "'": "\\'",
  '\\': '\\\\',
};

/**
 * A word for the shell, always on one line: bare when plainly safe, else in single quotes. A value
 * with a line break, a control or an invisible character (a lock ID or state key is whatever its
 * writer put there) is written `$'…'` (bash, zsh) with each of those as an escape: in single quotes
 * a line break would split the command, and every body that lists commands line by line would
 * show the rest of the value as a command of its own.
 */
export function shellWord(value: string): string {
  if (/^[\w./:=@+-]+$/.test(value)) return value;
  if (!UNSEEN_IN_SHELL.test(value)) return `'${value.replace(/'/g, `'\\''`)}'`;
  const escaped = [...value].map((char) => {
    if (SHELL_ESCAPES[char]) return SHELL_ESCAPES[char];
    if (!UNSEEN_IN_SHELL.test(char)) return char;
    const code = char.charCodeAt(0);
    return code < 0x80
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${escaped.join('')}'`;
}
