import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES, type Policies } from '../../../../functions/core/registry/model.js';
import { evaluatePlan, NOISE_RULES } from '../../../../functions/core/terraform/index.js';
import {
  context,
  entry,
  hashSensitive,
  ingressRule,
  plan,
  stateResource,
} from '../../../helpers/plan-builders.js';

function evaluate(raw: unknown, policies: Policies = DEFAULT_POLICIES, now?: Date) {
  return evaluatePlan(raw, { ...context({ policies, ...(now ? { now } : {}) }), hashSensitive });
}

function withNoise(noise: Partial<Policies['noise']>): Policies {
  return { ...DEFAULT_POLICIES, noise: { ...DEFAULT_POLICIES.noise, ...noise } };
}

const changedPaths = (result: ReturnType<typeof evaluate>) =>
  result.findings.map((finding) => [
    (finding.resource as { address: string }).address,
    finding.drift?.changes.map((change) => change.path),
  ]);

describe('the noise normaliser', () => {
  it('is one ordered list of named rules', () => {
    expect(NOISE_RULES.map((rule) => rule.name)).toEqual([
      'fold-tags-all',
      'null-versus-empty',
      'equivalent-json',
      'equivalent-protocol',
      'companion-attributes',
      'volatile-attributes',
      'ignore',
    ]);
  });
});

