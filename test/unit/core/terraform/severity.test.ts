import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { DEFAULT_POLICIES, type Policies } from '../../../../functions/core/registry/model.js';
import { BASE_SEVERITY, decideSeverity } from '../../../../functions/core/terraform/index.js';
import type { CompactAttributeChange } from '../../../../functions/core/terraform/plan-model.js';
import type { SeverityBase, SeveritySubject } from '../../../../functions/core/terraform/severity.js';

function change(segments: (string | number)[], before: unknown, after: unknown): CompactAttributeChange {
  return {
    path: segments.join('.'),
    segments,
    before: before as never,
    after: after as never,
    sensitive: false,
  };
}

function subject(
  type: string,
  changes: CompactAttributeChange[],
  overrides: Partial<SeveritySubject> = {},
): SeveritySubject {
  return {
    base: 'drift.update',
    ruleId: 'drift.update',
    resource: { address: `${type}.x`, type },
    deleted: false,
    changes,
    ...overrides,
  };
}

const prod = { environment: 'prod', policies: DEFAULT_POLICIES };
const severityOf = (
  value: SeveritySubject,
  context: { environment?: string; policies: Policies } = prod,
): Severity => decideSeverity(value, context).severity;

describe('base severity by rule', () => {
  it.each([
    ['drift.update', 'medium'],
    ['drift.delete', 'high'],
    ['drift.replace', 'high'],
    ['drift.moved', 'info'],
    ['drift.ignored-changes', 'info'],
    ['drift.output', 'info'],
    ['pending.import', 'info'],
    ['pending.create', 'low'],
    ['pending.update', 'medium'],
    ['pending.delete', 'high'],
    ['pending.replace', 'high'],
  ] as const)('%s is %s', (base, expected) => {
    expect(BASE_SEVERITY[base as SeverityBase]).toBe(expected);
    expect(severityOf(subject('aws_sqs_queue', [change(['delay_seconds'], 0, 5)], { base }))).toBe(expected);
  });
});

