import { maxSeverity, type Severity, shiftSeverity } from '../findings/model.js';
import { isProductionEnvironment, type Policies, type SeverityOverride } from '../registry/model.js';
import { createGlobMatcher } from './glob.js';
import { isIamPolicyDocument, isPublicAllowStatement, parseJsonDocument } from './json-document.js';
import { isPlainObject } from './json-values.js';
import type { CompactAttributeChange, CompactChange } from './plan-model.js';
import { admitsFromAnywhere, isOpenCidr } from './world-open-entry.js';

/**
 * Severity of a Terraform finding, as four table-driven steps (docs/findings.md, "Severity rules"):
 * base by rule → content rules over the changed paths → environment → registry overrides.
 * Each step that changes the outcome adds a reason, stored in `evidence.severityReasons`.
 */

export type SeverityBase =
  | 'drift.update'
  | 'drift.delete'
  | 'drift.replace'
  | 'drift.moved'
  | 'drift.ignored-changes'
  | 'drift.output'
  | 'drift.check-failed'
  | 'pending.import'
  | 'pending.create'
  | 'pending.update'
  | 'pending.delete'
  | 'pending.replace';

export const BASE_SEVERITY: Readonly<Record<SeverityBase, Severity>> = {
  'drift.update': 'medium',
  'drift.delete': 'high',
  'drift.replace': 'high',
  // A refactor is not drift; a moved resource whose values changed is a plain drift.update.
  'drift.moved': 'info',
  // Terraform leaves these attributes alone by configuration: nothing to decide.
  'drift.ignored-changes': 'info',
  'drift.output': 'info',
  // An assertion the team wrote about the live infrastructure no longer holds.
  'drift.check-failed': 'medium',
  // An import adopts an existing object (an import that replaces it is pending.replace).
  'pending.import': 'info',
  'pending.create': 'low',
  'pending.update': 'medium',
  'pending.delete': 'high',
  'pending.replace': 'high',
};

export interface SeveritySubject {
  base: SeverityBase;
  ruleId: string;
  resource: Pick<CompactChange, 'address' | 'type' | 'identity'>;
  /** Whether the resource is gone (delete) — some rules look at what disappeared. */
  deleted: boolean;
  changes: readonly CompactAttributeChange[];
}

export interface SeverityContext {
  environment?: string | undefined;
  policies: Policies;
}

export interface SeverityDecision {
  severity: Severity;
  reasons: readonly string[];
}

interface ContentRule {
  id: string;
  severity: Severity;
  description: string;
  matches(subject: SeveritySubject): boolean;
}

const PUBLIC_BLOCK_FLAGS: ReadonlySet<string> = new Set([
  'block_public_acls',
  'block_public_policy',
  'ignore_public_acls',
  'restrict_public_buckets',
]);
// AWS counts a grant to AuthenticatedUsers (any AWS account in the world) as public, like AllUsers:
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html
const PUBLIC_ACLS: ReadonlySet<string> = new Set(['public-read', 'public-read-write', 'authenticated-read']);
const PUBLIC_GRANTEE_SUFFIXES = ['/global/AllUsers', '/global/AuthenticatedUsers'] as const;
/** AMIs: the provider reads the image's `Public` flag into a computed `public` attribute. */
export const AMI_TYPES: ReadonlySet<string> = new Set(['aws_ami', 'aws_ami_copy', 'aws_ami_from_instance']);
/**
 * Attributes holding a resource or trust policy document (bucket, queue, topic, key, repository
 * policies; role trust; OpenSearch access policies): a statement there can grant to everyone.
 */