describe('volatile-attributes', () => {
  // `terraform plan -refresh-only` right after `terraform apply` of an aws_db_instance with
  // `password_wo` (Terraform 1.11.4, AWS provider 5.100.0, moto): nobody touched it, yet
  // latest_restorable_time moved (RDS advances it every few minutes), next to null → [] / {} noise.
  // Trimmed to the attributes that differ and the write-only password, as the plan shows them.
  const dbValues = (latest: string, empty: [] | null, tags: Record<string, string> | null) => ({
    domain_dns_ips: empty,
    enabled_cloudwatch_logs_exports: empty,
    identifier: 'wo-db',
    instance_class: 'db.t3.micro',
    latest_restorable_time: latest,
    password: null,
    password_wo: null,
    password_wo_version: 1,
    tags,
    username: 'app',
  });
  const dbMask = { password: true, password_wo: true, tags_all: {} };
  const refreshAfterApply = (afterClass = 'db.t3.micro') =>
    plan({
      drift: [
        entry('aws_db_instance.db', {
          before: dbValues('2026-12-02T17:56:20Z', null, null),
          after: { ...dbValues('2026-12-02T17:56:29Z', [], {}), instance_class: afterClass },
          beforeSensitive: dbMask,
          afterSensitive: { ...dbMask, domain_dns_ips: [], enabled_cloudwatch_logs_exports: [], tags: {} },
        }),
        entry('aws_ami.base', {
          before: { name: 'base', last_launched_time: '2026-12-01T08:00:00Z' },
          after: { name: 'base', last_launched_time: '2026-12-02T09:30:00Z' },
        }),
      ],
    });

  it('drops what AWS moves on by itself: no finding for an untouched database or AMI', () => {
    const result = evaluate(refreshAfterApply());
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved).toContainEqual({
      rule: 'volatile-attributes',
      address: 'aws_db_instance.db',
      paths: ['latest_restorable_time'],
    });
    expect(result.noiseRemoved).toContainEqual({
      rule: 'volatile-attributes',
      address: 'aws_ami.base',
      paths: ['last_launched_time'],
    });
  });

  // `terraform plan -refresh-only` right after the apply of an aws_iam_policy and the
  // aws_iam_role_policy_attachment that attaches it (Terraform 1.11.4, AWS provider 5.100.0, moto):
  // the policy was read with 0 attachments before the attachment was made. Attaching it anywhere
  // else moves the count the same way; the policy document itself is still compared.
  it('drops the attachment count of an IAM policy, which moves with every attachment made anywhere', () => {
    const policy = (count: number, document: string) => ({
      arn: 'arn:aws:iam::123456789012:policy/read4',
      attachment_count: count,
      name: 'read4',
      policy: document,
    });
    const read =
      '{"Statement":[{"Action":"s3:GetObject","Effect":"Allow","Resource":"*"}],"Version":"2012-10-17"}';
    const attached = plan({
      drift: [entry('aws_iam_policy.read', { before: policy(0, read), after: policy(1, read) })],
    });
    expect(evaluate(attached).findings).toEqual([]);
    const widened = plan({
      drift: [
        entry('aws_iam_policy.read', {
          before: policy(1, read),
          after: policy(2, read.replace('s3:GetObject', 's3:*')),
        }),
      ],
    });
    expect(changedPaths(evaluate(widened))).toEqual([
      ['aws_iam_policy.read', ['policy.Statement[0].Action']],
    ]);
  });

  it('keeps a real change next to it, and the attribute on other types', () => {
    const raw = refreshAfterApply('db.m5.large');
    (raw.resource_drift as unknown[]).push(
      entry('aws_instance.web', {
        before: { latest_restorable_time: 'a' },
        after: { latest_restorable_time: 'b' },
      }),
    );
    expect(changedPaths(evaluate(raw))).toEqual([
      ['aws_db_instance.db', ['instance_class']],
      ['aws_instance.web', ['latest_restorable_time']],
    ]);
  });

  // Values as the AWS provider (5.100.0) holds them: an EKS platform upgrade, an RDS minor version
  // taken in the maintenance window (engine_version "16" as configured), an ACM managed renewal
  // (renewal_summary is a list of objects: its nested changes go with it), a CloudFront distribution
  // applied with wait_for_deployment = false, an event source mapping that processed records.
  const awsMovedOn = (engineVersion = '16') =>
    plan({
      drift: [
        entry('aws_eks_cluster.main', {
          before: { name: 'main', version: '1.31', platform_version: 'eks.12' },
          after: { name: 'main', version: '1.31', platform_version: 'eks.19' },
        }),
        entry('aws_rds_cluster.app', {
          before: { cluster_identifier: 'app', engine_version: '16', engine_version_actual: '16.4' },
          after: { cluster_identifier: 'app', engine_version: engineVersion, engine_version_actual: '16.6' },
        }),
        entry('aws_acm_certificate.site', {
          before: {
            domain_name: 'example.com',
            not_after: '2026-12-20T23:59:59Z',
            not_before: '2025-11-21T00:00:00Z',
            renewal_eligibility: 'ELIGIBLE',
            renewal_summary: [],
            status: 'ISSUED',
          },
          after: {
            domain_name: 'example.com',
            not_after: '2027-12-20T23:59:59Z',
            not_before: '2026-11-21T00:00:00Z',
            renewal_eligibility: 'ELIGIBLE',
            renewal_summary: [
              {
                renewal_status: 'SUCCESS',
                renewal_status_reason: '',
                updated_at: '2026-11-21T10:00:00Z',
              },
            ],
            status: 'ISSUED',
          },
        }),
        entry('aws_cloudfront_distribution.cdn', {
          before: { enabled: true, status: 'InProgress' },
          after: { enabled: true, status: 'Deployed' },
        }),
        entry('aws_lambda_event_source_mapping.queue', {
          before: { function_name: 'worker', last_processing_result: 'No records processed' },
          after: { function_name: 'worker', last_processing_result: 'OK' },
        }),
      ],
    });

  it('drops platform upgrades, minor versions, renewals and deployments AWS made by itself', () => {
    const result = evaluate(awsMovedOn());
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved).toContainEqual({
      rule: 'volatile-attributes',
      address: 'aws_acm_certificate.site',
      paths: ['not_after', 'not_before', 'renewal_summary[0]'],
    });
  });

  // terraform plan -refresh-only right after an apply of a DNS-validated aws_acm_certificate (Terraform
  // 1.11.4, AWS provider 5.100.0, moto): the apply stored PENDING_VALIDATION, ACM issued it since.
  it('drops a certificate ACM issued after the apply, but not a status someone changed elsewhere', () => {
    const issued = plan({
      drift: [
        entry('aws_acm_certificate.app', {
          before: { domain_name: 'app.example.com', status: 'PENDING_VALIDATION' },
          after: { domain_name: 'app.example.com', status: 'ISSUED' },
        }),
        entry('aws_iam_access_key.ci', {
          before: { user: 'ci', status: 'Active' },
          after: { user: 'ci', status: 'Inactive' },
        }),
      ],
    });
    const result = evaluate(issued);
    expect(changedPaths(result)).toEqual([['aws_iam_access_key.ci', ['status']]]);
    expect(result.noiseRemoved).toContainEqual({
      rule: 'volatile-attributes',
      address: 'aws_acm_certificate.app',
      paths: ['status'],
    });
    expect(changedPaths(evaluate(issued, withNoise({ volatileAttributes: false })))).toEqual([
      ['aws_acm_certificate.app', ['status']],
      ['aws_iam_access_key.ci', ['status']],
    ]);
  });

  it('keeps the configured version when it moved too (a major upgrade out of band)', () => {
    expect(changedPaths(evaluate(awsMovedOn('17')))).toEqual([['aws_rds_cluster.app', ['engine_version']]]);
  });

  it('can be switched off', () => {
    expect(changedPaths(evaluate(awsMovedOn(), withNoise({ volatileAttributes: false })))).toEqual([
      ['aws_acm_certificate.site', ['not_after', 'not_before', 'renewal_summary[0]']],
      ['aws_cloudfront_distribution.cdn', ['status']],
      ['aws_eks_cluster.main', ['platform_version']],
      ['aws_lambda_event_source_mapping.queue', ['last_processing_result']],
      ['aws_rds_cluster.app', ['engine_version_actual']],
    ]);
    expect(changedPaths(evaluate(refreshAfterApply(), withNoise({ volatileAttributes: false })))).toEqual([
      ['aws_ami.base', ['last_launched_time']],
      ['aws_db_instance.db', ['latest_restorable_time']],
    ]);
  });
});

