import type { LifecycleRule } from '../settings.js';

/**
 * Whether a lifecycle rule applies to a state object. Terraform does not tag state objects, so a
 * tag-filtered rule never applies to them. A rule with object size bounds ("objects over 1 MiB")
 * applies to a state whose current size is within them (earlier versions of a state are of similar
 * size); one whose size is unknown is not assumed to match.
 */
export function lifecycleRuleCovers(rule: LifecycleRule, key: string, size: number | undefined): boolean {
  if (rule.tagFiltered || (rule.prefix !== undefined && !key.startsWith(rule.prefix))) return false;
  const { greaterThan, lessThan } = rule.objectSize ?? {};
  if (greaterThan === undefined && lessThan === undefined) return true;
  return (
    size !== undefined &&
    (greaterThan === undefined || size > greaterThan) &&
    (lessThan === undefined || size < lessThan)
  );
}

/**
 * The lifecycle rule the backend rules propose for state (HCL lines, inside an
 * `aws_s3_bucket_lifecycle_configuration`): old versions expire, kept long enough to restore from,
 * the newest few always; current versions never do.
 */
export const STATE_LIFECYCLE_RULE_HCL: readonly string[] = [
  '  rule {',
  '    id     = "state-noncurrent-versions"',
  '    status = "Enabled"',
  '    filter {}',
  '    noncurrent_version_expiration {',
  '      noncurrent_days           = 90',
  '      newer_noncurrent_versions = 10',
  '    }',
  '    expiration {',
  '      expired_object_delete_marker = true',
  '    }',
  '  }',
];