const POLICY_DOCUMENT_ATTRIBUTES: ReadonlySet<string> = new Set([
  'policy',
  'assume_role_policy',
  'access_policies',
]);
export const PUBLIC_ACCESS_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'aws_s3_bucket_public_access_block',
  'aws_s3_account_public_access_block',
]);
const IAM_POLICY_ATTRIBUTES: ReadonlySet<string> = new Set([
  'policy',
  'assume_role_policy',
  'inline_policy',
  'managed_policy_arns',
  'policy_arn',
  // Who holds a policy or a group's policies: aws_iam_policy_attachment (roles, users, groups),
  // aws_iam_group_membership (users), aws_iam_user_group_membership (groups). A user added to a group
  // by hand gets its permissions as surely as a policy attached to it.
  'roles',
  'users',
  'groups',
]);
const ENCRYPTION_ATTRIBUTES: ReadonlySet<string> = new Set([
  'server_side_encryption_configuration',
  'kms_key_id',
  'kms_master_key_id',
  'encrypted',
  'storage_encrypted',
]);
/**
 * Attributes named for encryption that report a state AWS changes by itself (a Direct Connect port's
 * MACsec status, a cluster's encryption progress), not a setting someone changed.
 */
export const ENCRYPTION_STATUS_ATTRIBUTES: ReadonlySet<string> = new Set([
  'port_encryption_status',
  'encryption_details',
]);
/** Load balancer listeners, and the protocols that encrypt their traffic. */
export const LISTENER_TYPES: ReadonlySet<string> = new Set(['aws_lb_listener', 'aws_alb_listener']);
/**
 * TLS policies: which protocol versions and ciphers a listener (`ssl_policy`), an OpenSearch domain
 * (`domain_endpoint_options[0].tls_security_policy`), a CloudFront distribution
 * (`viewer_certificate[0].minimum_protocol_version`) or an API Gateway domain name (`security_policy`)
 * accepts.
 */
export const TLS_POLICY_ATTRIBUTES: ReadonlySet<string> = new Set([
  'ssl_policy',
  'tls_security_policy',
  'minimum_protocol_version',
]);
export const API_DOMAIN_TYPES: ReadonlySet<string> = new Set([
  'aws_api_gateway_domain_name',
  'aws_apigatewayv2_domain_name',
]);
const ENCRYPTED_PROTOCOLS: ReadonlySet<string> = new Set(['HTTPS', 'TLS']);
export const ENCRYPTION_TYPES: ReadonlySet<string> = new Set([
  'aws_s3_bucket_server_side_encryption_configuration',
  'aws_ebs_encryption_by_default',
]);
const TAG_ATTRIBUTES: ReadonlySet<string> = new Set(['tags', 'tags_all']);
/** Booleans whose true → false removes a guard against deleting or terminating the resource. */
export const DELETION_GUARD_FLAGS: ReadonlySet<string> = new Set([
  'deletion_protection', // aws_db_instance, aws_rds_cluster, DocumentDB, Neptune, QLDB
  'deletion_protection_enabled', // aws_dynamodb_table, aws_dsql_cluster
  'enable_deletion_protection', // aws_lb, aws_alb
  'disable_api_termination', // aws_instance, aws_launch_template
  'termination_protection', // aws_emr_cluster
  'termination_protection_enabled', // aws_cloudtrail_event_data_store
]);

/** KMS keys, and their booleans whose true → false disables the key or the rotation of its material. */
export const KMS_KEY_TYPES: ReadonlySet<string> = new Set([
  'aws_kms_key',
  'aws_kms_replica_key',
  'aws_kms_external_key',
]);
export const KMS_KEY_GUARDS: ReadonlySet<string> = new Set(['is_enabled', 'enabled', 'enable_key_rotation']);
/** aws_iam_account_password_policy: each requirement that, turned off, admits weaker console passwords. */
export const PASSWORD_REQUIREMENTS: ReadonlySet<string> = new Set([
  'require_lowercase_characters',
  'require_numbers',
  'require_symbols',
  'require_uppercase_characters',
]);
/** Numbers of aws_iam_account_password_policy that, lowered, admit weaker or reused passwords. */
export const PASSWORD_MINIMUMS: ReadonlySet<string> = new Set([
  'minimum_password_length',
  'password_reuse_prevention',
]);

/** The attribute that says how an API Gateway method (REST) or route (HTTP, WebSocket) is authorized. */
export const API_AUTHORIZATION_ATTRIBUTES: ReadonlyMap<string, string> = new Map([
  ['aws_api_gateway_method', 'authorization'],
  ['aws_apigatewayv2_route', 'authorization_type'],
]);
export const NETWORK_ACL_TYPES: ReadonlySet<string> = new Set(['aws_network_acl', 'aws_default_network_acl']);
export const ROUTE_TABLE_TYPES: ReadonlySet<string> = new Set(['aws_route_table', 'aws_default_route_table']);

