import { describe, expect, it } from 'vitest';
import type { BucketSubject } from '../../../../functions/core/backend/rule.js';
import { dynamodbLockingDeprecatedRule } from '../../../../functions/core/backend/rules/dynamodb-locking-deprecated.js';
import { encryptionRule } from '../../../../functions/core/backend/rules/encryption.js';
import { BUCKET_RULES } from '../../../../functions/core/backend/rules/index.js';
import { lifecycleRemovesStateRule } from '../../../../functions/core/backend/rules/lifecycle-removes-state.js';
import { noncurrentVersionRetentionRule } from '../../../../functions/core/backend/rules/noncurrent-version-retention.js';
import { objectOwnershipRule } from '../../../../functions/core/backend/rules/object-ownership.js';
import { publicAccessRule } from '../../../../functions/core/backend/rules/public-access.js';
import { publicAccessBlockRule } from '../../../../functions/core/backend/rules/public-access-block.js';
import {
  deniesInsecureTransport,
  tlsOnlyGap,
  tlsOnlyPolicy,
  tlsOnlyRule,
} from '../../../../functions/core/backend/rules/tls-only.js';
import { versioningRule } from '../../../../functions/core/backend/rules/versioning.js';
import type { BucketSettings } from '../../../../functions/core/backend/settings.js';
import { redactText } from '../../../../functions/core/redaction/secrets.js';
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
      policyStatus: denied('s3:GetBucketPolicyStatus'),
      publicGrants: denied('s3:GetBucketAcl'),
    });
    for (const rule of BUCKET_RULES) expect(rule.evaluate(unreadable), rule.id).toEqual([]);
  });
});

