import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';
import { lifecycleRuleCovers, STATE_LIFECYCLE_RULE_HCL } from './lifecycle-coverage.js';

/** Keys listed in a finding; the rest are counted. */
const SHOWN_KEYS = 10;

export const noncurrentVersionRetentionRule: BucketRule = {
  id: 'backend.noncurrent-version-retention',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'low',
  checks: 'a versioned bucket expires noncurrent versions of its state objects (lifecycle rule)',
  explanation:
    'Every plan and apply writes and deletes a .tflock, and every apply writes a state version: without a noncurrent-version expiration the versions pile up forever.',
  iamActions: ['s3:GetBucketVersioning', 's3:GetLifecycleConfiguration'],
  reads: ['versioning', 'lifecycle'],
  evaluate({ bucket, settings, stateKeys, stateObjectSizes }) {
    const versioning = readable(settings.versioning);
    const lifecycle = readable(settings.lifecycle);
    if (versioning === undefined || versioning === 'Disabled' || lifecycle === undefined) return [];
    const expiring = lifecycle.filter((rule) => rule.enabled && rule.noncurrentVersionExpiration);
    const uncovered = stateKeys.filter(
      (key) => !expiring.some((rule) => lifecycleRuleCovers(rule, key, stateObjectSizes?.get(key))),
    );
    const noRuleAtAll = stateKeys.length === 0 && expiring.every((rule) => rule.tagFiltered);
    if (uncovered.length === 0 && !noRuleAtAll) return [];
    return [
      {
        resource: { bucket },
        title: `State bucket ${bucket} keeps noncurrent versions forever`,
        detail:
          expiring.length === 0
            ? `Versioned state bucket ${bucket} has no lifecycle rule that expires noncurrent versions.`
            : `The lifecycle rules of ${bucket} that expire noncurrent versions do not cover ${uncovered.length} state object(s).`,
        evidence: {
          lifecycleRules: lifecycle.length,
          expiringRules: expiring.length,
          uncoveredStateObjects: uncovered.length,
          uncoveredExamples: uncovered.slice(0, SHOWN_KEYS),
        },
        remediation: bootstrapRemediation(
          `Expire noncurrent versions of ${bucket} after a retention you can restore from, keeping the newest few (a bucket has one lifecycle configuration: merge with its existing rules).`,
          [
            `resource "aws_s3_bucket_lifecycle_configuration" "state" {`,
            `  bucket = ${hcl(bucket)}`,
            ...STATE_LIFECYCLE_RULE_HCL,
            '}',
          ].join('\n'),
          `aws s3api put-bucket-lifecycle-configuration --bucket ${shellWord(bucket)} --lifecycle-configuration '{"Rules":[{"ID":"state-noncurrent-versions","Status":"Enabled","Filter":{},"NoncurrentVersionExpiration":{"NoncurrentDays":90,"NewerNoncurrentVersions":10},"Expiration":{"ExpiredObjectDeleteMarker":true}}]}'`,
        ),
      },
    ];
  },
};