/** Content rules, most severe first; every matching rule raises the severity to at least its own. */
export const CONTENT_RULES: readonly ContentRule[] = [
  {
    id: 'open-ingress',
    severity: 'critical',
    description: 'security group ingress opened to 0.0.0.0/0 or ::/0',
    matches: opensIngressToTheWorld,
  },
  {
    id: 'public-access',
    severity: 'critical',
    description:
      'public access (public access block off or removed, publicly_accessible, public ACL or grant, policy statement allowing everyone, public snapshot or AMI, function URL without auth, API method or route no longer authorized)',
    matches: grantsPublicAccess,
  },
  {
    id: 'network-exposure',
    severity: 'high',
    description:
      'network opened toward the internet (subnet assigning public IPs, network ACL allowing inbound from 0.0.0.0/0 or ::/0, default route to an internet gateway, EKS API endpoint made public or opened to 0.0.0.0/0)',
    matches: opensNetworkPath,
  },
  {
    id: 'iam-policy',
    severity: 'high',
    description: 'IAM policy document, attachment or group membership changed',
    matches: (subject) =>
      subject.changes.some((change) => {
        const top = change.segments[0];
        return (
          (top === 'policy' && !holdsOtherDocument(change)) ||
          (subject.resource.type.startsWith('aws_iam_') &&
            typeof top === 'string' &&
            IAM_POLICY_ATTRIBUTES.has(top))
        );
      }),
  },
  {
    id: 'protection-off',
    severity: 'high',
    description:
      'protection turned off (deletion or termination protection, S3 versioning suspended, DynamoDB point-in-time recovery off, CloudTrail logging stopped, GuardDuty disabled, IMDSv2 no longer required, ECR tags made mutable or scan on push off, KMS key disabled or its rotation off, account password policy weakened)',
    matches: turnsProtectionOff,
  },
  {
    id: 'encryption',
    severity: 'high',
    description:
      'encryption setting changed (at rest or in transit, a listener moved off HTTPS or TLS, a TLS policy replaced, a KMS alias moved to another key)',
    // A resource to be created lists every attribute it sets, encryption included: its encryption is a
    // choice its pull request shows, not a setting that changed (as protection-off, only a change counts).
    matches: (subject) =>
      subject.base !== 'pending.create' &&
      ((ENCRYPTION_TYPES.has(subject.resource.type) && (subject.deleted || subject.changes.length > 0)) ||
        // An alias moved to another key: whatever encrypts through the alias now uses that key,
        // whose policy may let others decrypt it.
        (subject.resource.type === 'aws_kms_alias' &&
          subject.changes.some((change) => change.segments[0] === 'target_key_id')) ||
        subject.changes.some(
          (change) =>
            (!isTagPath(change) && change.segments.some(isEncryptionSegment) && !turnsOn(change)) ||
            dropsListenerEncryption(subject.resource.type, change) ||
            replacesTlsPolicy(subject.resource.type, change),
        )),
  },
];

/**
 * A TLS policy replaced or removed by hand: whether the new one admits older protocols cannot be
 * told from its name alone (as a key id changed), so it counts. One set where there was none (a
 * listener moved to HTTPS) is TLS turned on.
 */
function replacesTlsPolicy(type: string, change: CompactAttributeChange): boolean {
  const last = change.segments.at(-1);
  if (typeof last !== 'string') return false;
  const policy =
    TLS_POLICY_ATTRIBUTES.has(last) || (last === 'security_policy' && API_DOMAIN_TYPES.has(type));
  return policy && typeof change.before === 'string' && change.before !== '';
}

/**
 * A switch turned on (`transit_encryption_enabled: false → true`): the live setting is the safer one,
 * drift to settle at its base severity, not an encryption weakened.
 */
function turnsOn(change: CompactAttributeChange): boolean {
  return change.before === false && change.after === true;
}