describe('null-versus-empty', () => {
  const raw = plan({
    drift: [
      entry('aws_instance.web', {
        before: {
          tags: null,
          user_group: [],
          description: null,
          block: [{ inner: null, other: 'a' }],
          bucket_key_enabled: null,
          retries: 0,
          enabled: null,
          size: 1,
        },
        after: {
          tags: {},
          user_group: null,
          description: '',
          block: [{ inner: [], other: 'a' }],
          bucket_key_enabled: false,
          retries: null,
          enabled: true,
          size: 2,
        },
      }),
    ],
  });

  it('drops null vs {} / [] / "" / false / 0 in either direction, at any depth, but not null vs a real value', () => {
    const result = evaluate(raw);
    expect(changedPaths(result)).toEqual([['aws_instance.web', ['enabled', 'size']]]);
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      {
        rule: 'null-versus-empty',
        paths: ['tags', 'user_group', 'description', 'block[0].inner', 'bucket_key_enabled', 'retries'],
      },
    ]);
  });

  it('can be switched off', () => {
    expect(changedPaths(evaluate(raw, withNoise({ nullVersusEmpty: false })))).toEqual([
      [
        'aws_instance.web',
        [
          'tags',
          'user_group',
          'description',
          'block[0].inner',
          'bucket_key_enabled',
          'retries',
          'enabled',
          'size',
        ],
      ],
    ]);
  });

  it('a resource whose changes are all noise yields no finding but its noise is recorded', () => {
    const quiet = plan({
      drift: [entry('aws_instance.web', { before: { tags: null }, after: { tags: {} } })],
    });
    const result = evaluate(quiet);
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved).toEqual([
      { rule: 'null-versus-empty', address: 'aws_instance.web', paths: ['tags'] },
    ]);
  });
});

describe('null-versus-empty under a secret-looking name or a sensitive mask', () => {
  // terraform plan -refresh-only right after an apply of an aws_wafv2_web_acl without token domains
  // (Terraform 1.11.4, AWS provider 5.100.0, moto): token_domains null → [], hashed by its name.
  // Beside it, a password the provider marks sensitive read back as "" where the state held null.
  const refresh = (tokenDomains: string[], password: string) =>
    plan({
      drift: [
        entry('aws_wafv2_web_acl.app', {
          before: { name: 'app', token_domains: null, tags: null },
          after: { name: 'app', token_domains: tokenDomains, tags: {} },
          beforeSensitive: { tags_all: {} },
          afterSensitive: { tags: {}, tags_all: {}, token_domains: tokenDomains.map(() => false) },
        }),
        entry('aws_mq_broker.queue', {
          before: { name: 'queue', user: [{ username: 'app', password: null }] },
          after: { name: 'queue', user: [{ username: 'app', password }] },
          beforeSensitive: { user: [{ password: true }] },
          afterSensitive: { user: [{ password: true }] },
        }),
      ],
    });

  it('is noise though both sides are hashed: nothing became empty, no finding', () => {
    const result = evaluate(refresh([], ''));
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved).toEqual(
      expect.arrayContaining([
        { rule: 'null-versus-empty', address: 'aws_wafv2_web_acl.app', paths: ['token_domains', 'tags'] },
        { rule: 'null-versus-empty', address: 'aws_mq_broker.queue', paths: ['user[0].password'] },
      ]),
    );
  });

  it('a value set by hand is still drift, hashed', () => {
    const result = evaluate(refresh(['example.com'], 'hunter2-CANARY'));
    expect(changedPaths(result)).toEqual([
      ['aws_mq_broker.queue', ['user[0].password']],
      ['aws_wafv2_web_acl.app', ['token_domains']],
    ]);
    const changes = result.findings.flatMap((finding) => finding.drift?.changes ?? []);
    expect(changes.every((change) => change.sensitive && change.before === null)).toBe(true);
    expect(JSON.stringify(result)).not.toContain('hunter2-CANARY');
    expect(JSON.stringify(result)).not.toContain('nullVersusEmpty');
  });
});

describe('fold-tags-all', () => {
  it('folds tags_all.K into tags.K (one change each) and renames provider default tags', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.q', {
          before: { tags: { Owner: 'a' }, tags_all: { Owner: 'a', CostCenter: '1' } },
          after: { tags: { Owner: 'b' }, tags_all: { Owner: 'b', CostCenter: '2' } },
        }),
      ],
    });
    const result = evaluate(raw);
    expect(result.findings[0]?.drift?.changes).toEqual([
      { path: 'tags.Owner', before: 'a', after: 'b', sensitive: false },
      { path: 'tags.CostCenter', before: '1', after: '2', sensitive: false },
    ]);
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'fold-tags-all', paths: ['tags_all.Owner', 'tags_all.CostCenter'] },
    ]);
    expect(changedPaths(evaluate(raw, withNoise({ foldTagsAll: false })))).toEqual([
      ['aws_sqs_queue.q', ['tags.Owner', 'tags_all.Owner', 'tags_all.CostCenter']],
    ]);
  });
});

