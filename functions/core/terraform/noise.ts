import type { IgnoreRule, Policies } from '../registry/model.js';
import { EQUIVALENT_JSON_CHANGES } from './attribute-diff.js';
import { formatPath } from './attribute-path.js';
import { sameProtocol } from './companion-elements.js';
import { type CompanionIndex, createCompanionIndex } from './companions.js';
import { createGlobMatcher } from './glob.js';
import { jsonDocumentsEquivalent, parseJsonDocument } from './json-document.js';
import { deepEqual, isNullish, isNullVersusEmpty, isPlainObject } from './json-values.js';
import type { CompactAttributeChange, CompactChange, CompactPlan } from './plan-model.js';

/**
 * The noise normaliser: one ordered list of named rules, each removing (or folding) attribute
 * changes that are not drift. Every removal is recorded, so a reviewer can see what was dropped and
 * why. Rules are switched on and off by `policies.noise`; `ignore` follows `policies.ignore`.
 */

export type NoiseRuleName =
  | 'fold-tags-all'
  | 'null-versus-empty'
  | 'equivalent-json'
  | 'equivalent-protocol'
  | 'companion-attributes'
  | 'volatile-attributes'
  | 'ignore';

export interface NoiseSubject extends Pick<CompactChange, 'address' | 'type' | 'identity'> {
  changes: readonly CompactAttributeChange[];
}

export interface NoiseRemoval {
  rule: NoiseRuleName;
  paths: string[];
  /** For `ignore`: the registry's reason. */
  reason?: string;
}

export interface NoiseOutcome {
  changes: readonly CompactAttributeChange[];
  removed: NoiseRemoval[];
}

interface NoiseEnvironment {
  policies: Policies;
  companions: CompanionIndex;
  ignoreRules: readonly ActiveIgnoreRule[];
}

interface ActiveIgnoreRule {
  matchesAddress: (address: string) => boolean;
  matchesPath: (path: string) => boolean;
  reason: string;
}

/**
 * A rule returns the changes it keeps (the same array when it removes nothing, so the common case
 * allocates nothing) and appends what it removed to `removed`.
 */
interface NoiseRule {
  name: NoiseRuleName;
  enabled(policies: Policies): boolean;
  apply(
    subject: NoiseSubject,
    changes: readonly CompactAttributeChange[],
    environment: NoiseEnvironment,
    removed: NoiseRemoval[],
  ): readonly CompactAttributeChange[];
}

/** Removes the changes for which `isNoise` holds and records them under `name`. */
function removeWhere(
  name: NoiseRuleName,
  changes: readonly CompactAttributeChange[],
  removed: NoiseRemoval[],
  isNoise: (change: CompactAttributeChange) => boolean,
  reason?: string,
): readonly CompactAttributeChange[] {
  let first = 0;
  while (first < changes.length && !isNoise(changes[first]!)) first++;
  if (first === changes.length) return changes;
  const kept = changes.slice(0, first);
  const paths = [changes[first]!.path];
  for (let index = first + 1; index < changes.length; index++) {
    const change = changes[index]!;
    if (isNoise(change)) paths.push(change.path);
    else kept.push(change);
  }
  removed.push(reason === undefined ? { rule: name, paths } : { rule: name, paths, reason });
  return kept;
}

function filterRule(
  name: NoiseRuleName,
  enabled: (policies: Policies) => boolean,
  isNoise: (change: CompactAttributeChange) => boolean,
): NoiseRule {
  return {
    name,
    enabled,
    apply: (_subject, changes, _environment, removed) => removeWhere(name, changes, removed, isNoise),
  };
}

/**
 * `tags_all.K` repeats `tags.K` (or carries a provider default tag, or shows a default tag that was
 * set by hand leave its default): report it once, as `tags.K`.
 */