/** The members of an IAM policy document's root. */
const IAM_DOCUMENT_MEMBERS: ReadonlySet<string> = new Set(['Version', 'Id', 'Statement']);

/**
 * A `policy` attribute that holds a document other than an IAM policy: an ECR lifecycle policy
 * (`{"rules": [...]}`) decides which images expire, not who may do what. Seen by content: a change
 * inside the document names its root member (`policy.rules[0].selection`); a whole change has a side
 * that parses as a document without `Statement` and none that parses as one with it. Anything else
 * (hashed, not JSON) is taken for an IAM policy, as before.
 */
function holdsOtherDocument(change: CompactAttributeChange): boolean {
  if (change.sensitive) return false;
  const member = change.segments[1];
  if (member !== undefined) return typeof member === 'string' && !IAM_DOCUMENT_MEMBERS.has(member);
  let other = false;
  for (const side of [change.before, change.after]) {
    const document = typeof side === 'string' ? parseJsonDocument(side) : undefined;
    if (document === undefined) continue;
    if (isIamPolicyDocument(document)) return false;
    other = true;
  }
  return other;
}

function opensIngressToTheWorld(subject: SeveritySubject): boolean {
  const { type, identity } = subject.resource;
  return subject.changes.some((change) => {
    const top = change.segments[0];
    if (type === 'aws_security_group' || type === 'aws_default_security_group') {
      // A world-open block edited in place to let more through (443 → 22) shows only its ports: the
      // verdict on the change says what the block became.
      return (
        top === 'ingress' && (change.opensEntryToTheWorld === true || containsValue(change.after, isOpenCidr))
      );
    }
    if (type === 'aws_vpc_security_group_ingress_rule') {
      // Edited in place (ModifySecurityGroupRules keeps the rule id): a world-open rule that now lets
      // more through (443 → 22, all traffic) carries the verdict on the rule as it now stands.
      return (
        change.opensEntryToTheWorld === true ||
        ((top === 'cidr_ipv4' || top === 'cidr_ipv6') && isOpenCidr(change.after))
      );
    }
    if (type === 'aws_security_group_rule') {
      // Edited in place (ModifySecurityGroupRules): the rule as it now stands admits more from anywhere.
      if (change.opensEntryToTheWorld === true) return true;
      return (
        identity?.type === 'ingress' &&
        (top === 'cidr_blocks' || top === 'ipv6_cidr_blocks') &&
        containsValue(change.after, isOpenCidr)
      );
    }
    return false;
  });
}

/**
 * One layer between the internet and what runs inside opened, the others (security groups, the
 * API's own authentication) still standing: high, below an ingress opened to the world (critical).
 * Only a change counts, never a resource the next apply creates with it.
 */
function opensNetworkPath(subject: SeveritySubject): boolean {
  const { type } = subject.resource;
  if (subject.base === 'pending.create') return false;
  if (type === 'aws_subnet' || type === 'aws_default_subnet')
    return subject.changes.some((change) => turnedFromTo(change, 'map_public_ip_on_launch', false, [true]));
  if (NETWORK_ACL_TYPES.has(type)) return subject.changes.some((change) => addsWorldEntry(change, 'ingress'));
  // A default route to an internet gateway: the subnets of the table are public subnets now.
  if (ROUTE_TABLE_TYPES.has(type)) return subject.changes.some((change) => addsWorldEntry(change, 'route'));
  // A rule or route resource edited in place (ReplaceNetworkAclEntry, ReplaceRoute): judged whole.
  if (type === 'aws_network_acl_rule' || type === 'aws_route')
    return subject.changes.some((change) => change.opensEntryToTheWorld === true);
  if (type === 'aws_eks_cluster') {
    const inVpcConfig = (change: CompactAttributeChange) => change.segments[0] === 'vpc_config';
    // Public access turned off in the same change: AWS may answer 0.0.0.0/0 for a private endpoint.
    const madePrivate = subject.changes.some(
      (change) => inVpcConfig(change) && turnedFromTo(change, 'endpoint_public_access', true, [false]),
    );
    return subject.changes.some(
      (change) =>
        inVpcConfig(change) &&
        (turnedFromTo(change, 'endpoint_public_access', false, [true]) ||
          (!madePrivate &&
            change.segments.includes('public_access_cidrs') &&
            containsValue(change.after, isOpenCidr) &&
            !containsValue(change.before, isOpenCidr))),
    );
  }
  return false;
}