describe('bucket rules on a bucket named like a secret (auth, token, secret are common in bucket names)', () => {
  // Finding text is redacted again wherever it is shown, and `<secret-looking name>: <one token>` is
  // a credential to the value rules: a sentence that puts a setting name after `<bucket>:` lost it
  // (`Public access block settings off on auth-acl: (redacted)`). Product sentences must read the same.
  it.each(['auth-acl', 'token-service-tfstate', 'secrets-tfstate', 'api-key-store'])('%s', (bucket) => {
    const everyGuardOff = subject(
      {
        versioning: ok('Suspended'),
        encryption: ok(undefined),
        publicAccessBlock: ok({ blockPublicAcls: true, ignorePublicAcls: false, blockPublicPolicy: true }),
        policy: ok(undefined),
        objectOwnership: ok('ObjectWriter'),
        lifecycle: ok([]),
        policyStatus: ok(true),
        publicGrants: ok([{ grantee: 'AllUsers', permission: 'READ' }]),
      },
      { bucket, expectKms: true },
    );
    let texts = 0;
    for (const rule of BUCKET_RULES)
      for (const violation of rule.evaluate(everyGuardOff)) {
        for (const text of [violation.title, violation.detail, violation.remediation.summary]) {
          expect(redactText(text), rule.id).toBe(text);
          texts++;
        }
      }
    expect(texts).toBeGreaterThanOrEqual(15);
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

describe('backend.public-access', () => {
  const allUsersRead = { grantee: 'AllUsers' as const, permission: 'READ' };
  const authenticatedWrite = { grantee: 'AuthenticatedUsers' as const, permission: 'WRITE' };
  const noBlock = { publicAccessBlock: ok(undefined) };

  it('flags a bucket whose policy S3 calls public, when RestrictPublicBuckets does not stop it (critical)', () => {
    const [violation] = publicAccessRule.evaluate(subject({ ...noBlock, policyStatus: ok(true) }));
    expect(violation).toMatchObject({
      resource: { bucket: 'tfstate' },
      title: 'State bucket tfstate is public',
      evidence: { publicPolicy: true, publicGrants: [], restrictPublicBuckets: false },
    });
    expect(violation?.detail).toMatch(/bucket policy grants public access/);
    expect(violation?.remediation.steps.join('\n')).toContain('RestrictPublicBuckets=true');
    // A public policy needs no ACL step (and a bucket with log-delivery grants would fail one).
    expect(violation?.remediation.steps.join('\n')).not.toMatch(
      /put-bucket-ownership-controls|put-bucket-acl/,
    );
    expect(publicAccessRule.severity).toBe('critical');
  });

  it('flags public ACL grants (AllUsers, AuthenticatedUsers) while ACLs are in effect and not ignored', () => {
    const [violation] = publicAccessRule.evaluate(
      subject({
        ...noBlock,
        objectOwnership: ok('ObjectWriter'),
        publicGrants: ok([allUsersRead, authenticatedWrite]),
      }),
    );
    expect(violation?.evidence).toMatchObject({
      publicPolicy: false,
      publicGrants: ['AllUsers READ', 'AuthenticatedUsers WRITE'],
    });
    // What each grant lets do: a bucket READ grant lists the states, it does not read them.
    expect(violation?.detail).toContain(
      'AllUsers READ (list the state objects), AuthenticatedUsers WRITE (write, overwrite and delete state objects)',
    );
    // S3 refuses BucketOwnerEnforced while the ACL grants to others: the ACL is reset to private first.
    const cli = violation?.remediation.steps.find((step) => step.startsWith('Or with the AWS CLI')) ?? '';
    const order = [
      'put-public-access-block',
      'put-bucket-acl --bucket tfstate --acl private',
      'put-bucket-ownership-controls',
    ];
    expect(order.map((command) => cli.indexOf(command))).toEqual(
      [...order.map((command) => cli.indexOf(command))].sort((a, b) => a - b),
    );
    expect(order.every((command) => cli.includes(command))).toBe(true);
    expect(violation?.remediation.summary).toMatch(/reset its ACL to private and disable ACLs/);
  });

  it('finds nothing where S3 makes the public part ineffective, or S3 says the policy is not public', () => {
    const cases: Array<Partial<BucketSettings>> = [
      // RestrictPublicBuckets: only the owner account and AWS services, whatever the policy says.
      { policyStatus: ok(true) },
      // IgnorePublicAcls: public grants are not evaluated.
      { objectOwnership: ok('ObjectWriter'), publicGrants: ok([allUsersRead]) },
      // BucketOwnerEnforced: ACLs are disabled.
      { ...noBlock, publicGrants: ok([allUsersRead]) },
      // Principal "*" narrowed by aws:PrincipalOrgID or aws:SourceVpce: S3 does not call it public.
      { ...noBlock, policyStatus: ok(false) },
      // No policy, or an endpoint that does not say (IsPublic absent): nothing is claimed.
      { ...noBlock, policyStatus: ok(undefined) },
    ];
    for (const settings of cases)
      expect(publicAccessRule.evaluate(subject(settings)), JSON.stringify(settings)).toEqual([]);
  });

  it('claims nothing about a part whose reads failed (the failed reads are reported)', () => {
    expect(
      publicAccessRule.evaluate(
        subject({ publicAccessBlock: denied('s3:GetBucketPublicAccessBlock'), policyStatus: ok(true) }),
      ),
    ).toEqual([]);
    expect(
      publicAccessRule.evaluate(
        subject({
          ...noBlock,
          objectOwnership: denied('s3:GetBucketOwnershipControls'),
          publicGrants: ok([allUsersRead]),
        }),
      ),
    ).toEqual([]);
    const [policyOnly] = publicAccessRule.evaluate(
      subject({ ...noBlock, policyStatus: ok(true), publicGrants: denied('s3:GetBucketAcl') }),
    );
    expect(policyOnly?.evidence).toMatchObject({ publicPolicy: true });
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
        policy({
          ...deny,
          Action: 'S3:*',
          Resource: ['arn:aws-us-gov:s3:::tfstate', 'arn:aws-us-gov:s3:::tfstate/*'],
        }),
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
      { ...deny, Action: ['s3:GetObject', 's3:PutObject'] },
      { ...deny, Action: 'S3:Get*' },
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

  // The policy variants of the backend sweep (notes/sweep/backends/03-tls-policies.sh) and more.
  // Each is [name, Statement (BKT is the bucket), undefined when TLS-only, else why not].
  const BOTH = ['arn:aws:s3:::BKT', 'arn:aws:s3:::BKT/*'];
  const FALSE = { Bool: { 'aws:SecureTransport': 'false' } };
  const D = { Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: BOTH };
  const VARIANTS: Array<[string, unknown, string | undefined]> = [
    ['string-false', [{ ...D, Condition: FALSE }], undefined],
    ['bool-false', [{ ...D, Condition: { Bool: { 'aws:SecureTransport': false } } }], undefined],
    ['boolifexists', [{ ...D, Condition: { BoolIfExists: { 'aws:SecureTransport': 'false' } } }], undefined],
    ['value-list', [{ ...D, Condition: { Bool: { 'aws:SecureTransport': ['false'] } } }], undefined],
    ['key-case', [{ ...D, Condition: { Bool: { 'AWS:SecureTransport': 'FALSE' } } }], undefined],
    ['principal-aws', [{ ...D, Principal: { AWS: '*' }, Condition: FALSE }], undefined],
    [
      'principal-aws-list',
      [{ ...D, Principal: { AWS: ['*'] }, Action: ['s3:*'], Resource: '*', Condition: FALSE }],
      undefined,
    ],
    ['action-star', [{ ...D, Action: '*', Condition: FALSE }], undefined],
    ['statement-object', { ...D, Condition: FALSE }, undefined],
    [
      'second-statement',
      [
        {
          Sid: 'Read',
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::123456789012:root' },
          Action: 's3:GetObject',
          Resource: 'arn:aws:s3:::BKT/*',
        },
        { ...D, Condition: FALSE },
      ],
      undefined,
    ],
    [
      'split-actions (together: every action)',
      [
        { ...D, Action: ['s3:Get*', 's3:List*'], Condition: FALSE },
        { ...D, Action: undefined, NotAction: ['s3:Get*', 's3:List*'], Condition: FALSE },
      ],
      undefined,
    ],
    [
      'split-resources (together: the bucket and its objects)',
      [
        { ...D, Resource: 'arn:aws:s3:::BKT', Condition: FALSE },
        { ...D, Resource: 'arn:aws:s3:::BKT/*', Condition: FALSE },
      ],
      undefined,
    ],
    [
      'notresource (another bucket)',
      [{ ...D, Resource: undefined, NotResource: 'arn:aws:s3:::some-other-bucket/*', Condition: FALSE }],
      undefined,
    ],
    [
      'notresource, the part left out denied by a second statement',
      [
        { ...D, Resource: undefined, NotResource: 'arn:aws:s3:::BKT/secret/*', Condition: FALSE },
        { ...D, Resource: 'arn:aws:s3:::BKT/secret/*', Condition: FALSE },
      ],
      undefined,
    ],
    [
      'notaction of no S3 action',
      [{ ...D, Action: undefined, NotAction: 'ec2:*', Condition: FALSE }],
      undefined,
    ],
    [
      'numeric-tls-plus',
      [
        { ...D, Condition: FALSE },
        { ...D, Condition: { NumericLessThan: { 's3:TlsVersion': '1.2' } } },
      ],
      undefined,
    ],
    [
      'multi-value-false-true',
      [{ ...D, Condition: { Bool: { 'aws:SecureTransport': ['true', 'false'] } } }],
      undefined,
    ],

    [
      'inverted-true',
      [{ ...D, Condition: { Bool: { 'aws:SecureTransport': 'true' } } }],
      'the Deny applies when aws:SecureTransport is true (requests with TLS), not when it is false',
    ],
    [
      'allow-only-tls',
      [
        {
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::123456789012:root' },
          Action: 's3:*',
          Resource: 'arn:aws:s3:::BKT/*',
          Condition: { Bool: { 'aws:SecureTransport': 'true' } },
        },
      ],
      'only an Allow names aws:SecureTransport, and an Allow denies nothing',
    ],
    [
      'getobject-only',
      [{ ...D, Action: 's3:GetObject', Resource: 'arn:aws:s3:::BKT/*', Condition: FALSE }],
      'the Deny covers only s3:GetObject; the Deny covers only arn:aws:s3:::BKT/*, not arn:aws:s3:::BKT',
    ],
    [
      'getobject-only, on the bucket and its objects',
      [{ ...D, Action: 's3:GetObject', Condition: FALSE }],
      'the Deny covers only s3:GetObject',
    ],
    [
      'split-actions of the sweep (five actions)',
      [
        {
          ...D,
          Action: ['s3:GetObject', 's3:GetObjectVersion'],
          Resource: 'arn:aws:s3:::BKT/*',
          Condition: FALSE,
        },
        { ...D, Action: ['s3:PutObject', 's3:DeleteObject', 's3:ListBucket'], Condition: FALSE },
      ],
      'the Deny statements cover only s3:PutObject, s3:DeleteObject, s3:ListBucket on arn:aws:s3:::BKT; ' +
        'the Deny statements cover only s3:GetObject, s3:GetObjectVersion, s3:PutObject, s3:DeleteObject, ' +
        's3:ListBucket on arn:aws:s3:::BKT/*',
    ],
    [
      'narrowed-by-ip',
      [{ ...D, Condition: { ...FALSE, IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }],
      'the Deny also requires aws:SourceIp, so requests from elsewhere are not denied',
    ],
    [
      'narrowed-by-acct',
      [{ ...D, Condition: { ...FALSE, StringEquals: { 'aws:PrincipalAccount': '123456789012' } } }],
      'the Deny also requires aws:PrincipalAccount, so requests from elsewhere are not denied',
    ],
    [
      'narrowed by a second key in the Bool block',
      [{ ...D, Condition: { Bool: { 'aws:SecureTransport': 'false', 'aws:ViaAWSService': 'false' } } }],
      'the Deny also requires aws:ViaAWSService, so requests from elsewhere are not denied',
    ],
    [
      'contradicted by Null',
      [{ ...D, Condition: { ...FALSE, Null: { 'aws:SecureTransport': 'true' } } }],
      'the Deny also requires Null aws:SecureTransport, so requests from elsewhere are not denied',
    ],
    [
      'one-principal',
      [{ ...D, Principal: { AWS: 'arn:aws:iam::123456789012:role/ci' }, Condition: FALSE }],
      'the Deny applies only to arn:aws:iam::123456789012:role/ci, not to everyone',
    ],
    [
      'notprincipal',
      [
        {
          ...D,
          Principal: undefined,
          NotPrincipal: { AWS: 'arn:aws:iam::123456789012:role/ci' },
          Condition: FALSE,
        },
      ],
      'the Deny has NotPrincipal, so the principals it names are not denied',
    ],
    [
      'notaction',
      [{ ...D, Action: undefined, NotAction: 's3:GetObject', Condition: FALSE }],
      'the Deny does not cover s3:GetObject',
    ],
    [
      'notaction of an action outside the usual ones',
      [{ ...D, Action: undefined, NotAction: 's3:PutReplication*', Condition: FALSE }],
      'the Deny does not cover s3:PutReplication*',
    ],
    [
      'bucket-arn-only',
      [{ ...D, Resource: 'arn:aws:s3:::BKT', Condition: FALSE }],
      'the Deny covers only arn:aws:s3:::BKT, not arn:aws:s3:::BKT/*',
    ],
    [
      'objects only (action-star of the sweep)',
      [{ ...D, Action: '*', Resource: 'arn:aws:s3:::BKT/*', Condition: FALSE }],
      'the Deny covers only arn:aws:s3:::BKT/*, not arn:aws:s3:::BKT',
    ],
    [
      'other-bucket',
      [{ ...D, Resource: 'arn:aws:s3:::BKT-other/*', Condition: FALSE }],
      'the Deny covers only arn:aws:s3:::BKT-other/*, not arn:aws:s3:::BKT or arn:aws:s3:::BKT/*',
    ],
    [
      'single-object',
      [{ ...D, Resource: 'arn:aws:s3:::BKT/terraform.tfstate', Condition: FALSE }],
      'the Deny covers only arn:aws:s3:::BKT/terraform.tfstate, not arn:aws:s3:::BKT or arn:aws:s3:::BKT/*',
    ],
    [
      'an object prefix',
      [{ ...D, Resource: ['arn:aws:s3:::BKT', 'arn:aws:s3:::BKT/env/*'], Condition: FALSE }],
      'the Deny covers only arn:aws:s3:::BKT, arn:aws:s3:::BKT/env/*, not arn:aws:s3:::BKT/*',
    ],
    [
      'notresource of its own objects',
      [{ ...D, Resource: undefined, NotResource: 'arn:aws:s3:::BKT/secret/*', Condition: FALSE }],
      'the Deny does not cover arn:aws:s3:::BKT/secret/*',
    ],
    [
      'bool-true-deny-null',
      [{ ...D, Condition: { Null: { 'aws:SecureTransport': 'false' } } }],
      'the Deny tests aws:SecureTransport with Null, not Bool aws:SecureTransport = false',
    ],
    [
      'a narrow Deny and a narrowed one',
      [
        { ...D, Action: 's3:GetObject', Condition: FALSE },
        { ...D, Condition: { ...FALSE, StringEquals: { 'aws:PrincipalAccount': '123456789012' } } },
      ],
      'the Deny covers only s3:GetObject; another Deny also requires aws:PrincipalAccount, so requests from elsewhere are not denied',
    ],
    ['no condition', [{ ...D }], 'no Deny statement has the condition aws:SecureTransport = false'],
    ['not an object', 'Deny', 'the bucket policy has no statements'],
    ['no statements', [null, 1, 'x', []], 'the bucket policy has no statements'],
    [
      'Action null',
      [{ ...D, Action: null, Condition: FALSE }],
      'the Deny has an Action that is not a string',
    ],
    ['Action empty', [{ ...D, Action: [], Condition: FALSE }], 'the Deny has an empty Action list'],
    [
      'Resource and NotResource',
      [{ ...D, NotResource: 'arn:aws:s3:::x', Condition: FALSE }],
      'the Deny has both Resource and NotResource',
    ],
    ['no Resource', [{ ...D, Resource: undefined, Condition: FALSE }], 'the Deny has no Resource'],
    [
      'Principal a number',
      [{ ...D, Principal: 7, Condition: FALSE }],
      'the Deny applies only to 7, not to everyone',
    ],
    [
      'a condition block that is not an object',
      [{ ...D, Condition: { ...FALSE, IpAddress: '10.0.0.0/8' } }],
      'the Deny also requires IpAddress, so requests from elsewhere are not denied',
    ],
  ];
  const policyOf = (statements: unknown) =>
    JSON.stringify({ Version: '2012-10-17', Statement: statements }).replaceAll('BKT', 'tfstate');

  it.each(VARIANTS)('%s: the verdict', (_, statements, reason) => {
    const violations = tlsOnlyRule.evaluate(subject({ policy: ok(policyOf(statements)) }));
    expect(violations.length > 0 ? 'finding' : 'TLS-only').toBe(
      reason === undefined ? 'TLS-only' : 'finding',
    );
  });

  it.each(VARIANTS.filter(([, , reason]) => reason !== undefined))(
    '%s: the detail says what is missing',
    (_, statements, reason) => {
      const [violation] = tlsOnlyRule.evaluate(subject({ policy: ok(policyOf(statements)) }));
      const missing = reason!.replaceAll('BKT', 'tfstate');
      expect(violation?.title).toBe('State bucket tfstate accepts requests without TLS');
      expect(violation?.detail).toBe(
        `The bucket policy of tfstate has no Deny statement for aws:SecureTransport = false covering the bucket and its objects: ${missing}.`,
      );
      expect(violation?.evidence).toEqual({ bucketPolicy: 'present without a TLS-only statement', missing });
    },
  );

  it('reads any text without throwing, and a pattern that would make a regular expression backtrack quickly', () => {
    for (const text of ['', 'null', '[]', '{"Statement":{"Effect":"Deny","Condition":[1]}}', '"x"', '1e999'])
      expect(tlsOnlyGap(text, 'tfstate'), text).toBeDefined();
    const hostile = policy({
      ...deny,
      Resource: ['arn:aws:s3:::tfstate', `${'*a'.repeat(4000)}b`],
    });
    const started = performance.now();
    expect(tlsOnlyGap(hostile, 'tfstate')).toMatch(/not arn:aws:s3:::tfstate\/\*$/);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('backend.object-ownership', () => {
  it.each(['BucketOwnerPreferred', 'ObjectWriter', undefined])('flags ACLs enabled (%s)', (ownership) => {
    const [violation] = objectOwnershipRule.evaluate(subject({ objectOwnership: ok(ownership) }));
    expect(violation?.evidence).toEqual({ objectOwnership: ownership ?? 'none' });
  });

  it('resets the bucket ACL to private before it disables ACLs (S3 refuses BucketOwnerEnforced while it grants to others)', () => {
    const [violation] = objectOwnershipRule.evaluate(subject({ objectOwnership: ok('ObjectWriter') }));
    const [terraform, cli] = violation!.remediation.steps;
    const reset = cli!.indexOf('aws s3api put-bucket-acl --bucket tfstate --acl private');
    expect(reset).toBeGreaterThan(0);
    expect(cli!.indexOf('put-bucket-ownership-controls')).toBeGreaterThan(reset);
    // Terraform cannot reset it (destroying an aws_s3_bucket_acl leaves the grants): the snippet says to, first.
    expect(terraform!.indexOf('acl = "private"')).toBeGreaterThan(0);
    expect(terraform!.indexOf('acl = "private"')).toBeLessThan(terraform!.indexOf('BucketOwnerEnforced'));
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

  it('a rule filtered on object size covers only the state objects of a size it matches (S3 compares strictly)', () => {
    // "Expire noncurrent versions of objects over 1 MiB": the small states keep every version.
    const lifecycle = ok([
      {
        enabled: true,
        tagFiltered: false,
        objectSize: { greaterThan: 1024 * 1024 },
        noncurrentVersionExpiration: { days: 30 },
      },
    ]);
    const stateObjectSizes = new Map([
      ['payments/terraform.tfstate', 4 * 1024 * 1024],
      ['env:/blue/payments/terraform.tfstate', 12_000],
    ]);
    const [violation] = noncurrentVersionRetentionRule.evaluate(subject({ lifecycle }, { stateObjectSizes }));
    expect(violation?.evidence).toMatchObject({
      expiringRules: 1,
      uncoveredExamples: ['env:/blue/payments/terraform.tfstate'],
    });
    const lessThan = ok([
      {
        enabled: true,
        tagFiltered: false,
        objectSize: { lessThan: 12_000 },
        noncurrentVersionExpiration: { days: 30 },
      },
    ]);
    const [strict] = noncurrentVersionRetentionRule.evaluate(
      subject({ lifecycle: lessThan }, { stateObjectSizes }),
    );
    expect(strict?.evidence.uncoveredExamples).toEqual([
      'payments/terraform.tfstate',
      'env:/blue/payments/terraform.tfstate',
    ]);
    // A size S3 did not list (a state named by the registry but not listed) is not assumed to match.
    const [unknown] = noncurrentVersionRetentionRule.evaluate(subject({ lifecycle }));
    expect(unknown?.evidence.uncoveredStateObjects).toBe(2);
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

  it('a configured table that does not exist is no "uses" finding (its read failure is reported); an unreadable one still is', () => {
    const failure = (code: string) => ({
      ok: false as const,
      failure: { resource: 'dynamodb:x', action: 'dynamodb:Scan', code, message: code },
    });
    const found = dynamodbLockingDeprecatedRule.evaluate(
      subject(
        {},
        {
          lockTables: [
            {
              table: 'no-such-table',
              configuredBy: ['--lock-table'],
              items: failure('ResourceNotFoundException'),
            },
            { table: 'tf-locks', configuredBy: ['payments-prod'], items: failure('AccessDeniedException') },
          ],
        },
      ),
    );
    expect(found.map((draft) => draft.resource)).toEqual([{ bucket: 'tfstate', lockTable: 'tf-locks' }]);
  });
});

describe('backend.lifecycle-removes-state', () => {
  const noncurrentOnly = {
    enabled: true,
    tagFiltered: false,
    noncurrentVersionExpiration: { days: 90, newerVersions: 10 },
  };

  it('flags a bucket-wide rule that expires or archives current versions, naming each rule', () => {
    const lifecycle = ok([
      noncurrentOnly,
      { id: 'logs-90d', enabled: true, tagFiltered: false, currentExpiration: { days: 90 } },
      {
        id: 'cold',
        enabled: true,
        tagFiltered: false,
        archivingTransitions: [{ storageClass: 'DEEP_ARCHIVE', days: 180 }],
      },
    ]);
    const [violation, ...more] = lifecycleRemovesStateRule.evaluate(subject({ lifecycle }));
    expect(more).toEqual([]);
    expect(violation?.title).toBe('A lifecycle rule of state bucket tfstate deletes or archives live state');
    expect(violation?.evidence).toEqual({
      rules: [
        'rule "logs-90d" expires current versions after 90 days',
        'rule "cold" moves current versions to DEEP_ARCHIVE after 180 days',
      ],
      coveredStateObjects: 2,
      coveredExamples: ['env:/blue/payments/terraform.tfstate', 'payments/terraform.tfstate'],
    });
    expect(violation?.remediation.summary).toMatch(/^Narrow rule "logs-90d", rule "cold" of tfstate /);
  });

  it('leaves alone rules that cannot reach a state: other prefixes, tag filters, disabled, sizes outside', () => {
    const lifecycle = ok([
      noncurrentOnly,
      { id: 'logs', enabled: true, prefix: 'logs/', tagFiltered: false, currentExpiration: { days: 1 } },
      { id: 'tagged', enabled: true, tagFiltered: true, currentExpiration: { days: 1 } },
      { id: 'off', enabled: false, tagFiltered: false, currentExpiration: { date: '2027-01-01' } },
      {
        id: 'huge',
        enabled: true,
        tagFiltered: false,
        objectSize: { greaterThan: 1024 ** 3 },
        archivingTransitions: [{ storageClass: 'GLACIER', days: 30 }],
      },
    ]);
    const stateObjectSizes = new Map([
      ['payments/terraform.tfstate', 40_000],
      ['env:/blue/payments/terraform.tfstate', 12_000],
    ]);
    expect(lifecycleRemovesStateRule.evaluate(subject({ lifecycle }, { stateObjectSizes }))).toEqual([]);
  });

  it('in a bucket with no state yet, flags a rule over every object, not one limited to a prefix', () => {
    const everything = ok([
      { id: 'all', enabled: true, tagFiltered: false, currentExpiration: { days: 30 } },
    ]);
    const [violation] = lifecycleRemovesStateRule.evaluate(
      subject({ lifecycle: everything }, { stateKeys: [] }),
    );
    expect(violation?.detail).toContain('applies to every object, the states to come included');
    const logsOnly = ok([
      { id: 'logs', enabled: true, prefix: 'logs/', tagFiltered: false, currentExpiration: { days: 30 } },
    ]);
    expect(lifecycleRemovesStateRule.evaluate(subject({ lifecycle: logsOnly }, { stateKeys: [] }))).toEqual(
      [],
    );
  });

  it("archive transitions under S3's 128 KiB transition minimum reach only states of that size or more", () => {
    // TransitionDefaultMinimumObjectSize all_storage_classes_128K: smaller objects never move.
    const cold = {
      id: 'cold',
      enabled: true,
      tagFiltered: false,
      archivingTransitions: [{ storageClass: 'GLACIER', days: 90 }],
      transitionsFromBytes: 128 * 1024,
    };
    const small = new Map([
      ['payments/terraform.tfstate', 40_000],
      ['env:/blue/payments/terraform.tfstate', 131_071],
    ]);
    expect(
      lifecycleRemovesStateRule.evaluate(subject({ lifecycle: ok([cold]) }, { stateObjectSizes: small })),
    ).toEqual([]);
    const [violation] = lifecycleRemovesStateRule.evaluate(
      subject(
        { lifecycle: ok([cold]) },
        { stateObjectSizes: new Map([...small, ['payments/terraform.tfstate', 131_072]]) },
      ),
    );
    expect(violation?.evidence).toEqual({
      rules: ['rule "cold" moves current versions of 128 KiB or more to GLACIER after 90 days'],
      coveredStateObjects: 1,
      coveredExamples: ['payments/terraform.tfstate'],
    });
    // An expiration has no size minimum; a bucket with no state yet is not warned of a sized transition.
    const alsoExpires = { ...cold, currentExpiration: { days: 365 } };
    expect(
      lifecycleRemovesStateRule.evaluate(
        subject({ lifecycle: ok([alsoExpires]) }, { stateObjectSizes: small }),
      ),
    ).toHaveLength(1);
    expect(lifecycleRemovesStateRule.evaluate(subject({ lifecycle: ok([cold]) }, { stateKeys: [] }))).toEqual(
      [],
    );
  });

  it('names a rule by its place when it has no ID, and an expiration on a date by the date', () => {
    const lifecycle = ok([
      { enabled: true, prefix: 'env:/', tagFiltered: false, currentExpiration: { date: '2027-01-01' } },
    ]);
    const [violation] = lifecycleRemovesStateRule.evaluate(subject({ lifecycle }));
    expect(violation?.evidence).toMatchObject({
      rules: ['a rule without an ID expires current versions on 2027-01-01'],
      coveredExamples: ['env:/blue/payments/terraform.tfstate'],
    });
  });
});