const foldTagsAll: NoiseRule = {
  name: 'fold-tags-all',
  enabled: (policies) => policies.noise.foldTagsAll,
  apply(_subject, changes, _environment, removed) {
    if (!changes.some((change) => change.segments[0] === 'tags_all')) return changes;
    const byPath = new Map(changes.map((change) => [change.path, change]));
    const kept: CompactAttributeChange[] = [];
    const folded: string[] = [];
    // A provider default tag set by hand: `tags` gains the key (null → new) while `tags_all` shows it
    // leave the default (default → new). One change, from the default, as `tags.K`.
    const fromDefault = new Map<CompactAttributeChange, CompactAttributeChange>();
    for (const change of changes) {
      if (change.segments[0] !== 'tags_all') {
        kept.push(change);
        continue;
      }
      const segments = ['tags', ...change.segments.slice(1)];
      const path = formatPath(segments);
      const twin = byPath.get(path);
      if (twin === undefined) {
        kept.push({ ...change, path, segments });
        byPath.set(path, change);
        folded.push(change.path);
      } else if (deepEqual(twin.after, change.after) && deepEqual(twin.before, change.before)) {
        folded.push(change.path);
      } else if (
        deepEqual(twin.after, change.after) &&
        isNullish(twin.before) &&
        twin.segments.length > 1 &&
        twin.sensitive === change.sensitive
      ) {
        fromDefault.set(twin, { ...twin, before: change.before });
        folded.push(change.path);
      } else {
        kept.push(change);
      }
    }
    const whole = wholeTagsCoveredByKeys(kept);
    if (whole !== undefined) folded.push(whole.path);
    if (folded.length > 0) removed.push({ rule: 'fold-tags-all', paths: folded });
    const result = whole === undefined ? kept : kept.filter((change) => change !== whole);
    return fromDefault.size === 0 ? result : result.map((change) => fromDefault.get(change) ?? change);
  },
};

/**
 * A resource applied without tags holds `tags = null` in its state: a first tag added by hand is then
 * `tags: null → {K: v}` whole, beside `tags_all.K: null → v` per key (its `tags_all` was `{}`, or held a
 * provider default tag K), which folds to `tags.K`. The same tag twice: the whole change is dropped when
 * the per-key changes cover exactly its keys with its values, as for a resource with tags.
 */
function wholeTagsCoveredByKeys(kept: readonly CompactAttributeChange[]): CompactAttributeChange | undefined {
  const whole = kept.find((change) => change.path === 'tags' && change.segments.length === 1);
  if (whole === undefined || whole.sensitive) return undefined;
  const added = isNullish(whole.before) && isPlainObject(whole.after);
  const dropped = isPlainObject(whole.before) && isNullish(whole.after);
  if (!added && !dropped) return undefined;
  const tags = (added ? whole.after : whole.before) as Record<string, unknown>;
  const keys = Object.keys(tags);
  if (keys.length === 0) return undefined;
  const perKey = kept.filter((change) => change.segments[0] === 'tags' && change.segments.length === 2);
  if (perKey.length !== keys.length) return undefined;
  // Each key's per-key change ends (or, removed, starts) at the value the whole change shows; it may
  // start from a provider default tag's value (`tags_all` held the default) rather than from nothing.
  const covered = keys.every((key) => {
    const change = perKey.find((candidate) => candidate.segments[1] === key);
    if (change === undefined || change.sensitive) return false;
    return deepEqual(added ? change.after : change.before, tags[key]);
  });
  // The per-key changes can only be folded tags_all ones: the diff never gives `tags` whole and by key.
  return covered ? whole : undefined;
}