/**
 * An entry of `list` that lets the world in where there was none: a network ACL entry that allows
 * inbound traffic from 0.0.0.0/0 or ::/0, a route table's default route to an internet gateway. The
 * change holds the entry whole (one added by hand); a default ACL allows everything by design, so
 * only an entry added counts, never one that stayed. An entry edited in place shows only the members
 * that changed (`ingress[0].cidr_block` alone does not say whether the entry allows or denies): its
 * changes carry the verdict on the entry as it now stands (opensEntryToTheWorld).
 */
function addsWorldEntry(change: CompactAttributeChange, list: string): boolean {
  return (
    change.segments[0] === list &&
    (change.opensEntryToTheWorld === true ||
      (isWorldAllowEntry(change.after) && !isWorldAllowEntry(change.before)))
  );
}

function isWorldAllowEntry(value: unknown): boolean {
  return isPlainObject(value) && admitsFromAnywhere(value);
}

function grantsPublicAccess(subject: SeveritySubject): boolean {
  const { type } = subject.resource;
  if (PUBLIC_ACCESS_BLOCK_TYPES.has(type) && subject.deleted) return true;
  return subject.changes.some((change) => {
    const last = lastName(change);
    const after = change.after;
    // The attribute that changed, or one inside a whole block or created resource that changed.
    if (last !== undefined && isPublicSetting(last, after)) return true;
    if (AMI_TYPES.has(type) && last === 'public' && after === true) return true;
    if (type === 'aws_ami_launch_permission' && last === 'group' && after === 'all') return true;
    // A function URL with authorization NONE can be invoked by anyone on the internet.
    if (type === 'aws_lambda_function_url' && last === 'authorization_type' && after === 'NONE') return true;
    // So can an API method or route that required IAM, Cognito or an authorizer. Only a change from
    // authorized counts: public APIs are common, and one created open is a choice its pull request shows.
    if (
      last === API_AUTHORIZATION_ATTRIBUTES.get(type) &&
      after === 'NONE' &&
      typeof change.before === 'string' &&
      change.before !== 'NONE'
    )
      return true;
    if (isPolicyDocumentChange(change) && grantsToEveryone(after)) return true;
    // A statement edited in place into one that allows everyone (its Principal set to "*", its
    // Condition removed): the edit alone does not show Effect or Condition, the statement does.
    if (isPolicyDocumentChange(change) && change.opensStatementToEveryone) return true;
    return containsEntry(after, isPublicSetting);
  });
}

/** An attribute of any type whose value makes something public. */
function isPublicSetting(name: string, value: unknown): boolean {
  if (PUBLIC_BLOCK_FLAGS.has(name)) return value === false;
  if (name === 'publicly_accessible') return value === true;
  if (name === 'acl') return typeof value === 'string' && PUBLIC_ACLS.has(value);
  // A grantee changed in place (a paired grant whose group became AllUsers) shows only its uri.
  if (name === 'uri') return isPublicGranteeUri(value);
  // RDS shares a snapshot with everyone as the account "all" (ModifyDBSnapshotAttribute restore=all);
  // the provider reads it into shared_accounts of aws_db_snapshot, aws_db_cluster_snapshot and copies.
  if (name === 'shared_accounts') return containsValue(value, (account) => account === 'all');
  return false;
}

function isPublicGranteeUri(value: unknown): boolean {
  return typeof value === 'string' && PUBLIC_GRANTEE_SUFFIXES.some((suffix) => value.endsWith(suffix));
}

function isPolicyDocumentChange(change: CompactAttributeChange): boolean {
  const top = change.segments[0];
  return typeof top === 'string' && POLICY_DOCUMENT_ATTRIBUTES.has(top);
}

