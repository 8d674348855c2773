import { describe, expect, it } from 'vitest';
import type { BucketSubject } from '../../../../functions/core/backend/rule.js';
import { dynamodbLockingDeprecatedRule } from '../../../../functions/core/backend/rules/dynamodb-locking-deprecated.js';
import { encryptionRule } from '../../../../functions/core/backend/rules/encryption.js';
import { BUCKET_RULES } from '../../../../functions/core/backend/rules/index.js';
import { noncurrentVersionRetentionRule } from '../../../../functions/core/backend/rules/noncurrent-version-retention.js';
import { objectOwnershipRule } from '../../../../functions/core/backend/rules/object-ownership.js';
import { publicAccessBlockRule } from '../../../../functions/core/backend/rules/public-access-block.js';
import {
  deniesInsecureTransport,
  tlsOnlyPolicy,
  tlsOnlyRule,
} from '../../../../functions/core/backend/rules/tls-only.js';
import { versioningRule } from '../../../../functions/core/backend/rules/versioning.js';
import type { BucketSettings } from '../../../../functions/core/backend/settings.js';
import { compliantSettings, denied, ok } from '../../../helpers/backend.js';

function subject(settings: Partial<BucketSettings> = {}, extra: Partial<BucketSubject> = {}): BucketSubject {
  return {
    bucket: 'tfstate',
    settings: compliantSettings(settings),
    expectKms: false,
    stateKeys: ['payments/terraform.tfstate', 'env:/blue/payments/terraform.tfstate'],
    lockTables: [],
    ...extra,
  };
}

describe('bucket rules on a compliant bucket', () => {
  it('find nothing', () => {
    for (const rule of BUCKET_RULES)
      expect(rule.evaluate(subject({}, { expectKms: true })), rule.id).toEqual([]);
  });

  it('skip (rather than guess) when the setting they read could not be read', () => {
    const unreadable = subject({
      versioning: denied('s3:GetBucketVersioning'),
      encryption: denied('s3:GetEncryptionConfiguration'),
      publicAccessBlock: denied('s3:GetBucketPublicAccessBlock'),
      policy: denied('s3:GetBucketPolicy'),
      objectOwnership: denied('s3:GetBucketOwnershipControls'),
      lifecycle: denied('s3:GetLifecycleConfiguration'),
    });
    for (const rule of BUCKET_RULES) expect(rule.evaluate(unreadable), rule.id).toEqual([]);
  });
});

describe('backend.versioning', () => {
  it.each([
    ['Disabled', 'off'],
    ['Suspended', 'suspended'],
  ] as const)('flags versioning %s', (status, word) => {
    const [violation] = versioningRule.evaluate(subject({ versioning: ok(status) }));
    expect(violation).toMatchObject({
      resource: { bucket: 'tfstate' },
      title: `State bucket tfstate has versioning ${word}`,
      evidence: { versioning: status },
    });
    expect(violation?.remediation.steps[0]).toContain('resource "aws_s3_bucket_versioning" "state"');
    expect(violation?.remediation.steps[1]).toContain(
      'aws s3api put-bucket-versioning --bucket tfstate --versioning-configuration Status=Enabled',
    );
  });
});

describe('backend.encryption', () => {
  it('flags a bucket without default encryption (high), whatever the KMS expectation', () => {
    const [violation] = encryptionRule.evaluate(subject({ encryption: ok(undefined) }));
    expect(violation).toMatchObject({
      severity: 'high',
      title: 'State bucket tfstate has no default encryption',
    });
  });

  it('accepts SSE-S3 unless the registry requires KMS, then flags it (medium)', () => {
    const sseS3 = { encryption: ok({ algorithm: 'AES256' }) };
    expect(encryptionRule.evaluate(subject(sseS3))).toEqual([]);
    const [violation] = encryptionRule.evaluate(subject(sseS3, { expectKms: true }));
    expect(violation).toMatchObject({
      severity: 'medium',
      evidence: { algorithm: 'AES256', kmsRequired: true },
    });
    expect(violation?.remediation.steps.join('\n')).toMatch(
      /sse_algorithm\s+= "aws:kms"[\s\S]*put-bucket-encryption/,
    );
  });

  it('accepts DSSE-KMS as KMS', () => {
    expect(
      encryptionRule.evaluate(
        subject({ encryption: ok({ algorithm: 'aws:kms:dsse' }) }, { expectKms: true }),
      ),
    ).toEqual([]);
  });
});

describe('backend.public-access-block', () => {
  it('names the settings that are off', () => {
    const block = { blockPublicAcls: true, ignorePublicAcls: false, blockPublicPolicy: true };
    const [violation] = publicAccessBlockRule.evaluate(subject({ publicAccessBlock: ok(block) }));
    expect(violation?.evidence).toEqual({ off: ['IgnorePublicAcls', 'RestrictPublicBuckets'] });
  });

  it('flags a bucket with no block at all', () => {
    const [violation] = publicAccessBlockRule.evaluate(subject({ publicAccessBlock: ok(undefined) }));
    expect(violation?.title).toBe('State bucket tfstate has no public access block');
    expect(violation?.evidence.off).toHaveLength(4);
  });
});