describe('fold-tags-all: the first tag of a resource applied without tags', () => {
  // aws_sns_topic applied with no tags (state: tags null, tags_all {}), then tagged by hand
  // (TagResource Team=x): the refresh-only plan (Terraform 1.11.4, provider 5.100.0, moto) shows
  // `tags` whole, null → {Team: x}, and tags_all by key.
  const topic = (tags: Record<string, string> | null, tagsAll: Record<string, string>) => ({
    arn: 'arn:aws:sns:eu-west-1:123456789012:sweep-events',
    id: 'arn:aws:sns:eu-west-1:123456789012:sweep-events',
    name: 'sweep-events',
    tags,
    tags_all: tagsAll,
  });
  const tagged = (before: [Record<string, string> | null, Record<string, string>], after: typeof before) =>
    plan({
      drift: [entry('aws_sns_topic.events', { before: topic(...before), after: topic(...after) })],
      prior: [stateResource('aws_sns_topic.events', topic(...before))],
    });

  it('is one change per tag, tags.K, not the whole tags beside the same tag again', () => {
    const result = evaluate(
      tagged(
        [null, {}],
        [
          { Team: 'x', Env: 'prod' },
          { Team: 'x', Env: 'prod' },
        ],
      ),
    );
    expect(result.findings[0]?.drift?.changes).toEqual([
      { path: 'tags.Team', before: null, after: 'x', sensitive: false },
      { path: 'tags.Env', before: null, after: 'prod', sensitive: false },
    ]);
    expect(result.findings[0]?.severity).toBe('low');
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'fold-tags-all', paths: ['tags_all.Team', 'tags_all.Env', 'tags'] },
    ]);
  });

  it('the last tags removed (tags → null), and a provider default tag set by hand, likewise; changes that disagree are both kept', () => {
    expect(changedPaths(evaluate(tagged([{ Team: 'x' }, { Team: 'x' }], [null, {}])))).toEqual([
      ['aws_sns_topic.events', ['tags.Team']],
    ]);
    // A provider default tag (default_tags ManagedBy = terraform) set by hand on that resource: one
    // change from the default, as for a resource with tags.
    const defaulted = evaluate(
      tagged([null, { ManagedBy: 'terraform' }], [{ ManagedBy: 'hand' }, { ManagedBy: 'hand' }]),
    );
    expect(defaulted.findings[0]?.drift?.changes).toEqual([
      { path: 'tags.ManagedBy', before: 'terraform', after: 'hand', sensitive: false },
    ]);
    // A default tag in tags_all that tags does not hold: not the same change, nothing dropped.
    expect(
      changedPaths(evaluate(tagged([null, {}], [{ Team: 'x' }, { Team: 'x', ManagedBy: 'tf' }]))),
    ).toEqual([['aws_sns_topic.events', ['tags', 'tags.Team', 'tags.ManagedBy']]]);
  });
});

describe('fold-tags-all: a provider default tag set by hand', () => {
  // Refresh-only plan of an aws_dynamodb_table (Terraform 1.11.4, AWS provider 5.100.0, moto) with
  // default_tags { ManagedBy = "terraform" }, after `aws dynamodb tag-resource … ManagedBy=hand`.
  it('is one change of tags.K from the default value, not a new tag and a tags_all change', () => {
    const raw = plan({
      drift: [
        entry('aws_dynamodb_table.t', {
          before: { name: 'items', tags: { Env: 'prod' }, tags_all: { Env: 'prod', ManagedBy: 'terraform' } },
          after: {
            name: 'items',
            tags: { Env: 'prod', ManagedBy: 'hand' },
            tags_all: { Env: 'prod', ManagedBy: 'hand' },
          },
        }),
      ],
    });
    const result = evaluate(raw);
    expect(result.findings[0]?.drift?.changes).toEqual([
      { path: 'tags.ManagedBy', before: 'terraform', after: 'hand', sensitive: false },
    ]);
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'fold-tags-all', paths: ['tags_all.ManagedBy'] },
    ]);
  });
});

describe('equivalent-json', () => {
  const before = JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Sid: 'A', Effect: 'Allow', Action: ['s3:GetObject'], Resource: '*' },
      { Sid: 'B', Effect: 'Deny', Action: 's3:DeleteObject', Resource: '*' },
    ],
  });
  // AWS hands the policy back with keys reordered, statements reordered and singletons unwrapped.
  const after = JSON.stringify({
    Statement: [
      { Action: ['s3:DeleteObject'], Effect: 'Deny', Resource: ['*'], Sid: 'B' },
      { Action: 's3:GetObject', Effect: 'Allow', Resource: '*', Sid: 'A' },
    ],
    Version: '2012-10-17',
  });
  const raw = plan({
    drift: [
      entry('aws_iam_policy.p', {
        before: { policy: before, name: 'p' },
        after: { policy: after, name: 'p' },
      }),
    ],
  });

  it('drops re-serialised but equivalent policy documents', () => {
    const result = evaluate(raw);
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved).toEqual([
      { rule: 'equivalent-json', address: 'aws_iam_policy.p', paths: ['policy'] },
    ]);
  });

  it('drops a trust policy whose account AWS rewrote as its root ARN', () => {
    const trust = (account: string) =>
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { AWS: account }, Action: 'sts:AssumeRole' }],
      });
    const rewritten = plan({
      drift: [
        entry('aws_iam_role.r', {
          before: { assume_role_policy: trust('111111111111'), name: 'r' },
          after: { assume_role_policy: trust('arn:aws-us-gov:iam::111111111111:root'), name: 'r' },
        }),
      ],
    });
    expect(evaluate(rewritten).findings).toEqual([]);
    const otherAccount = plan({
      drift: [
        entry('aws_iam_role.r', {
          before: { assume_role_policy: trust('111111111111'), name: 'r' },
          after: { assume_role_policy: trust('arn:aws:iam::999999999999:root'), name: 'r' },
        }),
      ],
    });
    expect(changedPaths(evaluate(otherAccount))).toEqual([
      ['aws_iam_role.r', ['assume_role_policy.Statement[0].Principal.AWS']],
    ]);
  });

  it('reports them when switched off', () => {
    const result = evaluate(raw, withNoise({ equivalentJson: false }));
    expect(result.findings[0]?.drift?.changes).toEqual([{ path: 'policy', before, after, sensitive: false }]);
    expect(result.findings[0]?.severity).toBe('high');
  });

  it('treats a re-serialised sensitive document (equal content hashes) as equivalent', () => {
    const sensitive = plan({
      drift: [
        entry('aws_ecs_task_definition.t', {
          before: { container_definitions: '[{"name":"a","image":"x"}]' },
          after: { container_definitions: '[ { "image": "x", "name": "a" } ]' },
          beforeSensitive: { container_definitions: true },
          afterSensitive: { container_definitions: true },
        }),
      ],
    });
    expect(evaluate(sensitive).findings).toEqual([]);
  });
});