/**
 * The new value of a policy change holds a statement that allows everyone: `Effect: Allow`, Principal
 * `"*"` or `{"AWS": "*"}`, and no Condition (a Condition such as aws:SourceArn or aws:PrincipalOrgID
 * narrows `"*"` to a known caller, and a Deny with `"*"` is the usual TLS-only guard). It sees a
 * statement when the change holds it whole (a statement added, a policy set where there was none);
 * an edit of its members (`Statement[0].Principal` alone) is judged on the statement it sits in
 * (CompactAttributeChange.opensStatementToEveryone): one that did not allow everyone and now does.
 */
function grantsToEveryone(after: unknown): boolean {
  const document = typeof after === 'string' ? parseJsonDocument(after) : after;
  return containsValue(document, isPublicAllowStatement);
}

/**
 * A guard that was on is now off. Only a change from on to off counts: a resource created without
 * the guard (before is null) is a configuration choice a reviewer sees in the pull request.
 */
function turnsProtectionOff(subject: SeveritySubject): boolean {
  const { type } = subject.resource;
  return subject.changes.some((change) => {
    const { before, after, segments } = change;
    // IMDSv1 answered again (metadata_options of instances and launch templates, the account's
    // instance metadata defaults): any SSRF in the instance can read its role's credentials.
    if (turnedFromTo(change, 'http_tokens', 'required', ['optional', 'no-preference'])) return true;
    // A tag pushed again replaces the image every deployment of that tag runs.
    if (
      type === 'aws_ecr_repository' &&
      turnedFromTo(change, 'image_tag_mutability', 'IMMUTABLE', ['MUTABLE'])
    )
      return true;
    if (
      type === 'aws_ecr_repository' &&
      segments[0] === 'image_scanning_configuration' &&
      turnedFromTo(change, 'scan_on_push', true, [false])
    )
      return true;
    const last = segments.at(-1);
    if (typeof last !== 'string') return false;
    if (type === 'aws_iam_account_password_policy' && PASSWORD_MINIMUMS.has(last))
      return (
        typeof before === 'number' &&
        before > 0 &&
        (after === null || (typeof after === 'number' && after < before))
      );
    if (before === true && after === false) {
      // A disabled key cannot decrypt what it protects (the step before deletion); rotation off keeps
      // key material beyond the period compliance asks for.
      if (KMS_KEY_TYPES.has(type) && KMS_KEY_GUARDS.has(last)) return true;
      if (type === 'aws_iam_account_password_policy' && PASSWORD_REQUIREMENTS.has(last)) return true;
      if (DELETION_GUARD_FLAGS.has(last)) return true;
      // StopLogging and a disabled detector are how an intruder hides; both read as plain booleans.
      if (type === 'aws_cloudtrail' && last === 'enable_logging') return true;
      if (type === 'aws_guardduty_detector' && last === 'enable') return true;
      // aws_s3_bucket's own versioning block (no aws_s3_bucket_versioning companion).
      if (type === 'aws_s3_bucket' && segments[0] === 'versioning' && last === 'enabled') return true;
      // UpdateContinuousBackups off: the table can no longer be restored to before a bad write or delete.
      if (type === 'aws_dynamodb_table' && segments[0] === 'point_in_time_recovery' && last === 'enabled')
        return true;
    }
    if (type === 'aws_s3_bucket_versioning' && last === 'status')
      return before === 'Enabled' && after === 'Suspended';
    if (type === 'aws_cognito_user_pool' && last === 'deletion_protection')
      return before === 'ACTIVE' && after === 'INACTIVE';
    return false;
  });
}

/**
 * The attribute `name` went from `on` to one of `offs`: a change of the attribute itself, or of a whole
 * block that holds it on both sides. A side without it (a block added where there was none) is no
 * change from on, so a resource created without the guard is not escalated.
 */
function turnedFromTo(
  change: CompactAttributeChange,
  name: string,
  on: unknown,
  offs: readonly unknown[],
): boolean {
  const before = memberNamed(change, change.before, name);
  return before === on && offs.includes(memberNamed(change, change.after, name));
}

