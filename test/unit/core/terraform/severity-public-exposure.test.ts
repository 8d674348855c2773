import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { compactPlan, evaluatePlan } from '../../../../functions/core/terraform/index.js';
import {
  bucketValues,
  context,
  entry,
  hashSensitive,
  ingressRule,
  plan,
  securityGroupValues,
} from '../../../helpers/plan-builders.js';

/**
 * Out-of-band changes that make data or code public, as a refresh-only plan shows them. Attribute
 * names and shapes follow the AWS provider 5.100.0 schema (`terraform providers schema -json`); each
 * one is the public-access content rule's business (critical), like a public-read ACL already is.
 */

type Values = Record<string, unknown>;

function severityOf(address: string, before: Values, after: Values, actions = ['update']): Severity {
  const drift = actions[0] === 'update';
  const change = entry(address, { actions, before: drift ? before : null, after });
  const result = evaluatePlan(plan(drift ? { drift: [change] } : { changes: [change] }), {
    ...context(),
    hashSensitive,
  });
  expect(result.findings).toHaveLength(1);
  return result.findings[0]!.severity;
}

const policy = (...statements: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement: statements });
const owner = {
  Sid: 'Owner',
  Effect: 'Allow',
  Principal: { AWS: 'arn:aws:iam::111111111111:root' },
  Action: 's3:*',
  Resource: ['arn:aws:s3:::payments-data', 'arn:aws:s3:::payments-data/*'],
};
const publicRead = {
  Sid: 'PublicRead',
  Effect: 'Allow',
  Principal: '*',
  Action: 's3:GetObject',
  Resource: 'arn:aws:s3:::payments-data/*',
};
const tlsOnly = {
  Sid: 'TlsOnly',
  Effect: 'Deny',
  Principal: '*',
  Action: 's3:*',
  Resource: ['arn:aws:s3:::payments-data', 'arn:aws:s3:::payments-data/*'],
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
};

// aws_s3_bucket_policy: bucket, id, policy.
const bucketPolicy = (document: string): Values => ({
  bucket: 'payments-data',
  id: 'payments-data',
  policy: document,
});
// aws_sqs_queue_policy: id, policy, queue_url.
const queuePolicy = (document: string): Values => ({
  id: 'https://sqs.eu-west-1.amazonaws.com/111111111111/payments-events',
  policy: document,
  queue_url: 'https://sqs.eu-west-1.amazonaws.com/111111111111/payments-events',
});

