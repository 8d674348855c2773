import { byteSize } from '../../text/byte-size.js';
import { limitText, visibleValue } from '../../text/sanitize.js';
import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';
import type { LifecycleRule } from '../settings.js';
import { lifecycleRuleCovers, STATE_LIFECYCLE_RULE_HCL } from './lifecycle-coverage.js';

/** Keys listed in a finding; the rest are counted. */
const SHOWN_KEYS = 10;

/**
 * A lifecycle rule that expires or archives the *current* version of state objects. Terraform
 * rewrites a state only when something changes, so the state of a quiet workspace is as old as its
 * last apply: once it passes the rule's age it is deleted (a delete marker in a versioned bucket, gone
 * for good in an unversioned one) and the next plan proposes to create everything the workspace
 * manages, or it is moved to GLACIER / DEEP_ARCHIVE, where Terraform cannot read it until restored.
 * Bucket-wide rules written for logs or artifacts ("expire everything after 90 days") do this.
 */
export const lifecycleRemovesStateRule: BucketRule = {
  id: 'backend.lifecycle-removes-state',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'high',
  checks:
    'no lifecycle rule expires the current version of a state object or moves it to GLACIER or DEEP_ARCHIVE',
  explanation:
    'A state is rewritten only when its workspace changes: a rule that expires or archives current versions after N days deletes (or makes unreadable) the state of every workspace left alone that long, and its next plan proposes to create everything again.',
  iamActions: ['s3:GetLifecycleConfiguration'],
  reads: ['lifecycle'],
  evaluate({ bucket, settings, stateKeys, stateObjectSizes }) {
    const lifecycle = readable(settings.lifecycle);
    if (lifecycle === undefined) return [];
    const harmful = lifecycle
      .filter((rule) => rule.enabled && (rule.currentExpiration || rule.archivingTransitions?.length))
      .map((rule) => ({
        rule,
        keys: stateKeys.filter((key) => removesState(rule, key, stateObjectSizes?.get(key))),
      }))
      // With no state found yet (a new bucket), a rule over every object will reach the first one.
      .filter(({ rule, keys }) => keys.length > 0 || (stateKeys.length === 0 && appliesToEveryObject(rule)));
    if (harmful.length === 0) return [];
    const covered = [...new Set(harmful.flatMap(({ keys }) => keys))].sort();
    const described = harmful.map(({ rule }) => `${ruleName(rule)} ${whatItDoes(rule)}`);
    const ids = harmful.map(({ rule }) => ruleName(rule));
    return [
      {
        resource: { bucket },
        title: `A lifecycle rule of state bucket ${bucket} deletes or archives live state`,
        detail: `In the lifecycle configuration of ${bucket}, ${described.join('; ')}, and applies to ${covered.length > 0 ? `${covered.length} state object(s)` : 'every object, the states to come included'}. The state of a workspace not applied for that long is deleted (its next plan proposes to create everything it manages) or archived (Terraform cannot read it until it is restored).`,
        evidence: {
          rules: described,
          coveredStateObjects: covered.length,
          coveredExamples: covered.slice(0, SHOWN_KEYS),
        },
        remediation: bootstrapRemediation(
          `Narrow ${ids.join(', ')} of ${bucket} to keys that are not state (a prefix), or drop its expiration and transitions of current versions: old state versions are removed with a noncurrent-version expiration instead (a bucket has one lifecycle configuration: keep its other rules).`,
          [
            `resource "aws_s3_bucket_lifecycle_configuration" "state" {`,
            `  bucket = ${hcl(bucket)}`,
            '  # No rule with expiration { days/date } or transition { storage_class = "GLACIER" | "DEEP_ARCHIVE" }',
            '  # that reaches the state keys; expire old state versions only:',
            ...STATE_LIFECYCLE_RULE_HCL,
            '}',
          ].join('\n'),
          [
            `aws s3api get-bucket-lifecycle-configuration --bucket ${shellWord(bucket)} > lifecycle.json`,
            `aws s3api put-bucket-lifecycle-configuration --bucket ${shellWord(bucket)} --lifecycle-configuration file://lifecycle.json`,
          ].join('\n'),
        ),
      },
    ];
  },
};

/**
 * Whether the rule expires or archives this state's current version: it covers the key and size, and
 * expires it, or archives it and the state is not below the configuration's transition minimum.
 */
function removesState(rule: LifecycleRule, key: string, size: number | undefined): boolean {
  if (!lifecycleRuleCovers(rule, key, size)) return false;
  if (rule.currentExpiration) return true;
  return rule.transitionsFromBytes === undefined || (size !== undefined && size >= rule.transitionsFromBytes);
}

function appliesToEveryObject(rule: LifecycleRule): boolean {
  return (
    !rule.tagFiltered &&
    !rule.prefix &&
    rule.objectSize === undefined &&
    (rule.currentExpiration !== undefined || rule.transitionsFromBytes === undefined)
  );
}

/** A rule as people find it in the console: by its ID, quoted and cut, or by its place when it has none. */
function ruleName(rule: LifecycleRule): string {
  return rule.id === undefined
    ? 'a rule without an ID'
    : `rule ${JSON.stringify(limitText(visibleValue(rule.id), 80))}`;
}

function whatItDoes(rule: LifecycleRule): string {
  const when = (at: { days?: number; date?: string }) =>
    at.days !== undefined ? `after ${at.days} days` : at.date !== undefined ? `on ${at.date}` : '';
  const parts: string[] = [];
  if (rule.currentExpiration) parts.push(`expires current versions ${when(rule.currentExpiration)}`.trim());
  const sized =
    rule.transitionsFromBytes === undefined ? '' : ` of ${byteSize(rule.transitionsFromBytes)} or more`;
  for (const transition of rule.archivingTransitions ?? [])
    parts.push(`moves current versions${sized} to ${transition.storageClass} ${when(transition)}`.trim());
  return parts.join(' and ');
}
