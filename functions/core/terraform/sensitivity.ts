import type { JsonValue } from '../findings/model.js';
import { containsCredential, isSensitiveName, type SensitiveHasher } from '../redaction/secrets.js';
import { parseJsonDocument } from './json-document.js';
import { childMask, isPlainObject } from './json-values.js';
import { UNKNOWN_VALUE } from './plan-model.js';

/**
 * Principle 7 for plans: a value is sensitive when Terraform's mask says so, when a path segment has
 * a secret-looking name, when the resource type stores a secret in a plain-named attribute, or when
 * it holds a credential recognised by its value (PEM keys, URL passwords, tokens: secret-values.ts).
 * This module answers those questions; the differ decides where to ask.
 */

const SSM_SECURE_STRING_ATTRIBUTES: ReadonlySet<string> = new Set(['value', 'insecure_value']);
const SECRET_VERSION_ATTRIBUTES: ReadonlySet<string> = new Set(['secret_string', 'secret_binary']);

/** Top-level attributes that hold a secret for this resource type, whatever the masks say (0.x has none). */
export function secretAttributesOf(
  type: string,
  before: unknown,
  after: unknown,
): ReadonlySet<string> | undefined {
  if (type === 'aws_ssm_parameter' && (isSecureString(before) || isSecureString(after))) {
    return SSM_SECURE_STRING_ATTRIBUTES;
  }
  if (type === 'aws_secretsmanager_secret_version') return SECRET_VERSION_ATTRIBUTES;
  return undefined;
}

/**
 * Resource types that keep secrets in plainly named attributes (`password`, `environment`,
 * `user_data`, `container_definitions`...). Plans without sensitivity masks (format 0.x, Terraform
 * ≤ 0.14) say nothing about which of their attributes are secret, so every attribute of these
 * types is hashed there.
 */
const SECRET_HOLDING_TYPES: ReadonlySet<string> = new Set([
  'aws_amplify_app',
  'aws_api_gateway_api_key',
  'aws_appsync_api_key',
  'aws_batch_job_definition',
  'aws_codebuild_project',
  'aws_cognito_user_pool_client',
  'aws_db_instance',
  'aws_dms_endpoint',
  'aws_docdb_cluster',
  'aws_ecs_task_definition',
  'aws_elasticache_replication_group',
  'aws_elasticache_user',
  'aws_elasticsearch_domain',
  'aws_glue_connection',
  'aws_iam_access_key',
  'aws_iam_user_login_profile',
  'aws_instance',
  'aws_kms_ciphertext',
  'aws_launch_configuration',
  'aws_launch_template',
  'aws_lambda_function',
  'aws_mq_broker',
  'aws_neptune_cluster',
  'aws_opensearch_domain',
  'aws_rds_cluster',
  'aws_redshift_cluster',
  'aws_ssm_parameter',
  'kubernetes_config_map',
  'kubernetes_config_map_v1',
]);
const SECRET_HOLDING_TYPE_NAME = /secret|password|credential|private_key|access_key|api_key|token|_key$/;

export function holdsSecrets(type: string): boolean {
  return SECRET_HOLDING_TYPES.has(type) || SECRET_HOLDING_TYPE_NAME.test(type);
}

export const MASKLESS_REDACTION_NOTE =
  'this plan carries no sensitivity masks (format 0.x), so every attribute of this resource type is shown only as a hash';

function isSecureString(value: unknown): boolean {
  return isPlainObject(value) && value.type === 'SecureString';
}

/** Whether a key names a secret (isSensitiveName, which remembers its answers); injectable for tests. */
export type SensitiveKeyTest = (key: string) => boolean;

export function createSensitiveKeyTest(): SensitiveKeyTest {
  return isSensitiveName;
}

/**
 * True when any part of `value` must not leave the plan: a mask leaf `true`, a non-null value under a
 * secret-looking key, a PEM private key, or such content inside a JSON document string.
 */
export function hasSensitiveContent(
  value: unknown,
  mask: unknown,
  isSensitiveKey: SensitiveKeyTest,
): boolean {
  if (mask === true) return true;
  if (typeof value === 'string') return stringHasSensitiveContent(value, isSensitiveKey);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (hasSensitiveContent(value[index], childMask(mask, index), isSensitiveKey)) return true;
    }
    return false;
  }
  if (isPlainObject(value)) {
    if (isSecretNamedPair(value, isSensitiveKey)) return true;
    for (const key in value) {
      const child = value[key];
      if (child !== null && isSensitiveKey(key)) return true;
      if (hasSensitiveContent(child, childMask(mask, key), isSensitiveKey)) return true;
    }
  }
  return false;
}

/** Members that hold the value of a `{name, value}` pair, as CodeBuild, Batch, ECS and Kubernetes write env. */
export const PAIR_VALUE_KEYS: ReadonlySet<string> = new Set(['value', 'Value']);
const PAIR_NAME_KEYS = ['name', 'Name', 'key', 'Key'] as const;

/**
 * `{name: "DB_PASSWORD", value: "x"}` or `{Key: "api-token", Value: "x"}`: the name looks secret and
 * the object carries a value, so the value is a secret whatever its own key is called.
 */
export function isSecretNamedPair(value: Record<string, unknown>, isSensitiveKey: SensitiveKeyTest): boolean {
  // The value member first: most objects with a `name` (every resource has one) carry no `value`.
  let holdsValue = false;
  for (const valueKey of PAIR_VALUE_KEYS) {
    const held = value[valueKey];
    if (held !== null && held !== undefined) holdsValue = true;
  }
  if (!holdsValue) return false;
  for (const nameKey of PAIR_NAME_KEYS) {
    const name = value[nameKey];
    if (typeof name === 'string' && isSensitiveKey(name)) return true;
  }
  return false;
}

function stringHasSensitiveContent(text: string, isSensitiveKey: SensitiveKeyTest): boolean {
  if (containsCredential(text)) return true;
  const document = parseJsonDocument(text);
  return document !== undefined && hasSensitiveContent(document, undefined, isSensitiveKey);
}

/**
 * The hashed form of one side of a sensitive change. null and "(known after apply)" stay as they are:
 * absence is not a secret, and showing it keeps "was set" / "was removed" visible. A JSON document
 * string is hashed by content, so a sensitive policy that AWS merely re-serialised hashes the same.
 */
export function hashSide(value: unknown, hash: SensitiveHasher): JsonValue {
  if (value === null || value === undefined) return null;
  if (value === UNKNOWN_VALUE) return UNKNOWN_VALUE;
  if (typeof value === 'string') return hash(parseJsonDocument(value) ?? value);
  return hash(value as JsonValue);
}