describe('policy statements that allow everyone', () => {
  it('a bucket policy statement granting Principal "*" with no Condition is critical', () => {
    expect(
      severityOf(
        'aws_s3_bucket_policy.data',
        bucketPolicy(policy(owner)),
        bucketPolicy(policy(owner, publicRead)),
      ),
    ).toBe('critical');
  });

  it('a public statement added before the others of a policy AWS re-serialised is critical', () => {
    // As S3 hands the policy back after a console edit: singletons unwrapped, the new statement first.
    const ownerAsStored = {
      ...owner,
      Action: ['s3:*'],
      Principal: { AWS: ['arn:aws:iam::111111111111:root'] },
    };
    expect(
      severityOf(
        'aws_s3_bucket_policy.data',
        bucketPolicy(policy(ownerAsStored)),
        bucketPolicy(policy(publicRead, owner)),
      ),
    ).toBe('critical');
  });

  it('a policy set on a bucket that had none (aws_s3_bucket.policy "" → document) is critical', () => {
    expect(
      severityOf('aws_s3_bucket.data', bucketValues(), bucketValues({ policy: policy(publicRead) })),
    ).toBe('critical');
  });

  it('a queue policy statement for {"AWS": ["*"]} is critical', () => {
    const send = { Effect: 'Allow', Principal: { AWS: ['*'] }, Action: 'sqs:SendMessage', Resource: '*' };
    expect(
      severityOf('aws_sqs_queue_policy.events', queuePolicy(policy(owner)), queuePolicy(policy(owner, send))),
    ).toBe('critical');
  });

  it('a role trust policy opened to {"AWS": "*"} is critical', () => {
    const role = (document: string): Values => ({
      arn: 'arn:aws:iam::111111111111:role/deployer',
      assume_role_policy: document,
      create_date: '2026-01-01T00:00:00Z',
      description: '',
      force_detach_policies: false,
      id: 'deployer',
      inline_policy: [],
      managed_policy_arns: [],
      max_session_duration: 3600,
      name: 'deployer',
      name_prefix: '',
      path: '/',
      permissions_boundary: '',
      tags: null,
      tags_all: {},
      unique_id: 'AROAEXAMPLE',
    });
    const lambda = {
      Effect: 'Allow',
      Principal: { Service: 'lambda.amazonaws.com' },
      Action: 'sts:AssumeRole',
    };
    const anyone = { Effect: 'Allow', Principal: { AWS: '*' }, Action: 'sts:AssumeRole' };
    expect(severityOf('aws_iam_role.deployer', role(policy(lambda)), role(policy(lambda, anyone)))).toBe(
      'critical',
    );
  });

  it('a Deny for "*" (TLS only) stays high: it closes, it does not open', () => {
    expect(
      severityOf(
        'aws_s3_bucket_policy.data',
        bucketPolicy(policy(owner)),
        bucketPolicy(policy(owner, tlsOnly)),
      ),
    ).toBe('high');
  });

  it('"*" narrowed by a Condition (aws:SourceArn) stays high', () => {
    const fromTopic = {
      Effect: 'Allow',
      Principal: '*',
      Action: 'sqs:SendMessage',
      Resource: '*',
      Condition: { ArnEquals: { 'aws:SourceArn': 'arn:aws:sns:eu-west-1:111111111111:payments' } },
    };
    expect(
      severityOf(
        'aws_sqs_queue_policy.events',
        queuePolicy(policy(owner)),
        queuePolicy(policy(owner, fromTopic)),
      ),
    ).toBe('high');
  });

  // A statement edited in place (SetQueueAttributes with the topic's statement rewritten, as in the
  // console's policy editor): the refresh shows member edits only, `Statement[0].Principal` and
  // `Statement[0].Condition`, never the statement's Effect.
  const fromTopic = {
    Sid: 'FromTopic',
    Effect: 'Allow',
    Principal: { Service: 'sns.amazonaws.com' },
    Action: 'sqs:SendMessage',
    Resource: 'arn:aws:sqs:eu-west-1:111111111111:payments-events',
    Condition: { ArnEquals: { 'aws:SourceArn': 'arn:aws:sns:eu-west-1:111111111111:payments' } },
  };
  const { Condition: _condition, ...withoutCondition } = fromTopic;

  it('a statement edited in place to allow "*" with its Condition removed is critical', () => {
    expect(
      severityOf(
        'aws_sqs_queue_policy.events',
        queuePolicy(policy(fromTopic)),
        queuePolicy(policy({ ...withoutCondition, Sid: 'Anyone', Principal: '*' })),
      ),
    ).toBe('critical');
    // The same, written as one statement without a list, and with the principal {"AWS": "*"}.
    const single = (statement: unknown) => JSON.stringify({ Version: '2012-10-17', Statement: statement });
    expect(
      severityOf(
        'aws_sqs_queue_policy.events',
        queuePolicy(single(fromTopic)),
        queuePolicy(single({ ...withoutCondition, Principal: { AWS: '*' } })),
      ),
    ).toBe('critical');
  });

  it('the compacted plan keeps the verdict on an edited statement, not the statement and its other values', () => {
    // A Referer secret (CloudFront's custom-origin header) in a Condition the edit left as it was.
    const referer = 'CANARY-referer-7Qx2-secret';
    const guarded = { ...withoutCondition, Condition: { StringEquals: { 'aws:Referer': referer } } };
    const raw = plan({
      drift: [
        entry('aws_sqs_queue_policy.events', {
          before: queuePolicy(policy(guarded, fromTopic)),
          after: queuePolicy(policy(guarded, { ...withoutCondition, Principal: '*' })),
        }),
      ],
    });
    const compact = compactPlan(JSON.stringify(raw), { hashSensitive });
    expect(JSON.stringify(compact)).not.toContain(referer);
    const opened = compact.drift[0]!.changes.filter((change) => change.opensStatementToEveryone);
    expect(opened.map((change) => change.path).sort()).toEqual([
      'policy.Statement[1].Condition',
      'policy.Statement[1].Principal',
    ]);
  });

  it('a statement edited in place keeps its judgement: "*" still narrowed by its Condition, or a Deny, stays high', () => {
    expect(
      severityOf(
        'aws_sqs_queue_policy.events',
        queuePolicy(policy(fromTopic)),
        queuePolicy(policy({ ...fromTopic, Principal: '*' })),
      ),
    ).toBe('high');
    expect(
      severityOf(
        'aws_sqs_queue_policy.events',
        queuePolicy(policy(withoutCondition)),
        queuePolicy(policy({ ...withoutCondition, Effect: 'Deny', Principal: '*' })),
      ),
    ).toBe('high');
  });

  it('an edit of a statement that already allowed everyone (its Sid) stays high', () => {
    expect(
      severityOf(
        'aws_s3_bucket_policy.site',
        bucketPolicy(policy(publicRead)),
        bucketPolicy(policy({ ...publicRead, Sid: 'Website' })),
      ),
    ).toBe('high');
  });

  it('a bucket that is public by design gaining an unrelated statement stays high', () => {
    expect(
      severityOf(
        'aws_s3_bucket_policy.site',
        bucketPolicy(policy(publicRead)),
        bucketPolicy(policy(publicRead, tlsOnly)),
      ),
    ).toBe('high');
  });
});