describe('companion-attributes', () => {
  // aws_vpc_security_group_ingress_rule / _egress_rule of provider 5.100.0: one source, ports, protocol.
  const vpcRule = (id: string) => ({
    id,
    security_group_id: 'sg-1',
    cidr_ipv4: '10.0.0.0/8',
    from_port: 443,
    to_port: 443,
    ip_protocol: 'tcp',
  });

  function parentAndCompanion(
    parent: string,
    parentValues: Record<string, unknown>,
    changed: Record<string, [unknown, unknown]>,
    companions: unknown[],
  ) {
    const before: Record<string, unknown> = { ...parentValues };
    const after: Record<string, unknown> = { ...parentValues };
    for (const [key, [b, a]] of Object.entries(changed)) {
      before[key] = b;
      after[key] = a;
    }
    return plan({
      drift: [entry(parent, { before, after })],
      prior: [stateResource(parent, parentValues), ...companions],
    });
  }

  it('IAM role: inline_policy with aws_iam_role_policy and managed_policy_arns with attachments (linked by role name)', () => {
    const raw = parentAndCompanion(
      'aws_iam_role.app',
      { name: 'app-role', id: 'app-role', max_session_duration: 3600 },
      {
        inline_policy: [[], [{ name: 'inline', policy: '{}' }]],
        managed_policy_arns: [[], ['arn:aws:iam::aws:policy/ReadOnlyAccess']],
        max_session_duration: [3600, 7200],
      },
      [
        stateResource('aws_iam_role_policy.inline', {
          id: 'app-role:inline',
          role: 'app-role',
          name: 'inline',
        }),
        stateResource('aws_iam_role_policy_attachment.ro', {
          id: 'x',
          role: 'app-role',
          policy_arn: 'arn:aws:iam::aws:policy/ReadOnlyAccess',
        }),
      ],
    );
    const result = evaluate(raw);
    expect(changedPaths(result)).toEqual([['aws_iam_role.app', ['max_session_duration']]]);
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'companion-attributes', paths: ['inline_policy[0]', 'managed_policy_arns[0]'] },
    ]);
  });

  it('IAM role: managed_policy_arns with an aws_iam_policy_attachment that lists the role among its roles', () => {
    const raw = parentAndCompanion(
      'aws_iam_role.app',
      { name: 'app-role', id: 'app-role' },
      {
        managed_policy_arns: [
          [],
          ['arn:aws:iam::111111111111:policy/logs', 'arn:aws:iam::111111111111:policy/admin'],
        ],
      },
      [
        stateResource('aws_iam_policy_attachment.logs', {
          id: 'logs',
          name: 'logs',
          roles: ['ci-role', 'app-role'],
          policy_arn: 'arn:aws:iam::111111111111:policy/logs',
        }),
      ],
    );
    expect(changedPaths(evaluate(raw))).toEqual([['aws_iam_role.app', ['managed_policy_arns[1]']]]);
  });

  it('only mutes the attribute its own companion manages, and only for the linked parent', () => {
    const raw = parentAndCompanion(
      'aws_iam_role.app',
      { name: 'app-role', id: 'app-role' },
      { inline_policy: [[], [{ name: 'inline' }]], managed_policy_arns: [[], ['arn:x']] },
      [
        stateResource('aws_iam_role_policy.inline', { role: 'app-role', name: 'inline' }),
        stateResource('aws_iam_role_policy_attachment.other', { role: 'another-role', policy_arn: 'arn:x' }),
      ],
    );
    expect(changedPaths(evaluate(raw))).toEqual([['aws_iam_role.app', ['managed_policy_arns[0]']]]);
  });

  it('security group: rules managed by aws_security_group_rule (by type) and the vpc rule resources', () => {
    const rule = { cidr_blocks: ['10.0.0.0/8'], from_port: 443, to_port: 443, protocol: 'tcp' };
    const raw = parentAndCompanion(
      'aws_security_group.web',
      { id: 'sg-1', name: 'web', description: 'web' },
      { ingress: [[], [rule]], egress: [[], [rule]], description: ['web', 'web2'] },
      [
        stateResource('aws_security_group_rule.https', {
          id: 'sgrule-1',
          security_group_id: 'sg-1',
          type: 'ingress',
          cidr_blocks: ['10.0.0.0/8'],
          from_port: 443,
          to_port: 443,
          protocol: '6',
        }),
      ],
    );
    expect(changedPaths(evaluate(raw))).toEqual([['aws_security_group.web', ['description', 'egress[0]']]]);

    const vpcRules = parentAndCompanion(
      'aws_security_group.web',
      { id: 'sg-1' },
      { ingress: [[], [rule]], egress: [[], [rule]] },
      [
        stateResource('aws_vpc_security_group_ingress_rule.in', vpcRule('sgr-1')),
        stateResource('aws_vpc_security_group_egress_rule.out', vpcRule('sgr-2')),
      ],
    );
    expect(evaluate(vpcRules).findings).toEqual([]);
  });

  it('route table routes with aws_route and network ACL rules with aws_network_acl_rule', () => {
    const routes = parentAndCompanion(
      'aws_route_table.private',
      { id: 'rtb-1' },
      { route: [[], [{ cidr_block: '0.0.0.0/0', nat_gateway_id: 'nat-1' }]] },
      [
        stateResource('aws_route.default', {
          id: 'r-1',
          route_table_id: 'rtb-1',
          destination_cidr_block: '0.0.0.0/0',
        }),
      ],
    );
    expect(evaluate(routes).findings).toEqual([]);
    const acl = parentAndCompanion(
      'aws_network_acl.main',
      { id: 'acl-1' },
      { ingress: [[], [{ rule_no: 100 }]], egress: [[], [{ rule_no: 100 }]] },
      [
        stateResource('aws_network_acl_rule.in', {
          id: 'nacl-1',
          network_acl_id: 'acl-1',
          rule_number: 100,
          egress: false,
        }),
        stateResource('aws_network_acl_rule.out', {
          id: 'nacl-2',
          network_acl_id: 'acl-1',
          rule_number: 100,
          egress: true,
        }),
      ],
    );
    expect(evaluate(acl).findings).toEqual([]);
  });

  // What the parent lists beyond its companions was added by hand: drift, however many companions it has.
  // terraform plan -refresh-only right after an apply of a target group, an ALB, a listener forwarding
  // to the group and a listener rule (Terraform 1.11.4, AWS provider 5.100.0, moto): the group was
  // created before the listener, and its load_balancer_arns now holds the listener's load balancer.
  const ELB = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012';
  const groupArn = `${ELB}:targetgroup/app/6d0ecf831eec9f09`;
  const albArn = `${ELB}:loadbalancer/app/web/50dc6c495c0c9188`;
  const otherAlb = `${ELB}:loadbalancer/app/other/9f1c2b3a4d5e6f70`;
  const listener = (address: string, loadBalancer: string, forward: 'plain' | 'weighted') =>
    stateResource(address, {
      arn: `${loadBalancer.replace(':loadbalancer/', ':listener/')}/f2f7dc8efc522ab2`,
      load_balancer_arn: loadBalancer,
      port: 80,
      default_action: [
        forward === 'plain'
          ? { type: 'forward', target_group_arn: groupArn, forward: [] }
          : {
              type: 'forward',
              target_group_arn: '',
              forward: [{ target_group: [{ arn: groupArn, weight: 1 }], stickiness: [] }],
            },
      ],
    });
  const listenerRule = (loadBalancer: string) =>
    stateResource('aws_lb_listener_rule.api', {
      listener_arn: `${loadBalancer.replace(':loadbalancer/', ':listener/')}/f2f7dc8efc522ab2`,
      priority: 10,
      action: [{ type: 'forward', target_group_arn: groupArn, forward: [] }],
    });
  const attached = (added: string[], companions: unknown[]) =>
    parentAndCompanion(
      'aws_lb_target_group.app',
      { id: groupArn, arn: groupArn, name: 'app', port: 80 },
      { load_balancer_arns: [[], added] },
      companions,
    );

  it('target group: the load balancers of the listeners and listener rules that forward to it', () => {
    for (const companions of [
      [listener('aws_lb_listener.http', albArn, 'plain')],
      [listener('aws_alb_listener.http', albArn, 'weighted')],
      [listenerRule(albArn)],
    ]) {
      const result = evaluate(attached([albArn], companions));
      expect(result.findings).toEqual([]);
      expect(result.noiseRemoved).toEqual([
        {
          rule: 'companion-attributes',
          address: 'aws_lb_target_group.app',
          paths: ['load_balancer_arns[0]'],
        },
      ]);
    }
  });

  it('target group: a load balancer no listener here forwards from (attached by hand) is drift', () => {
    const byHand = evaluate(
      attached([albArn, otherAlb], [listener('aws_lb_listener.http', albArn, 'plain')]),
    );
    expect(byHand.findings.map((finding) => finding.drift?.changes)).toEqual([
      [{ path: 'load_balancer_arns[1]', before: null, after: otherAlb, sensitive: false }],
    ]);
    // A listener of another load balancer that forwards elsewhere declares nothing for this group.
    const elsewhere = stateResource('aws_lb_listener.other', {
      load_balancer_arn: otherAlb,
      default_action: [{ type: 'forward', target_group_arn: `${ELB}:targetgroup/other/1`, forward: [] }],
    });
    expect(changedPaths(evaluate(attached([otherAlb], [elsewhere])))).toEqual([
      ['aws_lb_target_group.app', ['load_balancer_arns[0]']],
    ]);
  });

  it('reports the elements no companion declares: a rule, an attachment, an inline policy, a route added by hand', () => {
    const rule = (port: number, cidr: string) => ingressRule(cidr, port);
    const group = parentAndCompanion(
      'aws_security_group.web',
      { id: 'sg-1' },
      { ingress: [[rule(443, '10.0.0.0/8')], [rule(22, '0.0.0.0/0'), rule(443, '10.0.0.0/8')]] },
      [stateResource('aws_vpc_security_group_ingress_rule.in', vpcRule('sgr-1'))],
    );
    const opened = evaluate(group).findings[0];
    expect(opened?.drift?.changes.map((change) => change.path)).toEqual(['ingress[0]']);
    expect(opened?.severity).toBe('critical');
    // A source added to a rule the companion declares, merged into its element by AWS.
    const widened = parentAndCompanion(
      'aws_security_group.web',
      { id: 'sg-1', ingress: [rule(443, '10.0.0.0/8')] },
      {
        ingress: [
          [rule(443, '10.0.0.0/8')],
          [{ ...rule(443, '10.0.0.0/8'), cidr_blocks: ['10.0.0.0/8', '0.0.0.0/0'] }],
        ],
      },
      [stateResource('aws_vpc_security_group_ingress_rule.in', vpcRule('sgr-1'))],
    );
    expect(changedPaths(evaluate(widened))).toEqual([
      ['aws_security_group.web', ['ingress[0].cidr_blocks[1]']],
    ]);

    const role = parentAndCompanion(
      'aws_iam_role.app',
      { name: 'app-role', id: 'app-role' },
      {
        managed_policy_arns: [
          [],
          ['arn:aws:iam::111111111111:policy/admin', 'arn:aws:iam::111111111111:policy/read'],
        ],
        inline_policy: [
          [],
          [
            { name: 'backdoor', policy: '{}' },
            { name: 'read', policy: '{}' },
          ],
        ],
      },
      [
        stateResource('aws_iam_role_policy_attachment.read', {
          role: 'app-role',
          policy_arn: 'arn:aws:iam::111111111111:policy/read',
        }),
        stateResource('aws_iam_role_policy.read', { role: 'app-role', name: 'read' }),
      ],
    );
    const escalated = evaluate(role);
    expect(changedPaths(escalated)).toEqual([
      ['aws_iam_role.app', ['managed_policy_arns[0]', 'inline_policy[0]']],
    ]);
    expect(escalated.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'companion-attributes', paths: ['managed_policy_arns[1]', 'inline_policy[1]'] },
    ]);

    const routes = parentAndCompanion(
      'aws_route_table.private',
      { id: 'rtb-1' },
      {
        route: [
          [],
          [
            { cidr_block: '10.9.0.0/16', vpc_peering_connection_id: 'pcx-1' },
            { cidr_block: '0.0.0.0/0', nat_gateway_id: 'nat-1' },
          ],
        ],
      },
      [stateResource('aws_route.default', { route_table_id: 'rtb-1', destination_cidr_block: '0.0.0.0/0' })],
    );
    expect(changedPaths(evaluate(routes))).toEqual([['aws_route_table.private', ['route[0]']]]);
  });

  it('can be switched off', () => {
    const raw = parentAndCompanion(
      'aws_route_table.private',
      { id: 'rtb-1' },
      { route: [[], [{ cidr_block: '0.0.0.0/0' }]] },
      [stateResource('aws_route.default', { route_table_id: 'rtb-1' })],
    );
    expect(changedPaths(evaluate(raw, withNoise({ companionAttributes: false })))).toEqual([
      ['aws_route_table.private', ['route[0]']],
    ]);
  });
});

