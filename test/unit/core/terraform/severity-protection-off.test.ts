import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { bucketValues, context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * Guards turned off outside Terraform, as a refresh-only plan shows them. Attribute names and shapes
 * follow the AWS provider 5.100.0 schema (values trimmed to what matters where a type has dozens).
 */

type Values = Record<string, unknown>;

function severityOf(address: string, before: Values | null, after: Values, actions = ['update']): Severity {
  const change = entry(address, { actions, before, after });
  const raw = plan(actions[0] === 'update' ? { drift: [change] } : { changes: [change] });
  const result = evaluatePlan(raw, { ...context(), hashSensitive });
  expect(result.findings).toHaveLength(1);
  return result.findings[0]!.severity;
}

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
      'protection-off: protection turned off (deletion or termination protection, S3 versioning suspended, DynamoDB point-in-time recovery off, CloudTrail logging stopped, GuardDuty disabled): high',
    );
  });
});
