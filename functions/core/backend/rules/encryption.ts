import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';

const KMS_ALGORITHMS = new Set(['aws:kms', 'aws:kms:dsse']);

export const encryptionRule: BucketRule = {
  id: 'backend.encryption',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'high',
  checks:
    'default encryption is configured; SSE-KMS where the registry requires it (`requireKms`), SSE-S3 otherwise accepted',
  explanation:
    'State holds every secret of the workspace in plaintext JSON; SSE-KMS adds a key policy and a CloudTrail record of every decrypt.',
  iamActions: ['s3:GetEncryptionConfiguration'],
  reads: ['encryption'],
  evaluate({ bucket, settings, expectKms }) {
    if (!settings.encryption.ok) return [];
    const encryption = readable(settings.encryption);
    const kms = encryption !== undefined && KMS_ALGORITHMS.has(encryption.algorithm);
    if (encryption !== undefined && (kms || !expectKms)) return [];
    const missing = encryption === undefined;
    return [
      {
        resource: { bucket },
        title: missing
          ? `State bucket ${bucket} has no default encryption`
          : `State bucket ${bucket} uses SSE-S3 where SSE-KMS is required`,
        detail: missing
          ? `State bucket ${bucket} has no default encryption configuration.`
          : `State bucket ${bucket} encrypts with ${encryption.algorithm}, and the registry requires SSE-KMS (requireKms).`,
        evidence: { algorithm: encryption?.algorithm ?? null, kmsRequired: expectKms },
        severity: missing ? 'high' : 'medium',
        remediation: bootstrapRemediation(
          `Set SSE-KMS default encryption with a bucket key on ${bucket} (existing objects are re-encrypted on their next write).`,
          [
            `resource "aws_s3_bucket_server_side_encryption_configuration" "state" {`,
            `  bucket = ${hcl(bucket)}`,
            '  rule {',
            '    apply_server_side_encryption_by_default {',
            '      sse_algorithm     = "aws:kms"',
            '      kms_master_key_id = aws_kms_key.state.arn',
            '    }',
            '    bucket_key_enabled = true',
            '  }',
            '}',
          ].join('\n'),
          `aws s3api put-bucket-encryption --bucket ${shellWord(bucket)} --server-side-encryption-configuration '{"Rules":[{"ApplyServerSideEncryptionByDefault":{"SSEAlgorithm":"aws:kms","KMSMasterKeyID":"<key ARN>"},"BucketKeyEnabled":true}]}'`,
        ),
      },
    ];
  },
};
