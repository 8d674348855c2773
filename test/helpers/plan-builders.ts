import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import { DEFAULT_POLICIES, type Policies } from '../../functions/core/registry/model.js';
import type { EvaluationContext } from '../../functions/core/terraform/index.js';

/**
 * Builders for `terraform show -json` documents shaped like the ones Terraform 1.11.4 with the AWS
 * provider 5.100 prints (field order, masks, `tags: null` vs `{}` quirks), small enough to read.
 */

export const hashSensitive = createSensitiveHasher('unit-test-salt-0123456789');

export const NOW = new Date('2026-03-01T02:00:00Z');

export function context(overrides: Partial<EvaluationContext> = {}): EvaluationContext {
  return {
    workspace: 'payments-prod',
    owner: 'payments',
    environment: 'prod',
    policies: DEFAULT_POLICIES,
    now: NOW,
    ...overrides,
  };
}

export function policies(overrides: Partial<Policies> = {}): Policies {
  return { ...DEFAULT_POLICIES, ...overrides };
}

type Values = Record<string, unknown>;

export interface EntryOptions {
  actions?: string[];
  before?: Values | null;
  after?: Values | null;
  beforeSensitive?: unknown;
  afterSensitive?: unknown;
  afterUnknown?: unknown;
  previousAddress?: string;
  actionReason?: string;
  replacePaths?: (string | number)[][];
  module?: string;
  mode?: 'managed' | 'data';
}

export function entry(address: string, options: EntryOptions) {
  const parts = address.split('.');
  const [type, name] = parts.slice(-2) as [string, string];
  const change: Values = {
    actions: options.actions ?? ['update'],
    before: options.before ?? null,
    after: options.after ?? null,
    after_unknown: options.afterUnknown ?? {},
    before_sensitive: options.beforeSensitive ?? (options.before ? {} : false),
    after_sensitive: options.afterSensitive ?? (options.after ? {} : false),
  };
  if (options.replacePaths) change.replace_paths = options.replacePaths;
  return {
    address,
    ...(options.module ? { module_address: options.module } : {}),
    mode: options.mode ?? 'managed',
    type: type.replace(/\[.*$/, ''),
    name: name.replace(/\[.*$/, ''),
    provider_name: 'registry.terraform.io/hashicorp/aws',
    ...(options.previousAddress ? { previous_address: options.previousAddress } : {}),
    change,
    ...(options.actionReason ? { action_reason: options.actionReason } : {}),
  };
}

export function stateResource(address: string, values: Values, sensitiveValues: Values = {}) {
  const [type, name] = address.split('.').slice(-2) as [string, string];
  return {
    address,
    mode: 'managed',
    type,
    name,
    provider_name: 'registry.terraform.io/hashicorp/aws',
    schema_version: 0,
    values,
    sensitive_values: sensitiveValues,
  };
}

export interface PlanOptions {
  drift?: unknown[];
  changes?: unknown[];
  outputs?: Record<string, unknown>;
  prior?: unknown[];
  errored?: boolean;
  complete?: boolean;
  formatVersion?: string;
  configuration?: unknown;
  variables?: unknown;
  plannedValues?: unknown;
}

export function plan(options: PlanOptions = {}) {
  return {
    format_version: options.formatVersion ?? '1.2',
    terraform_version: '1.11.4',
    ...(options.variables ? { variables: options.variables } : {}),
    planned_values: options.plannedValues ?? { root_module: {} },
    resource_drift: options.drift ?? [],
    ...(options.changes ? { resource_changes: options.changes } : {}),
    ...(options.outputs ? { output_changes: options.outputs } : {}),
    prior_state: {
      format_version: '1.0',
      terraform_version: '1.11.4',
      values: { root_module: { resources: options.prior ?? [] } },
    },
    configuration: options.configuration ?? { provider_config: { aws: { name: 'aws' } }, root_module: {} },
    timestamp: '2026-03-01T02:00:00Z',
    applyable: true,
    complete: options.complete ?? true,
    errored: options.errored ?? false,
  };
}

// ---- AWS resources as the provider reports them (values trimmed to what matters, shapes kept) ----

export function bucketValues(overrides: Values = {}): Values {
  return {
    acceleration_status: '',
    acl: null,
    arn: 'arn:aws:s3:::payments-data',
    bucket: 'payments-data',
    cors_rule: [],
    force_destroy: false,
    grant: [{ id: 'canonical-user-1', permissions: ['FULL_CONTROL'], type: 'CanonicalUser', uri: '' }],
    id: 'payments-data',
    lifecycle_rule: [],
    logging: [],
    object_lock_enabled: false,
    policy: '',
    region: 'eu-west-1',
    server_side_encryption_configuration: [],
    tags: { Owner: 'payments' },
    tags_all: { Owner: 'payments' },
    timeouts: null,
    versioning: [{ enabled: false, mfa_delete: false }],
    website: [],
    ...overrides,
  };
}

export const bucketMask = {
  cors_rule: [],
  grant: [{ permissions: [false] }],
  lifecycle_rule: [],
  logging: [],
  server_side_encryption_configuration: [],
  tags: {},
  tags_all: {},
  versioning: [{}],
  website: [],
};

export function ingressRule(cidr: string, port: number): Values {
  return {
    cidr_blocks: [cidr],
    description: '',
    from_port: port,
    ipv6_cidr_blocks: [],
    prefix_list_ids: [],
    protocol: 'tcp',
    security_groups: [],
    self: false,
    to_port: port,
  };
}

export function securityGroupValues(overrides: Values = {}): Values {
  return {
    arn: 'arn:aws:ec2:eu-west-1:123456789012:security-group/sg-0db',
    description: 'db',
    egress: [],
    id: 'sg-0db',
    ingress: [ingressRule('10.0.0.0/16', 5432)],
    name: 'db',
    tags: null,
    tags_all: {},
    vpc_id: 'vpc-01',
    ...overrides,
  };
}

export function queueValues(overrides: Values = {}): Values {
  return {
    arn: 'arn:aws:sqs:eu-west-1:123456789012:payments-events',
    delay_seconds: 0,
    id: 'https://sqs.eu-west-1.amazonaws.com/123456789012/payments-events',
    kms_master_key_id: '',
    name: 'payments-events',
    policy: '',
    sqs_managed_sse_enabled: true,
    tags: null,
    tags_all: {},
    visibility_timeout_seconds: 30,
    ...overrides,
  };
}

export function ssmParameterValues(value: string, overrides: Values = {}): Values {
  return {
    arn: 'arn:aws:ssm:eu-west-1:123456789012:parameter/payments/db-password',
    data_type: 'text',
    id: '/payments/db-password',
    insecure_value: null,
    key_id: 'alias/aws/ssm',
    name: '/payments/db-password',
    tags: null,
    tags_all: {},
    tier: 'Standard',
    type: 'SecureString',
    value,
    value_wo: null,
    version: 1,
    ...overrides,
  };
}

export const ssmMask = { tags_all: {}, value: true, value_wo: true };

export const versioningCompanion = stateResource('aws_s3_bucket_versioning.data', {
  bucket: 'payments-data',
  id: 'payments-data',
  versioning_configuration: [{ mfa_delete: '', status: 'Enabled' }],
});