function memberNamed(change: CompactAttributeChange, side: unknown, name: string): unknown {
  if (change.segments.at(-1) === name) return side;
  const block = Array.isArray(side) && side.length === 1 ? side[0] : side;
  return isPlainObject(block) ? block[name] : undefined;
}

function lastName(change: CompactAttributeChange): string | undefined {
  for (let index = change.segments.length - 1; index >= 0; index--) {
    const segment = change.segments[index];
    if (typeof segment === 'string') return segment;
  }
  return undefined;
}

function containsValue(value: unknown, predicate: (value: unknown) => boolean): boolean {
  if (predicate(value)) return true;
  if (Array.isArray(value)) return value.some((item) => containsValue(item, predicate));
  if (isPlainObject(value)) return Object.values(value).some((item) => containsValue(item, predicate));
  return false;
}

function containsEntry(value: unknown, predicate: (key: string, value: unknown) => boolean): boolean {
  if (Array.isArray(value)) return value.some((item) => containsEntry(item, predicate));
  if (!isPlainObject(value)) return false;
  return Object.entries(value).some(([key, item]) => predicate(key, item) || containsEntry(item, predicate));
}

/**
 * A name that says encryption: the exact names above, `sse_*`, and any name holding `encrypt`
 * (`transit_encryption_enabled` of ElastiCache, `at_rest_encryption_enabled`, OpenSearch's
 * `encrypt_at_rest` and `node_to_node_encryption`, MSK's `encryption_info`, `encryption_configuration`
 * of ECR, Athena, EKS...), so the provider's next encryption switch is one without a new entry here.
 */
function isEncryptionSegment(segment: string | number): boolean {
  return (
    typeof segment === 'string' &&
    (ENCRYPTION_ATTRIBUTES.has(segment) ||
      segment.startsWith('sse_') ||
      (segment.includes('encrypt') && !ENCRYPTION_STATUS_ATTRIBUTES.has(segment)))
  );
}

/** A listener that served HTTPS or TLS now serves plain HTTP or TCP: traffic crosses the network in clear. */
function dropsListenerEncryption(type: string, change: CompactAttributeChange): boolean {
  return (
    LISTENER_TYPES.has(type) &&
    change.segments.length === 1 &&
    change.segments[0] === 'protocol' &&
    typeof change.before === 'string' &&
    ENCRYPTED_PROTOCOLS.has(change.before) &&
    typeof change.after === 'string' &&
    !ENCRYPTED_PROTOCOLS.has(change.after)
  );
}

function isTagPath(change: CompactAttributeChange): boolean {
  const top = change.segments[0];
  return typeof top === 'string' && TAG_ATTRIBUTES.has(top);
}

function isTagsOnlyUpdate(subject: SeveritySubject): boolean {
  const isUpdate = subject.base === 'drift.update' || subject.base === 'pending.update';
  return isUpdate && subject.changes.length > 0 && subject.changes.every(isTagPath);
}

// Reasons are built once: thousands of findings share them.
const BASE_REASONS = new Map(
  Object.entries(BASE_SEVERITY).map(([base, severity]) => [base, `base: ${base} is ${severity}`]),
);
const RULE_REASONS = new Map(
  CONTENT_RULES.map((rule) => [rule, `${rule.id}: ${rule.description}: ${rule.severity}`]),
);
const TAGS_ONLY_REASON = 'only tags changed: low';

/** Content rules whose drift leaves something open, public or unguarded while it stays. */
const EXPOSURE_RULES: ReadonlySet<string> = new Set([
  'open-ingress',
  'public-access',
  'network-exposure',
  'protection-off',
]);
const EXPOSURE_REASONS: ReadonlySet<string> = new Set(
  CONTENT_RULES.filter((rule) => EXPOSURE_RULES.has(rule.id)).map((rule) => RULE_REASONS.get(rule)!),
);

/** Whether a content rule that exposes something (open, public, a guard off) raised this decision. */
export function raisedByExposure(decision: SeverityDecision): boolean {
  return decision.reasons.some((reason) => EXPOSURE_REASONS.has(reason));
}
const OUTCOME_SPAN = 2 ** (CONTENT_RULES.length + 1);
const BASE_INDEX = new Map(Object.keys(BASE_SEVERITY).map((base, index) => [base, index]));