describe('ACL grants to the public groups', () => {
  const ownerGrant = {
    id: 'canonical-user-1',
    permissions: ['FULL_CONTROL'],
    type: 'CanonicalUser',
    uri: '',
  };
  const groupGrant = (group: string) => ({
    id: '',
    permissions: ['READ'],
    type: 'Group',
    uri: `http://acs.amazonaws.com/groups/${group}`,
  });

  it('a grant whose group changed in place to AllUsers (only grant[1].uri changes) is critical', () => {
    expect(
      severityOf(
        'aws_s3_bucket.data',
        bucketValues({ grant: [ownerGrant, groupGrant('s3/LogDelivery')] }),
        bucketValues({ grant: [ownerGrant, groupGrant('global/AllUsers')] }),
      ),
    ).toBe('critical');
  });

  it('a grant to AuthenticatedUsers (any AWS account; public for S3) is critical', () => {
    expect(
      severityOf(
        'aws_s3_bucket.data',
        bucketValues(),
        bucketValues({ grant: [ownerGrant, groupGrant('global/AuthenticatedUsers')] }),
      ),
    ).toBe('critical');
  });

  it('aws_s3_bucket_acl.acl authenticated-read is critical', () => {
    const acl = (value: string): Values => ({
      access_control_policy: [],
      acl: value,
      bucket: 'payments-data',
      expected_bucket_owner: '',
      id: `payments-data,${value}`,
    });
    expect(severityOf('aws_s3_bucket_acl.data', acl('private'), acl('authenticated-read'))).toBe('critical');
  });
});