describe('ignore rules from the registry', () => {
  const raw = plan({
    drift: [
      entry('aws_autoscaling_group.workers', {
        before: { desired_capacity: 2, max_size: 10, tags: { Owner: 'a' }, warm_pool: [{ min_size: 0 }] },
        after: { desired_capacity: 5, max_size: 20, tags: { Owner: 'b' }, warm_pool: [{ min_size: 1 }] },
      }),
      entry('module.db.aws_db_instance.main', {
        before: { allocated_storage: 20 },
        after: { allocated_storage: 40 },
      }),
    ],
  });
  const ignoring = (ignore: Policies['ignore']): Policies => ({ ...DEFAULT_POLICIES, ignore });

  it('removes matching paths of matching addresses, with the reason recorded', () => {
    const result = evaluate(
      raw,
      ignoring([
        {
          address: 'aws_autoscaling_group.*',
          path: 'desired_capacity',
          reason: 'scaled by policy',
          until: '2026-03-01',
        },
        { address: 'aws_autoscaling_group.*', path: 'tags.*', reason: 'tags managed by finops' },
        { address: 'module.db.*', path: 'allocated_storage', reason: 'storage autoscaling' },
      ]),
    );
    expect(changedPaths(result)).toEqual([
      ['aws_autoscaling_group.workers', ['max_size', 'warm_pool[0].min_size']],
    ]);
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'ignore', paths: ['desired_capacity'], reason: 'scaled by policy' },
      { rule: 'ignore', paths: ['tags.Owner'], reason: 'tags managed by finops' },
    ]);
    expect(result.noiseRemoved).toContainEqual({
      rule: 'ignore',
      address: 'module.db.aws_db_instance.main',
      paths: ['allocated_storage'],
      reason: 'storage autoscaling',
    });
  });

  it('an ignored path covers what is below it', () => {
    const result = evaluate(
      raw,
      ignoring([{ address: 'aws_autoscaling_group.workers', path: 'warm_pool', reason: 'r' }]),
    );
    expect(changedPaths(result)[0]).toEqual([
      'aws_autoscaling_group.workers',
      ['desired_capacity', 'max_size', 'tags.Owner'],
    ]);
  });

  it('an expired rule (until before today, per context.now) no longer applies', () => {
    const rules = ignoring([
      { address: 'aws_autoscaling_group.*', path: 'desired_capacity', reason: 'r', until: '2026-02-28' },
    ]);
    const expired = evaluate(raw, rules, new Date('2026-03-01T00:00:00Z'));
    expect(changedPaths(expired)[0]?.[1]).toContain('desired_capacity');
    const active = evaluate(raw, rules, new Date('2026-02-28T23:59:59Z'));
    expect(changedPaths(active)[0]?.[1]).not.toContain('desired_capacity');
  });
});

