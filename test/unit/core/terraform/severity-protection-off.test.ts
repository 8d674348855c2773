import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { bucketValues, context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';
import { onlyFindingOf } from '../../../helpers/single-finding.js';

/**
 * Guards turned off outside Terraform, as a refresh-only plan shows them. Attribute names and shapes
 * follow the AWS provider 5.100.0 schema (values trimmed to what matters where a type has dozens).
 */

type Values = Record<string, unknown>;

const severityOf = (address: string, before: Values | null, after: Values, actions?: string[]): Severity =>
  onlyFindingOf(address, before, after, actions).severity;

const trail = (logging: boolean): Values => ({
  advanced_event_selector: [],
  arn: 'arn:aws:cloudtrail:eu-west-1:111111111111:trail/org',
  cloud_watch_logs_group_arn: '',
  cloud_watch_logs_role_arn: '',
  enable_log_file_validation: true,
  enable_logging: logging,
  event_selector: [],
  home_region: 'eu-west-1',
  id: 'arn:aws:cloudtrail:eu-west-1:111111111111:trail/org',
  include_global_service_events: true,
  insight_selector: [],
  is_multi_region_trail: true,
  is_organization_trail: false,
  kms_key_id: '',
  name: 'org',
  s3_bucket_name: 'org-trail',
  s3_key_prefix: '',
  sns_topic_arn: '',
  sns_topic_name: '',
  tags: null,
  tags_all: {},
});

const detector = (enable: boolean): Values => ({
  account_id: '111111111111',
  arn: 'arn:aws:guardduty:eu-west-1:111111111111:detector/12abc34d567e8fa901bc2d34e56789f0',
  datasources: [],
  enable,
  finding_publishing_frequency: 'SIX_HOURS',
  id: '12abc34d567e8fa901bc2d34e56789f0',
  tags: null,
  tags_all: {},
});

const versioning = (status: string): Values => ({
  bucket: 'payments-data',
  expected_bucket_owner: '',
  id: 'payments-data',
  mfa: null,
  versioning_configuration: [{ mfa_delete: '', status }],
});

const database = (deletionProtection: boolean): Values => ({
  arn: 'arn:aws:rds:eu-west-1:111111111111:db:payments',
  deletion_protection: deletionProtection,
  engine: 'postgres',
  id: 'db-ABCDEFGHIJKL',
  identifier: 'payments',
  instance_class: 'db.t4g.micro',
  publicly_accessible: false,
  skip_final_snapshot: false,
  storage_encrypted: true,
  tags: null,
  tags_all: {},
});

describe('protection turned off', () => {
  it('CloudTrail logging stopped (enable_logging true → false) is high', () => {
    expect(severityOf('aws_cloudtrail.org', trail(true), trail(false))).toBe('high');
  });

  it('a GuardDuty detector disabled is high', () => {
    expect(severityOf('aws_guardduty_detector.main', detector(true), detector(false))).toBe('high');
  });

  it('S3 versioning suspended is high (aws_s3_bucket_versioning and aws_s3_bucket.versioning)', () => {
    expect(severityOf('aws_s3_bucket_versioning.data', versioning('Enabled'), versioning('Suspended'))).toBe(
      'high',
    );
    expect(
      severityOf(
        'aws_s3_bucket.data',
        bucketValues({ versioning: [{ enabled: true, mfa_delete: false }] }),
        bucketValues({ versioning: [{ enabled: false, mfa_delete: false }] }),
      ),
    ).toBe('high');
  });

  it('DynamoDB point-in-time recovery turned off is high', () => {
    // aws_dynamodb_table of provider 5.100.0 after UpdateContinuousBackups (enabled: false), as the
    // refresh-only plan shows it against moto: the recovery window goes to 0 with it.
    const table = (enabled: boolean): Values => ({
      arn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/orders',
      billing_mode: 'PAY_PER_REQUEST',
      deletion_protection_enabled: false,
      hash_key: 'pk',
      id: 'orders',
      name: 'orders',
      point_in_time_recovery: [{ enabled, recovery_period_in_days: enabled ? 35 : 0 }],
    });
    expect(severityOf('aws_dynamodb_table.orders', table(true), table(false))).toBe('high');
    expect(severityOf('aws_dynamodb_table.orders', table(false), table(true))).toBe('medium');
  });

  it('deletion protection removed from a database is high', () => {
    expect(severityOf('aws_db_instance.payments', database(true), database(false))).toBe('high');
  });

  // aws_instance of provider 5.100.0 (values trimmed), metadata_options as the provider reads it.
  const instance = (metadata: Values[] | null): Values => ({
    ami: 'ami-12c6146b',
    arn: 'arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc',
    disable_api_termination: false,
    id: 'i-0abc',
    instance_type: 't3.micro',
    metadata_options: metadata,
    tags: null,
    tags_all: {},
  });
  const imds = (httpTokens: string): Values => ({
    http_endpoint: 'enabled',
    http_protocol_ipv6: 'disabled',
    http_put_response_hop_limit: 1,
    http_tokens: httpTokens,
    instance_metadata_tags: 'disabled',
  });

  it('IMDSv2 no longer required (http_tokens required → optional) is high, as a leaf or a whole block', () => {
    // ModifyInstanceMetadataOptions --http-tokens optional: metadata_options[0].http_tokens.
    expect(severityOf('aws_instance.web', instance([imds('required')]), instance([imds('optional')]))).toBe(
      'high',
    );
    const template = (httpTokens: string): Values => ({
      arn: 'arn:aws:ec2:eu-west-1:123456789012:launch-template/lt-0abc',
      id: 'lt-0abc',
      latest_version: 2,
      metadata_options: [imds(httpTokens)],
      name: 'web',
    });
    expect(severityOf('aws_launch_template.web', template('required'), template('optional'))).toBe('high');
    // The account's default for new instances (aws_ec2_instance_metadata_defaults).
    const defaults = (httpTokens: string): Values => ({
      http_endpoint: 'no-preference',
      http_put_response_hop_limit: -1,
      http_tokens: httpTokens,
      id: 'eu-west-1',
      instance_metadata_tags: 'no-preference',
    });
    expect(
      severityOf('aws_ec2_instance_metadata_defaults.this', defaults('required'), defaults('no-preference')),
    ).toBe('high');
  });

  it('IMDS: requiring tokens, or a block that appears where there was none, is not escalated', () => {
    expect(severityOf('aws_instance.web', instance([imds('optional')]), instance([imds('required')]))).toBe(
      'medium',
    );
    // metadata_options[0]: null → {http_tokens: optional}: no guard was there to turn off.
    expect(severityOf('aws_instance.web', instance([]), instance([imds('optional')]))).toBe('medium');
  });

  it('ECR: tags made mutable, or scan on push turned off, is high; the reverse is not', () => {
    // aws_ecr_repository of provider 5.100.0 after PutImageTagMutability / PutImageScanningConfiguration.
    const repository = (mutability: string, scanOnPush: boolean): Values => ({
      arn: 'arn:aws:ecr:eu-west-1:123456789012:repository/app',
      encryption_configuration: [{ encryption_type: 'AES256', kms_key: '' }],
      force_delete: null,
      id: 'app',
      image_scanning_configuration: [{ scan_on_push: scanOnPush }],
      image_tag_mutability: mutability,
      name: 'app',
      registry_id: '123456789012',
      repository_url: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app',
      tags: null,
      tags_all: {},
    });
    expect(
      severityOf('aws_ecr_repository.app', repository('IMMUTABLE', true), repository('MUTABLE', true)),
    ).toBe('high');
    expect(
      severityOf('aws_ecr_repository.app', repository('IMMUTABLE', true), repository('IMMUTABLE', false)),
    ).toBe('high');
    expect(
      severityOf('aws_ecr_repository.app', repository('MUTABLE', false), repository('IMMUTABLE', true)),
    ).toBe('medium');
  });

  it('KMS: a key disabled or its rotation turned off is high; turned on is not', () => {
    // aws_kms_key of provider 5.100.0 after DisableKey / DisableKeyRotation (values trimmed).
    const key = (enabled: boolean, rotation: boolean): Values => ({
      arn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      customer_master_key_spec: 'SYMMETRIC_DEFAULT',
      deletion_window_in_days: 7,
      description: 'app',
      enable_key_rotation: rotation,
      id: '1234abcd-12ab-34cd-56ef-1234567890ab',
      is_enabled: enabled,
      key_id: '1234abcd-12ab-34cd-56ef-1234567890ab',
      key_usage: 'ENCRYPT_DECRYPT',
      rotation_period_in_days: rotation ? 365 : 0,
      tags: null,
      tags_all: {},
    });
    expect(severityOf('aws_kms_key.app', key(true, true), key(true, false))).toBe('high');
    expect(severityOf('aws_kms_key.app', key(true, true), key(false, true))).toBe('high');
    expect(severityOf('aws_kms_key.app', key(true, false), key(true, true))).toBe('medium');
    expect(severityOf('aws_kms_key.app', key(false, true), key(true, true))).toBe('medium');
    // A replica key's `enabled` (aws_kms_replica_key) is the same switch.
    expect(
      severityOf('aws_kms_replica_key.app', { id: 'mrk-1', enabled: true }, { id: 'mrk-1', enabled: false }),
    ).toBe('high');
  });

  it('the account password policy weakened is high; made stricter is not', () => {
    // aws_iam_account_password_policy of provider 5.100.0 after UpdateAccountPasswordPolicy.
    const passwords = (changes: Values = {}): Values => ({
      allow_users_to_change_password: true,
      expire_passwords: false,
      hard_expiry: false,
      id: 'iam-account-password-policy',
      max_password_age: 0,
      minimum_password_length: 14,
      password_reuse_prevention: 24,
      require_lowercase_characters: true,
      require_numbers: true,
      require_symbols: true,
      require_uppercase_characters: true,
      ...changes,
    });
    const address = 'aws_iam_account_password_policy.strict';
    expect(severityOf(address, passwords(), passwords({ minimum_password_length: 8 }))).toBe('high');
    expect(severityOf(address, passwords(), passwords({ require_symbols: false }))).toBe('high');
    expect(severityOf(address, passwords(), passwords({ password_reuse_prevention: 0 }))).toBe('high');
    expect(severityOf(address, passwords(), passwords({ minimum_password_length: 20 }))).toBe('medium');
    expect(severityOf(address, passwords({ require_numbers: false }), passwords())).toBe('medium');
    // How often passwords must change is left alone: forced expiry is no longer advised (NIST SP 800-63B).
    expect(severityOf(address, passwords({ max_password_age: 90 }), passwords({ max_password_age: 0 }))).toBe(
      'medium',
    );
  });

  it('turning a guard on is not escalated', () => {
    expect(severityOf('aws_cloudtrail.org', trail(false), trail(true))).toBe('medium');
    expect(severityOf('aws_s3_bucket_versioning.data', versioning('Suspended'), versioning('Enabled'))).toBe(
      'medium',
    );
    expect(severityOf('aws_db_instance.payments', database(false), database(true))).toBe('medium');
  });

  it('in a non-production environment it ranks one level lower, as every content rule does', () => {
    const raw = plan({
      drift: [entry('aws_cloudtrail.org', { before: trail(true), after: trail(false) })],
    });
    const result = evaluatePlan(raw, { ...context({ environment: 'dev' }), hashSensitive });
    expect(result.findings[0]?.severity).toBe('medium');
    expect(result.findings[0]?.evidence.severityReasons).toContain(
      'protection-off: protection turned off (deletion or termination protection, S3 versioning suspended, DynamoDB point-in-time recovery off, CloudTrail logging stopped, GuardDuty disabled, IMDSv2 no longer required, ECR tags made mutable or scan on push off, KMS key disabled or its rotation off, account password policy weakened): high',
    );
  });
});
