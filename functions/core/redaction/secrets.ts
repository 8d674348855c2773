import { createHmac } from 'node:crypto';
import type { JsonValue } from '../findings/model.js';

/**
 * DESIGN.md principle 7: a sensitive value leaves the plan only as `(sensitive:<8 hex>)`, a salted
 * hash that shows "it changed" without showing the value. The salt is per installation, so the
 * same value hashes the same across nightly scans (lifecycle needs that) but cannot be looked up
 * in a table built elsewhere.
 */
export type SensitiveHasher = (value: JsonValue) => string;

export const SENSITIVE_MARKER = /^\(sensitive:[0-9a-f]{8}\)$/;

export function createSensitiveHasher(salt: string): SensitiveHasher {
  if (salt.length < 16) throw new Error('the sensitive-value salt must be at least 16 characters');
  return (value) => {
    const digest = createHmac('sha256', salt).update(canonicalJson(value)).digest('hex');
    return `(sensitive:${digest.slice(0, 8)})`;
  };
}

/** Attribute or key names whose values are treated as secrets even without a sensitive mask. */
const SENSITIVE_NAME =
  /pass(word|wd|phrase)?$|passwd|password|secret|token|private_?key|api_?key|access_?key|credential|auth_?string|session_?key|connection_?string|client_?key|signing_?key|\bpsk\b|\bsecure_?string\b|user_data\b|(^|_)key_?material/i;

/** Names that merely contain a secret word but hold identifiers, not secrets. */
const NON_SECRET_NAME =
  /(_arn|_id|_ids|_name|_names|_version|_version_id|_type|_length|_count|_enabled|_rotation\w*|_expir\w*|_ttl)$|^(arn|id|name|kms_key_id|secret_id|secret_arn)$/i;

export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAME.test(name) && !NON_SECRET_NAME.test(name);
}

const PEM_BLOCK =
  /-----BEGIN [A-Z ]*(PRIVATE KEY|CERTIFICATE|OPENSSH)[A-Z ]*-----[\s\S]*?(-----END [A-Z ]*-----|$)/g;
const AWS_ACCESS_KEY_ID = /\b(AKIA|ASIA)[A-Z0-9]{16}\b/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi;
/**
 * `password = "x"`, `db_password: x`, and Terraform's diagnostic value lines `api_token is "x"`
 * (for `is`, only a quoted value: "db_password is not set" is prose). Already redacted values
 * are left alone, so redacting twice changes nothing.
 */
const SECRET_NAME =
  '[A-Za-z0-9_.-]*?(?:pass(?:word|wd|phrase)?|secret|token|private_?key|api_?key|access_?key|credential|session_?key|connection_?string)[A-Za-z0-9_.-]*';
const NAMED_VALUE = new RegExp(
  `(["']?)(${SECRET_NAME})\\1(\\s*(?:=|:)\\s*)(?!\\(redacted\\))("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,;)}\\]]+)` +
    `|(["']?)(${SECRET_NAME})\\5(\\s+is\\s+)("(?:[^"\\\\]|\\\\.)*")`,
  'gi',
);

export const REDACTED = '(redacted)';

/**
 * Redacts free text (Terraform's stderr, error messages) before it is logged or stored.
 * `knownSecrets` are literal values known to be secret (credentials we handed to Terraform,
 * sensitive values from the plan); the patterns catch what we could not know in advance.
 */
export function redactText(text: string, knownSecrets: Iterable<string> = []): string {
  let result = text;
  const literals = [...knownSecrets]
    .filter((secret) => secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const secret of literals) result = result.split(secret).join(REDACTED);
  return result
    .replace(PEM_BLOCK, REDACTED)
    .replace(AWS_ACCESS_KEY_ID, REDACTED)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(NAMED_VALUE, (...groups: string[]) => {
      const [quote, name, separator] = groups[2] !== undefined ? groups.slice(1, 4) : groups.slice(5, 8);
      return `${quote}${name}${quote}${separator}${REDACTED}`;
    });
}

/** JSON with sorted object keys, so equal values hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}