describe('moved resources and noise', () => {
  it('a move whose value changes are all noise is an info move', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.new', {
          previousAddress: 'aws_sqs_queue.old',
          before: { name: 'q', tags: null },
          after: { name: 'q', tags: {} },
        }),
      ],
    });
    const result = evaluate(raw);
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity, finding.drift])).toEqual([
      ['drift.moved', 'info', undefined],
    ]);
    expect(result.findings[0]?.evidence.noiseRemoved).toEqual([
      { rule: 'null-versus-empty', paths: ['tags'] },
    ]);
  });

  it('a move with a real change is a drift.update at the new address with the severity of the change', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.new', {
          previousAddress: 'aws_sqs_queue.old',
          before: { name: 'q', visibility_timeout_seconds: 30 },
          after: { name: 'q', visibility_timeout_seconds: 60 },
        }),
      ],
    });
    const [finding] = evaluate(raw).findings;
    expect([finding?.ruleId, finding?.severity, finding?.drift?.action, finding?.title]).toEqual([
      'drift.update',
      'medium',
      'update',
      'aws_sqs_queue.new changed outside Terraform: visibility_timeout_seconds',
    ]);
    expect(finding?.resource).toMatchObject({ address: 'aws_sqs_queue.new', movedFrom: 'aws_sqs_queue.old' });
  });
});