describe('backend.tls-only', () => {
  const policy = (statement: Record<string, unknown>) =>
    JSON.stringify({ Version: '2012-10-17', Statement: [statement] });
  const deny = tlsOnlyPolicy('tfstate').Statement[0]!;

  it('recognises the usual statement and its variants', () => {
    expect(deniesInsecureTransport(JSON.stringify(tlsOnlyPolicy('tfstate')), 'tfstate')).toBe(true);
    expect(
      deniesInsecureTransport(
        policy({ ...deny, Principal: { AWS: '*' }, Action: ['s3:GetObject', 's3:PutObject'] }),
        'tfstate',
      ),
    ).toBe(true);
    expect(
      deniesInsecureTransport(
        policy({ ...deny, Action: 'S3:Get*', Resource: 'arn:aws-us-gov:s3:::tfstate/*' }),
        'tfstate',
      ),
    ).toBe(true);
    expect(
      deniesInsecureTransport(
        policy({ ...deny, Condition: { BoolIfExists: { 'aws:SecureTransport': false } } }),
        'tfstate',
      ),
    ).toBe(true);
  });

  it('does not accept statements that miss a part', () => {
    const cases: Array<Record<string, unknown>> = [
      { ...deny, Effect: 'Allow' },
      { ...deny, Principal: { AWS: 'arn:aws:iam::111111111111:root' } },
      { ...deny, Action: 's3:PutObject' },
      { ...deny, Resource: 'arn:aws:s3:::other-bucket/*' },
      { ...deny, Condition: { Bool: { 'aws:SecureTransport': 'true' } } },
      { ...deny, Condition: undefined },
    ];
    for (const statement of cases)
      expect(deniesInsecureTransport(policy(statement), 'tfstate'), JSON.stringify(statement)).toBe(false);
    expect(deniesInsecureTransport('not json', 'tfstate')).toBe(false);
  });

  it('flags a bucket without a policy, and one whose policy lacks the statement', () => {
    expect(tlsOnlyRule.evaluate(subject({ policy: ok(undefined) }))[0]?.evidence).toEqual({
      bucketPolicy: 'none',
    });
    const other = policy({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: '*' });
    const [violation] = tlsOnlyRule.evaluate(subject({ policy: ok(other) }));
    expect(violation?.remediation.steps[1]).toContain('"aws:SecureTransport":"false"');
  });
});

describe('backend.object-ownership', () => {
  it.each(['BucketOwnerPreferred', 'ObjectWriter', undefined])('flags ACLs enabled (%s)', (ownership) => {
    const [violation] = objectOwnershipRule.evaluate(subject({ objectOwnership: ok(ownership) }));
    expect(violation?.evidence).toEqual({ objectOwnership: ownership ?? 'none' });
  });
});

describe('backend.noncurrent-version-retention', () => {
  it('flags a versioned bucket without a noncurrent expiration', () => {
    const [violation] = noncurrentVersionRetentionRule.evaluate(subject({ lifecycle: ok([]) }));
    expect(violation?.evidence).toMatchObject({ expiringRules: 0, uncoveredStateObjects: 2 });
  });

  it('names state objects outside the prefix of the expiring rule, and ignores disabled and tag-filtered rules', () => {
    const lifecycle = ok([
      { enabled: true, prefix: 'payments/', tagFiltered: false, noncurrentVersionExpiration: { days: 30 } },
      { enabled: false, tagFiltered: false, noncurrentVersionExpiration: { days: 30 } },
      { enabled: true, tagFiltered: true, noncurrentVersionExpiration: { days: 30 } },
    ]);
    const [violation] = noncurrentVersionRetentionRule.evaluate(subject({ lifecycle }));
    expect(violation?.evidence).toMatchObject({
      expiringRules: 2,
      uncoveredExamples: ['env:/blue/payments/terraform.tfstate'],
    });
  });

  it('does not apply to a bucket that was never versioned', () => {
    expect(
      noncurrentVersionRetentionRule.evaluate(subject({ versioning: ok('Disabled'), lifecycle: ok([]) })),
    ).toEqual([]);
  });
});

describe('backend.dynamodb-locking-deprecated', () => {
  it('flags each configured lock table, with who configures it and which states still have digests', () => {
    const [violation] = dynamodbLockingDeprecatedRule.evaluate(
      subject(
        {},
        {
          lockTables: [
            {
              table: 'tf-locks',
              configuredBy: ['payments-prod'],
              items: ok({ lockedStateKeys: [], digestStateKeys: ['payments/terraform.tfstate'] }),
            },
          ],
        },
      ),
    );
    expect(violation).toMatchObject({
      resource: { bucket: 'tfstate', lockTable: 'tf-locks' },
      evidence: {
        configuredBy: ['payments-prod'],
        digestItems: 1,
        statesWithDigest: ['payments/terraform.tfstate'],
      },
    });
    expect(violation?.remediation.steps.join('\n')).toContain('use_lockfile   = true');
  });

  it('finds nothing without a lock table', () => {
    expect(dynamodbLockingDeprecatedRule.evaluate(subject())).toEqual([]);
  });
});
