import { globToRegExp } from '../../terraform/glob.js';
import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';

export const tlsOnlyRule: BucketRule = {
  id: 'backend.tls-only',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'medium',
  checks: 'the bucket policy denies every request without TLS (`aws:SecureTransport = false`)',
  explanation:
    'State travels with its secrets in plaintext JSON; a Deny on aws:SecureTransport=false makes sure no client, old SDK or script sends or fetches it without TLS.',
  iamActions: ['s3:GetBucketPolicy'],
  reads: ['policy'],
  evaluate({ bucket, settings }) {
    if (!settings.policy.ok) return [];
    const policy = readable(settings.policy);
    if (policy !== undefined && deniesInsecureTransport(policy, bucket)) return [];
    return [
      {
        resource: { bucket },
        title: `State bucket ${bucket} accepts requests without TLS`,
        detail:
          policy === undefined
            ? `State bucket ${bucket} has no bucket policy, so nothing denies requests without TLS.`
            : `The bucket policy of ${bucket} has no Deny statement for aws:SecureTransport = false covering its objects.`,
        evidence: { bucketPolicy: policy === undefined ? 'none' : 'present without a TLS-only statement' },
        remediation: bootstrapRemediation(
          `Add a statement denying s3:* without TLS to the policy of ${bucket} (a bucket has one policy: merge it with the statements it has).`,
          [
            `resource "aws_s3_bucket_policy" "state" {`,
            `  bucket = ${hcl(bucket)}`,
            '  policy = jsonencode({',
            '    Version = "2012-10-17"',
            '    Statement = [{',
            '      Sid       = "DenyInsecureTransport"',
            '      Effect    = "Deny"',
            '      Principal = "*"',
            '      Action    = "s3:*"',
            `      Resource  = [${hcl(`arn:aws:s3:::${bucket}`)}, ${hcl(`arn:aws:s3:::${bucket}/*`)}]`,
            '      Condition = { Bool = { "aws:SecureTransport" = "false" } }',
            '    }]',
            '  })',
            '}',
          ].join('\n'),
          `aws s3api put-bucket-policy --bucket ${shellWord(bucket)} --policy '${JSON.stringify(tlsOnlyPolicy(bucket))}'`,
        ),
      },
    ];
  },
};

/** The statement the remediation proposes (a bucket has one policy: merge it with the others). */
export function tlsOnlyPolicy(bucket: string) {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'DenyInsecureTransport',
        Effect: 'Deny',
        Principal: '*',
        Action: 's3:*',
        Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ],
  };
}

/**
 * A Deny for everyone, on actions that include reading objects, on resources that include the
 * bucket's objects, when `aws:SecureTransport` is false. An unparsable policy denies nothing.
 */
export function deniesInsecureTransport(policyText: string, bucket: string): boolean {
  let policy: unknown;
  try {
    policy = JSON.parse(policyText);
  } catch {
    return false;
  }
  const statements = listOf((policy as { Statement?: unknown })?.Statement);
  const objectArn = `arn:aws:s3:::${bucket}/terraform.tfstate`;
  return statements.some((value) => {
    if (value === null || typeof value !== 'object') return false;
    const statement = value as Record<string, unknown>;
    return (
      statement.Effect === 'Deny' &&
      coversEveryone(statement.Principal) &&
      listOf(statement.Action).some((action) => matches(action, 's3:GetObject')) &&
      listOf(statement.Resource).some((resource) => matchesArn(resource, objectArn)) &&
      insecureTransportCondition(statement.Condition)
    );
  });
}

function coversEveryone(principal: unknown): boolean {
  if (principal === '*') return true;
  if (principal === null || typeof principal !== 'object') return false;
  return listOf((principal as Record<string, unknown>).AWS).includes('*');
}

function insecureTransportCondition(condition: unknown): boolean {
  if (condition === null || typeof condition !== 'object') return false;
  return Object.entries(condition as Record<string, unknown>).some(([operator, block]) => {
    if (!/^Bool(IfExists)?$/.test(operator) || block === null || typeof block !== 'object') return false;
    return Object.entries(block as Record<string, unknown>).some(
      ([key, value]) =>
        key.toLowerCase() === 'aws:securetransport' &&
        listOf(value).some((entry) => String(entry).toLowerCase() === 'false'),
    );
  });
}

/** IAM action globs are case-insensitive (`s3:*`, `S3:Get*`, `*`). */
function matches(pattern: unknown, action: string): boolean {
  return typeof pattern === 'string' && globToRegExp(pattern, 'i').test(action);
}

/** Any partition (`aws`, `aws-cn`, `aws-us-gov`). */
function matchesArn(pattern: unknown, arn: string): boolean {
  if (typeof pattern !== 'string') return false;
  const anyPartition = pattern.replace(/^arn:aws[a-z-]*:/, 'arn:aws:');
  return globToRegExp(anyPartition).test(arn);
}

function listOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