export type SeverityDecider = (subject: SeveritySubject) => SeverityDecision;

/**
 * A decider for one evaluation context. The inputs that shape a decision (base, matched rules,
 * environment, override) take few distinct values, so decisions — reasons included — are shared
 * between findings (frozen) instead of rebuilt for each of thousands of resources.
 */
export function createSeverityDecider(context: SeverityContext): SeverityDecider {
  const production =
    context.environment === undefined || isProductionEnvironment(context.environment, context.policies);
  const { overrides } = context.policies.severity;
  const findOverride = severityOverrideFinder(overrides, context.environment);
  const cache = new Map<number, SeverityDecision>();

  return (subject) => {
    let outcome = 0;
    if (BASE_SEVERITY[subject.base] !== 'info') {
      if (isTagsOnlyUpdate(subject)) outcome |= 1;
      CONTENT_RULES.forEach((rule, index) => {
        if (rule.matches(subject)) outcome |= 2 << index;
      });
    }
    const overrideIndex = findOverride(subject.ruleId, subject.resource.address);
    // outcome has 1 + CONTENT_RULES.length bits; the override index (-1..n) goes above them.
    const key =
      (BASE_INDEX.get(subject.base)! * (overrides.length + 1) + overrideIndex + 1) * OUTCOME_SPAN + outcome;
    let decision = cache.get(key);
    if (decision === undefined) {
      decision = decide(
        subject.base,
        outcome,
        production ? undefined : context.environment,
        overrides[overrideIndex],
      );
      Object.freeze(decision.reasons);
      cache.set(key, Object.freeze(decision));
    }
    return decision;
  };
}

/**
 * The registry's severity overrides in one environment, globs compiled once: the index of the first
 * override that matches a rule id and an address (Terraform's, or a cluster object's), else -1.
 */
export function severityOverrideFinder(
  overrides: readonly SeverityOverride[],
  environment: string | undefined,
): (ruleId: string, address: string) => number {
  const matchers = overrides.map((override) => {
    const inEnvironment = override.environment === undefined || override.environment === environment;
    const matchesRule = override.ruleId === undefined ? undefined : createGlobMatcher(override.ruleId);
    const matchesAddress = override.address === undefined ? undefined : createGlobMatcher(override.address);
    return (ruleId: string, address: string) =>
      inEnvironment &&
      (matchesRule === undefined || matchesRule(ruleId)) &&
      (matchesAddress === undefined || matchesAddress(address));
  });
  return (ruleId, address) => matchers.findIndex((matches) => matches(ruleId, address));
}

/** One-off decision (tests, single findings). */
export function decideSeverity(subject: SeveritySubject, context: SeverityContext): SeverityDecision {
  return createSeverityDecider(context)(subject);
}

/** The four steps, from the facts gathered about a subject: bit 0 tags-only, bit n+1 content rule n. */
function decide(
  base: SeverityBase,
  outcome: number,
  nonProductionEnvironment: string | undefined,
  override: SeverityOverride | undefined,
): SeverityDecision {
  let severity = BASE_SEVERITY[base];
  const reasons: string[] = [BASE_REASONS.get(base)!];
  if (outcome & 1) {
    severity = 'low';
    reasons.push(TAGS_ONLY_REASON);
  }
  CONTENT_RULES.forEach((rule, index) => {
    if ((outcome & (2 << index)) === 0) return;
    severity = maxSeverity(severity, rule.severity);
    reasons.push(RULE_REASONS.get(rule)!);
  });
  // info findings (a clean move, an output) are informational whatever their environment.
  if (nonProductionEnvironment !== undefined && severity !== 'info') {
    const lowered = shiftSeverity(severity, -1);
    if (lowered !== severity) {
      reasons.push(`environment ${nonProductionEnvironment} is not production: ${severity} → ${lowered}`);
    }
    severity = lowered;
  }
  if (override) {
    reasons.push(`registry override: ${override.severity}`);
    severity = override.severity;
  }
  return { severity, reasons };
}
