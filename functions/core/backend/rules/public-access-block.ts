import { publicAccessBlockFix } from '../bucket-fixes.js';
import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation } from '../rule.js';
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
          ? `The public access block of ${bucket} leaves ${off.join(', ')} off.`
          : `State bucket ${bucket} has no public access block configuration.`,
        evidence: { off },
        remediation: bootstrapRemediation(
          `Turn on all four public access block settings of ${bucket}.`,
          ...publicAccessBlockFix(bucket),
        ),
      },
    ];
  },
};
