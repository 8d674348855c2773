/**
 * The finding contract (DESIGN.md "Contracts"). Users, the HTTP API, Athena and tests depend on
 * these shapes: extend them, never rename or repurpose a field.
 */

export const FINDING_KINDS = [
  'terraform-drift',
  'pending-change',
  'scan-failed',
  'backend-policy',
  'state-integrity',
  'stale-lock',
  'cluster-drift',
  'ownership-conflict',
  'workspace-busy',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Ordered from most to least severe; index order is used for ranking. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FINDING_STATUSES = ['new', 'ongoing', 'changed', 'resolved', 'regressed', 'suppressed'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/**
 * `create` only ever appears on `pending-change` findings (configuration not yet applied). `move` is
 * never emitted: a refactor is not drift (a moved resource is an `update` at its new address with
 * `resource.movedFrom`, or an info finding without `drift`). It stays in the vocabulary because
 * stores written before that rule hold findings with it, and they must still be read.
 */
export const DRIFT_ACTIONS = ['update', 'delete', 'replace', 'move', 'create'] as const;
export type DriftAction = (typeof DRIFT_ACTIONS)[number];

export interface TerraformResourceRef {
  address: string;
  type: string;
  provider?: string;
  module?: string;
  /**
   * The address a `moved` block moved this resource from (the plan's `previous_address`). Not part
   * of the fingerprint: the finding follows the new address, and an open finding at the old
   * address is carried over to it.
   */
  movedFrom?: string;
}
export interface BackendResourceRef {
  bucket: string;
  key?: string;
  lockTable?: string;
  /**
   * The Terraform lock ID, on lock findings: the same lock keeps its finding across scans, and a
   * new lock on the same state is a new finding.
   */
  lockId?: string;
}
export interface ClusterResourceRef {
  app?: string;
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}
export type ResourceRef = TerraformResourceRef | BackendResourceRef | ClusterResourceRef;

/** JSON value as found in plans. Sensitive values never appear here: they are `(sensitive:<hash>)`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface AttributeChange {
  /** e.g. `tags.Owner`, `ingress[0].cidr_blocks[1]` */
  path: string;
  before: JsonValue;
  after: JsonValue;
  sensitive: boolean;
}

export interface DriftDetail {
  action: DriftAction;
  changes: AttributeChange[];
}

export interface Remediation {
  summary: string;
  steps: string[];
}

/** The check that produced a finding: a rerun of a check resolves only its own findings. */
export const CHECKS = ['terraform', 'backend', 'locks', 'cluster'] as const;
export type Check = (typeof CHECKS)[number];

export interface Suppression {
  reason: string;
  by: string;
  /** ISO date-time after which the finding reopens. */
  until: string;
  at: string;
}

export interface Finding {
  id: string;
  kind: FindingKind;
  ruleId: string;
  severity: Severity;
  status: FindingStatus;
  workspace: string;
  owner?: string;
  environment?: string;
  resource?: ResourceRef;
  drift?: DriftDetail;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  remediation: Remediation;
  scanId: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /**
   * Set by the lifecycle on a finding seen before: the previous run of its check that saw it. A
   * reminder is due once per period crossed since then (notify/digest.ts isReminderDue).
   */
  previousSeenAt?: string;
  /** Drift age: whole calendar days from firstSeenAt to lastSeenAt (set by the lifecycle). */
  ageDays?: number;
  /** Set by the lifecycle: which check produced it. */
  check?: Check;
  /** Hash of what the finding says (severity, title, changed values): a new hash means `changed`. */
  valueHash?: string;
  /** When a resolved finding came back (status regressed), when it had been resolved. */
  resolvedAt?: string;
  /** Set while a suppression is active (status suppressed); cleared when it expires. */
  suppression?: Suppression;
}

/** A finding as produced by a check, before the store assigns lifecycle fields. */
export type FindingDraft = Omit<
  Finding,
  | 'id'
  | 'status'
  | 'firstSeenAt'
  | 'lastSeenAt'
  | 'ageDays'
  | 'scanId'
  | 'check'
  | 'valueHash'
  | 'resolvedAt'
  | 'suppression'
>;

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** The more severe of two severities. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return severityRank(a) <= severityRank(b) ? a : b;
}

/** Moves a severity by `steps` levels (positive = more severe), clamped to critical..low; info stays info. */
export function shiftSeverity(severity: Severity, steps: number): Severity {
  if (severity === 'info') return 'info';
  const lowIndex = SEVERITIES.indexOf('low');
  const index = Math.min(lowIndex, Math.max(0, severityRank(severity) - steps));
  return SEVERITIES[index]!;
}

/** True when a finding should make the CLI exit 2 ("findings above info reported"). */
export function isAboveInfo(finding: Pick<Finding, 'severity'>): boolean {
  return finding.severity !== 'info';
}