describe('content rules', () => {
  const rule = { cidr_blocks: ['0.0.0.0/0'], from_port: 22, to_port: 22 };
  it.each<[string, SeveritySubject, Severity]>([
    [
      'SG ingress rule added open to the world',
      subject('aws_security_group', [change(['ingress', 0], null, rule)]),
      'critical',
    ],
    [
      'SG ingress cidr changed to ::/0',
      subject('aws_security_group', [change(['ingress', 1, 'ipv6_cidr_blocks', 0], '2001:db8::/32', '::/0')]),
      'critical',
    ],
    [
      'SG egress open is not escalated',
      subject('aws_security_group', [change(['egress', 0], null, rule)]),
      'medium',
    ],
    [
      'SG ingress closed (0.0.0.0/0 removed) is not escalated',
      subject('aws_security_group', [change(['ingress', 0], rule, null)]),
      'medium',
    ],
    [
      'vpc ingress rule to 0.0.0.0/0',
      subject('aws_vpc_security_group_ingress_rule', [change(['cidr_ipv4'], '10.0.0.0/8', '0.0.0.0/0')]),
      'critical',
    ],
    [
      'aws_security_group_rule of type ingress',
      subject('aws_security_group_rule', [change(['cidr_blocks', 0], '10.0.0.0/8', '0.0.0.0/0')], {
        resource: {
          address: 'aws_security_group_rule.x',
          type: 'aws_security_group_rule',
          identity: { type: 'ingress' },
        },
      }),
      'critical',
    ],
    [
      'aws_security_group_rule of type egress',
      subject('aws_security_group_rule', [change(['cidr_blocks', 0], '10.0.0.0/8', '0.0.0.0/0')], {
        resource: {
          address: 'aws_security_group_rule.x',
          type: 'aws_security_group_rule',
          identity: { type: 'egress' },
        },
      }),
      'medium',
    ],
    [
      'block_public_policy set false',
      subject('aws_s3_bucket_public_access_block', [change(['block_public_policy'], true, false)]),
      'critical',
    ],
    [
      'public access block deleted',
      subject('aws_s3_bucket_public_access_block', [], { base: 'drift.delete', deleted: true }),
      'critical',
    ],
    [
      'publicly_accessible true',
      subject('aws_db_instance', [change(['publicly_accessible'], false, true)]),
      'critical',
    ],
    [
      'acl public-read',
      subject('aws_s3_bucket_acl', [change(['acl'], 'private', 'public-read')]),
      'critical',
    ],
    [
      'created bucket ACL grants AllUsers',
      subject(
        'aws_s3_bucket_acl',
        [
          change(['access_control_policy'], null, [
            { grant: [{ grantee: [{ uri: 'http://acs.amazonaws.com/groups/global/AllUsers' }] }] },
          ]),
        ],
        { base: 'pending.create' },
      ),
      'critical',
    ],
    [
      'IAM assume_role_policy',
      subject('aws_iam_role', [change(['assume_role_policy', 'Statement', 0, 'Principal'], 'a', 'b')]),
      'high',
    ],
    [
      'IAM managed_policy_arns',
      subject('aws_iam_role', [
        change(['managed_policy_arns', 0], null, 'arn:aws:iam::aws:policy/AdministratorAccess'),
      ]),
      'high',
    ],
    [
      'any policy attribute',
      subject('aws_sqs_queue', [change(['policy', 'Statement', 0, 'Effect'], 'Deny', 'Allow')]),
      'high',
    ],
    [
      'name that merely contains policy',
      subject('aws_sqs_queue', [change(['redrive_policy'], '', '{}')]),
      'medium',
    ],
    [
      'bucket encryption removed',
      subject('aws_s3_bucket', [change(['server_side_encryption_configuration', 0], {}, null)]),
      'high',
    ],
    ['kms_key_id changed', subject('aws_ebs_volume', [change(['kms_key_id'], 'a', 'b')]), 'high'],
    ['storage_encrypted', subject('aws_rds_cluster', [change(['storage_encrypted'], true, false)]), 'high'],
    [
      'sse_* settings',
      subject('aws_dynamodb_table', [change(['server_side_encryption', 0, 'sse_type'], 'KMS', 'AES256')]),
      'high',
    ],
    [
      'a resource to be created with encryption on is no encryption change',
      subject(
        'aws_db_instance',
        [
          change(['storage_encrypted'], null, true),
          change(['kms_key_id'], null, 'arn:aws:kms:eu-west-1:1:key/k'),
        ],
        { base: 'pending.create', ruleId: 'pending.create' },
      ),
      'low',
    ],
    [
      'an encryption configuration to be created is no encryption change',
      subject('aws_s3_bucket_server_side_encryption_configuration', [change(['bucket'], null, 'b')], {
        base: 'pending.create',
        ruleId: 'pending.create',
      }),
      'low',
    ],
    [
      'encryption turned off by the next apply still is',
      subject('aws_rds_cluster', [change(['storage_encrypted'], true, false)], {
        base: 'pending.update',
        ruleId: 'pending.update',
      }),
      'high',
    ],
    [
      'a tag named like encryption is still a tag',
      subject('aws_sqs_queue', [change(['tags', 'encrypted'], 'yes', 'no')]),
      'low',
    ],
    [
      'tags only',
      subject('aws_sqs_queue', [
        change(['tags', 'Owner'], 'a', 'b'),
        change(['tags_all', 'Owner'], 'a', 'b'),
      ]),
      'low',
    ],
    [
      'tags and more',
      subject('aws_sqs_queue', [change(['tags', 'Owner'], 'a', 'b'), change(['delay_seconds'], 0, 1)]),
      'medium',
    ],
    [
      'tags-only does not lower a deletion',
      subject('aws_sqs_queue', [change(['tags', 'Owner'], 'a', 'b')], { base: 'drift.replace' }),
      'high',
    ],
    [
      'content never raises info',
      subject('aws_security_group', [change(['ingress', 0], null, rule)], { base: 'drift.moved' }),
      'info',
    ],
  ])('%s', (_name, value, expected) => {
    expect(severityOf(value)).toBe(expected);
  });

  it('records why', () => {
    expect(
      decideSeverity(subject('aws_security_group', [change(['ingress', 0], null, rule)]), {
        ...prod,
        environment: 'staging',
      }).reasons,
    ).toEqual([
      'base: drift.update is medium',
      'open-ingress: security group ingress opened to 0.0.0.0/0 or ::/0: critical',
      'environment staging is not production: critical → high',
    ]);
  });
});

