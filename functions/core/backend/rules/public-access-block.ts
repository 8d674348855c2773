import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';
import type { PublicAccessBlock } from '../settings.js';

const SETTINGS: ReadonlyArray<[keyof PublicAccessBlock, string]> = [
  ['blockPublicAcls', 'BlockPublicAcls'],
  ['ignorePublicAcls', 'IgnorePublicAcls'],
  ['blockPublicPolicy', 'BlockPublicPolicy'],
  ['restrictPublicBuckets', 'RestrictPublicBuckets'],
];

export const publicAccessBlockRule: BucketRule = {
  id: 'backend.public-access-block',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'high',
  checks: 'all four S3 public access block settings are on',
  explanation:
    'One public ACL or policy statement would publish every secret in every state of the bucket; the block is the guard against that mistake.',
  iamActions: ['s3:GetBucketPublicAccessBlock'],
  reads: ['publicAccessBlock'],
  evaluate({ bucket, settings }) {
    if (!settings.publicAccessBlock.ok) return [];
    const block = readable(settings.publicAccessBlock);
    const off = SETTINGS.filter(([field]) => block?.[field] !== true).map(([, name]) => name);
    if (off.length === 0) return [];
    return [
      {
        resource: { bucket },
        title: block
          ? `State bucket ${bucket} has public access block settings off`
          : `State bucket ${bucket} has no public access block`,
        detail: block
          ? `Public access block settings off on ${bucket}: ${off.join(', ')}.`
          : `State bucket ${bucket} has no public access block configuration.`,
        evidence: { off },
        remediation: bootstrapRemediation(
          `Turn on all four public access block settings of ${bucket}.`,
          [
            `resource "aws_s3_bucket_public_access_block" "state" {`,
            `  bucket                  = ${hcl(bucket)}`,
            '  block_public_acls       = true',
            '  ignore_public_acls      = true',
            '  block_public_policy     = true',
            '  restrict_public_buckets = true',
            '}',
          ].join('\n'),
          `aws s3api put-public-access-block --bucket ${shellWord(bucket)} --public-access-block-configuration BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true`,
        ),
      },
    ];
  },
};
