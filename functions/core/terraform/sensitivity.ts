import type { JsonValue } from '../findings/model.js';
import { isSensitiveName, type SensitiveHasher } from '../redaction/secrets.js';
import { parseJsonDocument } from './json-document.js';
import { childMask, isPlainObject } from './json-values.js';
import { UNKNOWN_VALUE } from './plan-model.js';

/**
 * Principle 7 for plans: a value is sensitive when Terraform's mask says so, when a path segment has
 * a secret-looking name, when the resource type stores a secret in a plain-named attribute, or when
 * it holds a PEM private key. This module answers those questions; the differ decides where to ask.
 */

const PEM_PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----/;

export function containsPrivateKey(text: string): boolean {
  return text.includes('-----BEGIN') && PEM_PRIVATE_KEY.test(text);
}

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

function isSecureString(value: unknown): boolean {
  return isPlainObject(value) && value.type === 'SecureString';
}

/** `isSensitiveName` memoised per plan: attribute names repeat across thousands of resources. */
export type SensitiveKeyTest = (key: string) => boolean;

export function createSensitiveKeyTest(): SensitiveKeyTest {
  const cache = new Map<string, boolean>();
  return (key) => {
    let answer = cache.get(key);
    if (answer === undefined) {
      answer = isSensitiveName(key);
      if (cache.size < 50_000) cache.set(key, answer);
    }
    return answer;
  };
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
    for (const key in value) {
      const child = value[key];
      if (child !== null && isSensitiveKey(key)) return true;
      if (hasSensitiveContent(child, childMask(mask, key), isSensitiveKey)) return true;
    }
  }
  return false;
}

function stringHasSensitiveContent(text: string, isSensitiveKey: SensitiveKeyTest): boolean {
  if (containsPrivateKey(text)) return true;
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