describe('snapshots, images and function URLs shared with everyone', () => {
  // aws_db_snapshot as provider 5.100.0 reads it; shared_accounts is a set of strings.
  const snapshot = (sharedAccounts: string[]): Values => ({
    allocated_storage: 20,
    availability_zone: 'eu-west-1a',
    db_instance_identifier: 'payments',
    db_snapshot_arn: 'arn:aws:rds:eu-west-1:111111111111:snapshot:payments-final',
    db_snapshot_identifier: 'payments-final',
    encrypted: false,
    engine: 'postgres',
    engine_version: '16.4',
    id: 'payments-final',
    iops: 0,
    kms_key_id: '',
    license_model: 'postgresql-license',
    option_group_name: 'default:postgres-16',
    port: 5432,
    shared_accounts: sharedAccounts,
    snapshot_type: 'manual',
    source_db_snapshot_identifier: '',
    source_region: '',
    status: 'available',
    storage_type: 'gp3',
    tags: null,
    tags_all: {},
    timeouts: null,
    vpc_id: 'vpc-01',
  });

  it('an RDS snapshot shared with "all" (public) is critical', () => {
    expect(severityOf('aws_db_snapshot.final', snapshot([]), snapshot(['all']))).toBe('critical');
  });

  it('an RDS snapshot shared with one account stays medium', () => {
    expect(severityOf('aws_db_snapshot.final', snapshot([]), snapshot(['222222222222']))).toBe('medium');
  });

  // aws_ami as provider 5.100.0 reads it; `public` is computed from the image's launch permissions.
  const image = (isPublic: boolean): Values => ({
    architecture: 'x86_64',
    arn: 'arn:aws:ec2:eu-west-1::image/ami-0abc',
    boot_mode: '',
    deprecation_time: '',
    description: 'payments base image',
    ebs_block_device: [],
    ena_support: true,
    ephemeral_block_device: [],
    hypervisor: 'xen',
    id: 'ami-0abc',
    image_location: '111111111111/payments-base',
    image_owner_alias: '',
    image_type: 'machine',
    imds_support: 'v2.0',
    kernel_id: '',
    last_launched_time: '',
    manage_ebs_snapshots: false,
    name: 'payments-base',
    owner_id: '111111111111',
    platform: '',
    platform_details: 'Linux/UNIX',
    public: isPublic,
    ramdisk_id: '',
    root_device_name: '/dev/xvda',
    root_snapshot_id: 'snap-0abc',
    sriov_net_support: 'simple',
    tags: null,
    tags_all: {},
    timeouts: null,
    tpm_support: '',
    uefi_data: null,
    usage_operation: 'RunInstances',
    virtualization_type: 'hvm',
  });

  it('an AMI made public is critical', () => {
    expect(severityOf('aws_ami.base', image(false), image(true))).toBe('critical');
  });

  it('a launch permission for the group "all" (a pending create) is critical', () => {
    const permission = (group: string | null, account: string | null): Values => ({
      account_id: account,
      group,
      id: `${group ?? account}/ami-0abc`,
      image_id: 'ami-0abc',
      organization_arn: null,
      organizational_unit_arn: null,
    });
    expect(severityOf('aws_ami_launch_permission.all', {}, permission('all', null), ['create'])).toBe(
      'critical',
    );
    expect(
      severityOf('aws_ami_launch_permission.ops', {}, permission(null, '222222222222'), ['create']),
    ).toBe('low');
  });

  it('a function URL whose authorization_type became NONE is critical', () => {
    const url = (authorization: string): Values => ({
      authorization_type: authorization,
      cors: [],
      function_arn: 'arn:aws:lambda:eu-west-1:111111111111:function:payments-hook',
      function_name: 'payments-hook',
      function_url: 'https://abc.lambda-url.eu-west-1.on.aws/',
      id: 'payments-hook',
      invoke_mode: 'BUFFERED',
      qualifier: '',
      timeouts: null,
      url_id: 'abc',
    });
    expect(severityOf('aws_lambda_function_url.hook', url('AWS_IAM'), url('NONE'))).toBe('critical');
  });
});

describe('the remediation of drift that exposes something', () => {
  // Adopting a world-open rule, a public grant or a guard turned off keeps the exposure: the adopt
  // path says so; other drift keeps the plain choice between revert and adopt.
  const remediationOf = (before: Values, after: Values) => {
    const result = evaluatePlan(plan({ drift: [entry('aws_security_group.db', { before, after })] }), {
      ...context(),
      hashSensitive,
    });
    expect(result.findings).toHaveLength(1);
    return result.findings[0]!;
  };

  it('asks that adopting be intended and approved when the drift opened ingress to the world', () => {
    const finding = remediationOf(
      securityGroupValues(),
      securityGroupValues({ ingress: [ingressRule('10.0.0.0/16', 5432), ingressRule('0.0.0.0/0', 22)] }),
    );
    expect(finding.severity).toBe('critical');
    const adopt = finding.remediation.steps.find((step) => step.startsWith('Adopt'));
    expect(adopt).toMatch(
      /^Adopt only if the exposure is intended and approved \(adopting keeps it open\): change the configuration/,
    );
    expect(finding.remediation.steps[0]).toMatch(/^Revert: /);
  });

  it('leaves the choice plain for other drift', () => {
    const finding = remediationOf(securityGroupValues(), securityGroupValues({ description: 'db servers' }));
    expect(finding.severity).toBe('medium');
    expect(finding.remediation.steps.find((step) => step.startsWith('Adopt'))).toMatch(
      /^Adopt: change the configuration/,
    );
  });
});
