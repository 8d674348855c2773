import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';

export const versioningRule: BucketRule = {
  id: 'backend.versioning',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'high',
  checks: 'versioning is enabled (not off, not suspended)',
  explanation:
    'Without versioning a truncated, corrupted or wrongly pushed state cannot be restored, and its history (lineage, serial) cannot be checked.',
  iamActions: ['s3:GetBucketVersioning'],
  reads: ['versioning'],
  evaluate({ bucket, settings }) {
    const status = readable(settings.versioning);
    if (status === undefined || status === 'Enabled') return [];
    const state = status === 'Suspended' ? 'suspended' : 'off';
    return [
      {
        resource: { bucket },
        title: `State bucket ${bucket} has versioning ${state}`,
        detail: `Versioning of state bucket ${bucket} is ${state}.`,
        evidence: { versioning: status },
        remediation: bootstrapRemediation(
          `Enable versioning on ${bucket}.`,
          [
            `resource "aws_s3_bucket_versioning" "state" {`,
            `  bucket = ${hcl(bucket)}`,
            '  versioning_configuration {',
            '    status = "Enabled"',
            '  }',
            '}',
          ].join('\n'),
          `aws s3api put-bucket-versioning --bucket ${shellWord(bucket)} --versioning-configuration Status=Enabled`,
        ),
      },
    ];
  },
};