describe('iam-policy: who holds a policy', () => {
  // A user added by hand to a group (AddUserToGroup), as the refresh-only plan shows it against moto
  // (Terraform 1.11.4, provider 5.100.0): the group's policies are now the user's.
  it.each<[string, SeveritySubject]>([
    [
      'aws_iam_group_membership users',
      subject('aws_iam_group_membership', [change(['users', 0], null, 'intruder')]),
    ],
    [
      'aws_iam_user_group_membership groups',
      subject('aws_iam_user_group_membership', [change(['groups', 1], null, 'admins')]),
    ],
    [
      'aws_iam_policy_attachment roles',
      subject('aws_iam_policy_attachment', [change(['roles', 0], null, 'ci')]),
    ],
  ])('%s changed is high', (_name, value) => {
    expect(severityOf(value)).toBe('high');
  });

  it('the same attribute names outside aws_iam_* are not IAM', () => {
    expect(severityOf(subject('aws_cognito_user_pool', [change(['groups', 0], null, 'x')]))).toBe('medium');
  });
});

describe('iam-policy: a policy attribute that holds another kind of document', () => {
  // aws_ecr_lifecycle_policy.policy changed by hand (PutLifecyclePolicy, keep 3 images instead of 10),
  // as the refresh-only plan shows it (Terraform 1.11.4, provider 5.100.0, moto): diffed inside.
  const lifecycle = (count: number) =>
    JSON.stringify({
      rules: [
        {
          rulePriority: 1,
          description: `keep ${count}`,
          selection: { tagStatus: 'any', countType: 'imageCountMoreThan', countNumber: count },
          action: { type: 'expire' },
        },
      ],
    });
  const iam = JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::111111111111:root' }, Action: 'ecr:*' }],
  });

  it.each<[string, CompactAttributeChange[], Severity]>([
    [
      'a change inside an ECR lifecycle policy is an ordinary update',
      [change(['policy', 'rules', 0, 'selection', 'countNumber'], 10, 3)],
      'medium',
    ],
    ['a lifecycle policy set or replaced whole', [change(['policy'], lifecycle(10), lifecycle(3))], 'medium'],
    ['a lifecycle policy set where there was none', [change(['policy'], '', lifecycle(3))], 'medium'],
    [
      'a change inside an IAM document is high',
      [change(['policy', 'Statement', 0, 'Action'], 'ecr:Get*', 'ecr:*')],
      'high',
    ],
    ['an IAM document set whole is high', [change(['policy'], '', iam)], 'high'],
    ['a policy that is not JSON is taken for IAM (high)', [change(['policy'], 'a', 'b')], 'high'],
  ])('%s', (_name, changes, expected) => {
    expect(severityOf(subject('aws_ecr_lifecycle_policy', changes))).toBe(expected);
  });

  it('an aws_iam_* policy stays high whatever it holds', () => {
    expect(
      severityOf(
        subject('aws_iam_policy', [change(['policy', 'rules', 0, 'selection', 'countNumber'], 10, 3)]),
      ),
    ).toBe('high');
  });
});

describe('environment and overrides', () => {
  const update = subject('aws_sqs_queue', [change(['delay_seconds'], 0, 5)]);

  it('non-production environments rank one level lower; info stays info; low stays low', () => {
    expect(severityOf(update, { environment: 'dev', policies: DEFAULT_POLICIES })).toBe('low');
    expect(severityOf(update, { environment: 'Production', policies: DEFAULT_POLICIES })).toBe('medium');
    expect(
      severityOf(subject('x', [], { base: 'drift.moved' }), {
        environment: 'dev',
        policies: DEFAULT_POLICIES,
      }),
    ).toBe('info');
    expect(
      severityOf(subject('x', [], { base: 'pending.create' }), {
        environment: 'dev',
        policies: DEFAULT_POLICIES,
      }),
    ).toBe('low');
  });

  it('without an environment nothing is lowered', () => {
    expect(severityOf(update, { policies: DEFAULT_POLICIES })).toBe('medium');
  });

  it('the first matching registry override wins', () => {
    const policies: Policies = {
      ...DEFAULT_POLICIES,
      severity: {
        production: ['prod'],
        overrides: [
          { ruleId: 'drift.delete', severity: 'critical' },
          { address: 'aws_sqs_queue.*', environment: 'prod', severity: 'low' },
          { address: 'aws_sqs_queue.*', severity: 'high' },
        ],
      },
    };
    expect(severityOf(update, { environment: 'prod', policies })).toBe('low');
    expect(severityOf(update, { environment: 'dev', policies })).toBe('high');
    expect(
      severityOf(subject('aws_sqs_queue', [], { base: 'drift.delete', ruleId: 'drift.delete' }), {
        environment: 'prod',
        policies,
      }),
    ).toBe('critical');
    expect(decideSeverity(update, { environment: 'prod', policies }).reasons.at(-1)).toBe(
      'registry override: low',
    );
  });
});
