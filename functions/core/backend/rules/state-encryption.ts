import { hcl, READ_ONLY, type StateRule } from '../rule.js';

/**
 * Where KMS is required, the state object itself must be SSE-KMS, not only the bucket's default: a
 * writer that asks for another encryption gets it. The S3 backend with `encrypt = true` and no
 * `kms_key_id` (the setting of most tutorials) asks for SSE-S3 on every state it writes, so a bucket
 * that backend.encryption passes holds states that any role allowed s3:GetObject reads, without
 * kms:Decrypt and without a KMS record of the read. What S3 reported when the version was read is
 * judged (check-backend.ts keeps it); no further request is made.
 */
export const stateEncryptionRule: StateRule = {
  id: 'state.encryption',
  target: 'state',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'medium',
  checks:
    'where KMS is required (`requireKms`), the current version of each registered state object is encrypted with SSE-KMS, as S3 reports it when the state is read (high when S3 reports no encryption at all)',
  explanation:
    "A state the bucket's default does not cover is protected only by its own encryption: with SSE-S3 any role allowed s3:GetObject reads it and every secret in it, without kms:Decrypt on the key and without a KMS record of the read. An S3 backend with `encrypt = true` and no `kms_key_id` asks S3 for SSE-S3 on every state it writes, and the request overrides the bucket's default SSE-KMS.",
  iamActions: ['s3:GetObject'],
  evaluate(subject) {
    const current = subject.versions[0];
    const encryption = current?.serverSideEncryption;
    // A deleted, empty or foreign current version is state.unreadable's: nothing Terraform wrote.
    if (!subject.expectKms || encryption === undefined || current?.unreadable !== undefined) return [];
    const { algorithm } = encryption;
    if (algorithm?.startsWith('aws:kms')) return [];
    const where = `s3://${subject.bucket}/${subject.key}`;
    const described =
      algorithm === undefined
        ? 'no server-side encryption'
        : algorithm === 'AES256'
          ? 'SSE-S3 (AES256)'
          : algorithm;
    const key = subject.bucketKmsKeyId;
    return [
      {
        resource: { bucket: subject.bucket, key: subject.key },
        ...(algorithm === undefined ? { severity: 'high' as const } : {}),
        title: `State ${where} is not SSE-KMS encrypted: S3 reports ${described}`,
        detail: `S3 reports ${described} for the current version of ${where}, where the registry requires SSE-KMS${key ? ` (the bucket's default encryption is SSE-KMS with ${key}: the writer asked for another, as an S3 backend with \`encrypt = true\` and no \`kms_key_id\` does)` : ''}.`,
        evidence: {
          algorithm: algorithm ?? null,
          versionId: current?.versionId ?? null,
          bucketKmsKeyId: key ?? null,
        },
        remediation: {
          summary: `Have Terraform write ${where} with SSE-KMS: name the key in its backend "s3" block (kms_key_id), run terraform init -reconfigure, and the next apply writes the state with it.`,
          steps: [
            `In the backend "s3" block of every configuration that writes this state (or leave out encrypt, so the bucket's default SSE-KMS applies):\nencrypt    = true\nkms_key_id = ${hcl(key ?? '<the ARN of the KMS key the state bucket uses>')}\nthen run terraform init -reconfigure.`,
            "The next apply writes the state with the key; earlier versions keep their encryption until the bucket's noncurrent-version rule expires them.",
            READ_ONLY,
          ],
        },
      },
    ];
  },
};
