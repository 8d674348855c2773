import type { JsonValue } from '../findings/model.js';

/**
 * The compacted plan: everything the evaluator needs from `terraform show -json`, and nothing else.
 * Values are already redacted (principle 7): a sensitive value is `(sensitive:<8 hex>)` here, so a
 * CompactPlan may be logged, cached or handed to other code without leaking secrets.
 */

export type PathSegment = string | number;

/** What Terraform prints for a value the apply will compute (`after_unknown`). */
export const UNKNOWN_VALUE = '(known after apply)';

export interface CompactAttributeChange {
  /** `tags.Owner`, `ingress[0].cidr_blocks[0]`, `policy.Statement[0].Action`; `''` is the whole value. */
  path: string;
  segments: PathSegment[];
  before: JsonValue;
  after: JsonValue;
  sensitive: boolean;
  /**
   * For a change of a collection whose elements companion resources declare one by one (a security
   * group's `ingress`): the keys of the elements it touches (companion-elements.ts). Never shown.
   */
  elementKeys?: readonly string[];
  /**
   * For a change inside one statement of an IAM policy document (`policy.Statement[0].Principal`):
   * the edit made that statement allow everyone (Allow, Principal `*`, no Condition) where it did
   * not before. An edit of its Principal alone does not show its Effect or Condition; the verdict is
   * kept rather than the statement, whose values (a Referer secret in a Condition) are not redacted.
   */
  opensStatementToEveryone?: true;
  /**
   * For a change inside one list element edited in place (`ingress[0].from_port`): the edit made
   * that rule entry admit from 0.0.0.0/0 or ::/0 what it did not before (world-open-entry.ts). The
   * member alone does not show the entry's sources or whether it allows.
   */
  opensEntryToTheWorld?: true;
  /**
   * A redacted change whose plain values were null on one side and an empty or zero value (`""`,
   * `[]`, `{}`, `false`, `0`) on the other: the `null-versus-empty` verdict kept before hashing hid
   * both (a secret-looking name such as `token_domains` going `null → []` after an apply).
   */
  nullVersusEmpty?: true;
}

export type ResourceMode = 'managed' | 'data';

export interface CompactChange {
  address: string;
  previousAddress?: string;
  type: string;
  name?: string;
  mode: ResourceMode;
  provider?: string;
  module?: string;
  actions: string[];
  actionReason?: string;
  changes: CompactAttributeChange[];
  /** Non-sensitive string tags of the resource (the applied side when known, else the planned side). */
  tags?: Record<string, string>;
  replacePaths?: string[];
  /** Non-sensitive identity/link attributes of the resource itself (see IDENTITY_ATTRIBUTES). */
  identity?: Partial<Record<IdentityAttribute, string>>;
  /** Set when the entry describes a deposed object (create_before_destroy leftovers). */
  deposed?: string;
  /** Set when the change imports an existing object (`import` blocks). */
  importing?: boolean;
  /** Why every attribute is hashed (a plan without sensitivity masks, a resource type that holds secrets). */
  redactionNote?: string;
}

export interface CompactOutputChange {
  name: string;
  actions: string[];
  changes: CompactAttributeChange[];
  /** True when Terraform marks the output sensitive on either side. */
  sensitive: boolean;
}

/**
 * Attribute values kept from `prior_state` (and from each change) to link companion resources to
 * their parents (`aws_s3_bucket_versioning.bucket` → `aws_s3_bucket.bucket`) and to classify rules
 * (`aws_security_group_rule.type`; the source CIDR of an `aws_vpc_security_group_ingress_rule`, so a
 * port or protocol change of a rule open to the world is judged as one). They are identifiers and
 * addresses, never secrets; any of them that Terraform marks sensitive is hashed.
 */
export const IDENTITY_ATTRIBUTES = [
  'bucket',
  'id',
  'name',
  'role',
  'security_group_id',
  'route_table_id',
  'network_acl_id',
  'type',
  'cidr_ipv4',
  'cidr_ipv6',
  // Kept only for the types that link by them (companions.ts, keepsIdentityAttribute).
  'arn',
  'queue_url',
  'key_id',
] as const;
export type IdentityAttribute = (typeof IDENTITY_ATTRIBUTES)[number];

export interface ManagedResource {
  address: string;
  type: string;
  values: Partial<Record<IdentityAttribute, string>>;
  /** What a companion declares in its parent's collections (companion-elements.ts). */
  companionKeys?: readonly string[];
  /** The parents a companion names in a list (`roles` of aws_iam_policy_attachment). */
  linkedParents?: readonly string[];
}

export interface CompactPlan {
  formatVersion: string;
  terraformVersion?: string;
  errored: boolean;
  complete: boolean;
  /** `resource_drift`: changes made outside Terraform (managed resources only). */
  drift: CompactChange[];
  /** `resource_changes`: what a normal plan would do (managed resources only, no plain no-ops). */
  changes: CompactChange[];
  outputChanges: CompactOutputChange[];
  /** Managed resources of `prior_state` (root and child modules). */
  managedResources: ManagedResource[];
  /**
   * `deferred_changes` (Terraform 1.9+ when deferral is allowed): changes left to a later plan because
   * what they depend on is unknown. Such a plan is incomplete; these say which and why.
   */
  deferred?: DeferredChanges;
  /**
   * `checks` whose status is `fail`: check blocks, and the conditions a refresh-only plan reports as
   * warnings. Their messages are redacted and cut (they interpolate live values).
   */
  failedChecks?: FailedCheck[];
}

export interface FailedCheck {
  /** `check.<name>`, or the resource, output or variable whose condition failed. */
  address: string;
  /** What kind of checkable object (`check`, `resource`, `output_value`, `var`). */
  kind: string;
  /** The distinct messages of its failing instances (at most MAX_CHECK_MESSAGES). */
  messages: string[];
  /** How many of its instances failed. */
  failedInstances: number;
}

export const MAX_CHECK_MESSAGES = 5;

export interface DeferredChanges {
  count: number;
  /** Terraform's reasons (`provider_config_unknown`, `instance_count_unknown`...), distinct, sorted. */
  reasons: string[];
  /** The first MAX_DEFERRED_ADDRESSES addresses, in plan order. */
  addresses: string[];
}

export const MAX_DEFERRED_ADDRESSES = 20;