/**
 * Attributes that only the provider sets and that AWS moves on by itself, with nobody changing the
 * object: RDS advances `latest_restorable_time` every few minutes, an AMI's `last_launched_time` moves
 * whenever someone launches it, Glue stamps a partition when it is read, EKS moves clusters to new
 * platform versions, engines take minor versions and patches in their maintenance windows
 * (`engine_version_actual`; the configured `engine_version` is still compared), ACM issues a certificate
 * once its validation record resolves (the apply stored `PENDING_VALIDATION`; an
 * `aws_acm_certificate_validation` waits for `ISSUED` but writes nothing into the certificate's state)
 * and renews it, Route 53 renews its domains, scheduled pipelines and queries run, an IAM policy counts
 * the roles, users and groups it is attached to (an attachment made in the same apply as the policy
 * shows at the next refresh), a CloudFront
 * distribution applied without waiting becomes `Deployed`. Every refresh-only plan shows them
 * changed (`lifecycle.ignore_changes` cannot hide them: Terraform warns that it has no effect on
 * attributes the provider alone decides), and there is nothing to revert or adopt. Each is a
 * computed-only attribute of the AWS provider (test/integration/provider-schema.test.ts checks the
 * names against its schema); nested ones (`renewal_summary`) go whole.
 */
export const VOLATILE_ATTRIBUTES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    aws_db_instance: ['latest_restorable_time', 'engine_version_actual'],
    aws_rds_cluster: ['engine_version_actual'],
    aws_rds_cluster_instance: ['engine_version_actual'],
    aws_rds_global_cluster: ['engine_version_actual'],
    aws_elasticache_cluster: ['engine_version_actual'],
    aws_elasticache_replication_group: ['engine_version_actual'],
    aws_elasticache_global_replication_group: ['engine_version_actual'],
    aws_elasticache_serverless_cache: ['full_engine_version'],
    aws_memorydb_cluster: ['engine_patch_version'],
    aws_eks_cluster: ['platform_version'],
    aws_acm_certificate: ['not_after', 'not_before', 'renewal_eligibility', 'renewal_summary', 'status'],
    aws_route53domains_registered_domain: ['expiration_date'],
    aws_route53domains_domain: ['expiration_date'],
    aws_cloudfront_distribution: ['status'],
    aws_imagebuilder_image_pipeline: ['date_last_run'],
    aws_timestreamquery_scheduled_query: ['next_invocation_time', 'previous_invocation_time'],
    aws_lambda_event_source_mapping: ['last_processing_result'],
    aws_ami: ['last_launched_time'],
    aws_ami_copy: ['last_launched_time'],
    aws_ami_from_instance: ['last_launched_time'],
    aws_glue_partition: ['last_accessed_time', 'last_analyzed_time'],
    aws_iam_policy: ['attachment_count'],
  }).map(([type, attributes]) => [type, new Set(attributes)]),
);

const volatileAttributes: NoiseRule = {
  name: 'volatile-attributes',
  enabled: (policies) => policies.noise.volatileAttributes,
  apply(subject, changes, _environment, removed) {
    const volatile = VOLATILE_ATTRIBUTES.get(subject.type);
    if (volatile === undefined) return changes;
    return removeWhere('volatile-attributes', changes, removed, (change) => {
      const top = change.segments[0];
      return typeof top === 'string' && volatile.has(top);
    });
  },
};

/** Redacted changes carry the verdict the differ reached on their plain values (nullVersusEmpty). */
const nullVersusEmpty = filterRule(
  'null-versus-empty',
  (policies) => policies.noise.nullVersusEmpty,
  (change) => change.nullVersusEmpty === true || isNullVersusEmpty(change.before, change.after),
);

const equivalentJson = filterRule(
  'equivalent-json',
  (policies) => policies.noise.equivalentJson,
  (change) => {
    if (typeof change.before !== 'string' || typeof change.after !== 'string') return false;
    if (EQUIVALENT_JSON_CHANGES.has(change)) return true;
    // Sensitive documents are hashed by content, so equivalent ones hash the same.
    if (change.sensitive) return change.before === change.after;
    const before = parseJsonDocument(change.before);
    const after = before && parseJsonDocument(change.after);
    return before !== undefined && after !== undefined && jsonDocumentsEquivalent(before, after);
  },
);

/** Attributes that hold a rule's IP protocol, by name or by number. */
const PROTOCOL_ATTRIBUTES: ReadonlySet<string> = new Set(['protocol', 'ip_protocol']);

