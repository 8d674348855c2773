import type { JsonValue } from '../findings/model.js';
import {
  argumentsHoldCredential,
  commandMembersHoldCredential,
  containsCredential,
  isSecretOption,
  isSensitiveName,
  type SensitiveHasher,
} from '../redaction/secrets.js';
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
/**
 * A ConfigMap's `binary_data`: base64 of bytes (keystores, certificates with their keys) that the
 * value rules, which read text, cannot judge, and no one reads in a finding: by hash, as cluster
 * diffs show `binaryData` (gitops/object-diff.ts).
 */
const CONFIG_MAP_BINARY_ATTRIBUTES: ReadonlySet<string> = new Set(['binary_data']);
const CONFIG_MAP_TYPES: ReadonlySet<string> = new Set(['kubernetes_config_map', 'kubernetes_config_map_v1']);

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
  if (CONFIG_MAP_TYPES.has(type)) return CONFIG_MAP_BINARY_ATTRIBUTES;
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
  return SECRET_HOLDING_TYPES.has(type) || namesSecretType(type);
}

/**
 * A type whose name says it is a secret (`random_password`, `kubernetes_secret_v1`,
 * `vault_generic_secret`, `aws_api_gateway_api_key`): what its provider masks is the secret, even
 * under a plain name (`result`, `data`, `value`).
 */
export function namesSecretType(type: string): boolean {
  return SECRET_HOLDING_TYPE_NAME.test(type);
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
 * Attributes of a resource type whose names look secret but that hold a setting of fixed values:
 * `aws_api_gateway_method.authorization` is `NONE`, `AWS_IAM`, `CUSTOM` or `COGNITO_USER_POOLS`.
 * Hashed, a method left open to anyone by hand could be neither seen nor ranked. By type, because
 * `authorization` elsewhere (a header map) holds a credential.
 */
const SETTING_ATTRIBUTES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['aws_api_gateway_method', new Set(['authorization'])],
]);
/**
 * The key test for one resource type: `isSensitiveKey`, less the type's setting attributes (the same
 * test for every other type; one closure per resource of the few types that have some).
 */
export function sensitiveKeyTestFor(type: string, isSensitiveKey: SensitiveKeyTest): SensitiveKeyTest {
  const settings = SETTING_ATTRIBUTES.get(type);
  if (settings === undefined) return isSensitiveKey;
  return (key) => !settings.has(key) && isSensitiveKey(key);
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
    if (isSecretOptionList(value, isSensitiveKey)) return true;
    for (let index = 0; index < value.length; index++) {
      if (hasSensitiveContent(value[index], childMask(mask, index), isSensitiveKey)) return true;
    }
    return false;
  }
  if (isPlainObject(value)) {
    if (isSecretNamedPair(value, isSensitiveKey) || commandMembersHoldCredential(value)) return true;
    for (const key in value) {
      const child = value[key];
      if (child !== null && isSensitiveKey(key)) return true;
      if (hasSensitiveContent(child, childMask(mask, key), isSensitiveKey)) return true;
    }
  }
  return false;
}

/**
 * `["--db-password", "x"]`, `["-token", "x"]`: a list of command-line arguments (an ECS `command`, a
 * container's `args`) in which an option named like a secret is followed by its value, the next
 * element; that element alone says nothing, so the list is sensitive as a whole.
 */
export function isSecretOptionList(list: readonly unknown[], isSensitiveKey: SensitiveKeyTest): boolean {
  for (let index = 0; index + 1 < list.length; index++) {
    if (typeof list[index + 1] === 'string' && isSecretOption(list[index], isSensitiveKey)) return true;
  }
  // `["mysql", "-uroot", "-pS3cret"]`, `["sshpass", "-p", "x", …]`: a tool's short password option.
  return argumentsHoldCredential(list);
}

/**
 * The member that holds the value of a `{name, value}` pair: `value` as CodeBuild, Batch, ECS and
 * Kubernetes write env, and the prefixed forms other APIs use (`ParameterValue` of CloudFormation
 * parameters, `parameter_value`, `OptionValue`).
 */
export function isPairValueKey(key: string): boolean {
  return key === 'value' || key.endsWith('Value') || key.endsWith('_value');
}

/** The member that names the pair: `name`, `Key`, and prefixed forms (`ParameterKey`, `OptionName`, `setting_name`). */
function isPairNameKey(key: string): boolean {
  return (
    key === 'name' ||
    key === 'key' ||
    key.endsWith('Name') ||
    key.endsWith('Key') ||
    key.endsWith('_name') ||
    key.endsWith('_key')
  );
}

/**
 * `{name: "DB_PASSWORD", value: "x"}`, `{Key: "api-token", Value: "x"}` or `{ParameterKey:
 * "DbPassword", ParameterValue: "x"}`: the name looks secret and the object carries a value, so the
 * value is a secret whatever its own key is called.
 */
export function isSecretNamedPair(value: Record<string, unknown>, isSensitiveKey: SensitiveKeyTest): boolean {
  // The value member first: most objects with a `name` (every resource has one) carry no `value`.
  let holdsValue = false;
  for (const key in value) {
    if (isPairValueKey(key) && value[key] !== null && value[key] !== undefined) {
      holdsValue = true;
      break;
    }
  }
  if (!holdsValue) return false;
  for (const key in value) {
    const name = value[key];
    if (typeof name === 'string' && isPairNameKey(key) && isSensitiveKey(name)) return true;
  }
  return false;
}

function stringHasSensitiveContent(text: string, isSensitiveKey: SensitiveKeyTest, decoded = false): boolean {
  if (containsCredential(text)) return true;
  const document = parseJsonDocument(text);
  if (document !== undefined && hasSensitiveContent(document, undefined, isSensitiveKey)) return true;
  // One level of base64 (user data, a Kubernetes Secret's data, an encoded env file): what it
  // decodes to is judged like any other text.
  if (decoded) return false;
  const plain = decodeBase64Text(text);
  return plain !== undefined && stringHasSensitiveContent(plain, isSensitiveKey, true);
}

/** Text, not binary that happens to be valid UTF-8: no control characters but tab and line breaks. */
function isPlainText(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return false;
  }
  return true;
}

/** Long enough that short words (`Team`, `prod1234`) are not taken for base64. */
const MIN_BASE64_LENGTH = 16;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9_-]+={0,2}$/;

/**
 * The text `value` encodes in base64 (standard or URL alphabet, line breaks allowed), or undefined
 * when it is not base64 or does not decode to UTF-8 text (a hash, a certificate's DER, gzip).
 */
export function decodeBase64Text(value: string): string | undefined {
  if (value.length < MIN_BASE64_LENGTH) return undefined;
  const compact = value.includes('\n') ? value.replace(/\r?\n/g, '') : value;
  if (compact.length % 4 === 1 || !BASE64.test(compact)) return undefined;
  const bytes = Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return isPlainText(text) ? text : undefined;
  } catch {
    return undefined;
  }
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