describe('equivalent-protocol', () => {
  // aws_network_acl of provider 5.100.0 with `protocol = "tcp"` in its ingress block: the apply stores
  // the name, the first refresh-only plan after it reads the number AWS speaks (Terraform 1.11.4, moto).
  const rule = (protocol: string, ruleNo = 100) => ({
    action: 'allow',
    cidr_block: '10.0.0.0/8',
    from_port: 443,
    icmp_code: 0,
    icmp_type: 0,
    ipv6_cidr_block: '',
    protocol,
    rule_no: ruleNo,
    to_port: 443,
  });
  const acl = (ingress: unknown[]) => ({
    id: 'acl-1',
    vpc_id: 'vpc-1',
    ingress,
    egress: [{ ...rule('-1'), from_port: 0, to_port: 0 }],
  });
  const refresh = (before: unknown[], after: unknown[]) =>
    plan({
      drift: [entry('aws_network_acl.a', { before: acl(before), after: acl(after) })],
      prior: [stateResource('aws_network_acl.a', acl(before))],
    });

  it('a protocol name read back as its number is noise: tcp → 6', () => {
    const result = evaluate(refresh([rule('tcp')], [rule('6')]));
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved).toEqual([
      { address: 'aws_network_acl.a', rule: 'equivalent-protocol', paths: ['ingress[0].protocol'] },
    ]);
  });

  it('a protocol that changed is drift (tcp → 17), and a rule added by hand is reported whole', () => {
    expect(changedPaths(evaluate(refresh([rule('tcp')], [rule('17')])))).toEqual([
      ['aws_network_acl.a', ['ingress[0].protocol']],
    ]);
    const added = { ...rule('-1', 90), cidr_block: '0.0.0.0/0', from_port: 0, to_port: 0 };
    expect(changedPaths(evaluate(refresh([rule('tcp')], [added, rule('6')])))).toEqual([
      ['aws_network_acl.a', ['ingress[0]']],
    ]);
  });

  it('policies.noise.equivalentProtocols: false reports tcp → 6', () => {
    expect(
      changedPaths(evaluate(refresh([rule('tcp')], [rule('6')]), withNoise({ equivalentProtocols: false }))),
    ).toEqual([['aws_network_acl.a', ['ingress[0].protocol']]]);
  });
});