/**
 * A rule's protocol written as a name and read back as its number, or the reverse: `tcp` → `6`,
 * `all` → `-1`. The network ACL API speaks only numbers, so an `aws_network_acl` rule (or an
 * `aws_network_acl_rule`) configured with `protocol = "tcp"` shows `tcp → 6` at the first refresh
 * after every apply (the provider matches them by number, so no plan proposes a change). A protocol
 * that did change (`6` → `17`, `tcp` → `-1`) is kept.
 */
const equivalentProtocol = filterRule(
  'equivalent-protocol',
  (policies) => policies.noise.equivalentProtocols,
  (change) => {
    const last = change.segments.at(-1);
    return (
      typeof last === 'string' &&
      PROTOCOL_ATTRIBUTES.has(last) &&
      !change.sensitive &&
      change.before !== change.after &&
      sameProtocol(change.before, change.after)
    );
  },
);

const companionAttributes: NoiseRule = {
  name: 'companion-attributes',
  enabled: (policies) => policies.noise.companionAttributes,
  apply(subject, changes, environment, removed) {
    const managed = environment.companions.managedAttributes(subject);
    if (managed.size === 0) return changes;
    return removeWhere('companion-attributes', changes, removed, (change) => {
      const top = change.segments[0];
      if (typeof top !== 'string' || !managed.has(top)) return false;
      const declared = managed.get(top);
      // Managed whole (a bucket's versioning), or element by element: noise only when every element
      // the change touches is one a companion declares (a rule added by hand is drift).
      return declared === undefined || (change.elementKeys?.every((key) => declared.has(key)) ?? false);
    });
  },
};

const ignore: NoiseRule = {
  name: 'ignore',
  enabled: (policies) => policies.ignore.length > 0,
  apply(subject, changes, environment, removed) {
    let kept = changes;
    for (const rule of environment.ignoreRules) {
      if (!rule.matchesAddress(subject.address)) continue;
      kept = removeWhere(
        'ignore',
        kept,
        removed,
        (change) => pathOrAncestorMatches(change, rule.matchesPath),
        rule.reason,
      );
    }
    return kept;
  },
};

/** An ignore path also covers what is under it: `versioning` ignores `versioning[0].enabled`. */
function pathOrAncestorMatches(change: CompactAttributeChange, matches: (path: string) => boolean): boolean {
  if (matches(change.path)) return true;
  for (let length = 1; length < change.segments.length; length++) {
    if (matches(formatPath(change.segments.slice(0, length)))) return true;
  }
  return false;
}

/** Applied in this order: folding first, so later rules see each tag once. */
export const NOISE_RULES: readonly NoiseRule[] = [
  foldTagsAll,
  nullVersusEmpty,
  equivalentJson,
  equivalentProtocol,
  companionAttributes,
  volatileAttributes,
  ignore,
];

export type NoiseNormaliser = (subject: NoiseSubject) => NoiseOutcome;

export function createNoiseNormaliser(
  plan: Pick<CompactPlan, 'managedResources'>,
  policies: Policies,
  now: Date,
): NoiseNormaliser {
  const environment: NoiseEnvironment = {
    policies,
    companions: createCompanionIndex(plan.managedResources),
    ignoreRules: activeIgnoreRules(policies.ignore, now),
  };
  const rules = NOISE_RULES.filter((rule) => rule.enabled(policies));
  return (subject) => {
    let changes = subject.changes;
    const removed: NoiseRemoval[] = [];
    for (const rule of rules) {
      if (changes.length === 0) break;
      changes = rule.apply(subject, changes, environment, removed);
    }
    return { changes, removed };
  };
}

/** `until` is the last day a rule applies (inclusive, UTC); an expired rule no longer hides drift. */
export function activeIgnoreRules(rules: readonly IgnoreRule[], now: Date): ActiveIgnoreRule[] {
  const today = now.toISOString().slice(0, 10);
  return rules
    .filter((rule) => rule.until === undefined || today <= rule.until)
    .map((rule) => ({
      matchesAddress: createGlobMatcher(rule.address),
      matchesPath: createGlobMatcher(rule.path),
      reason: rule.reason,
    }));
}
