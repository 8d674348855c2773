import { createHmac } from 'node:crypto';
import type { JsonValue } from '../findings/model.js';
import { REDACTED, redactCredentials } from './secret-values.js';

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

export { isSensitiveName } from './secret-names.js';
export { containsCredential, REDACTED } from './secret-values.js';

/**
 * Redacts free text (Terraform's stderr, error messages, log lines) before it is logged or stored.
 * `knownSecrets` are literal values known to be secret (credentials we handed to Terraform, values of
 * sensitive variables and outputs); the value rules of secret-values.ts catch what we could not know
 * in advance. Already redacted values are left alone, so redacting twice changes nothing.
 */
export function redactText(text: string, knownSecrets: Iterable<string> = []): string {
  return redactCredentials(redactLiterals(text, knownSecrets));
}

/** Known secret literals shorter than this are not searched for: they would redact ordinary words. */
export const MIN_LITERAL_SECRET = 4;

export function redactLiterals(text: string, knownSecrets: Iterable<string>): string {
  let result = text;
  const literals = [...knownSecrets]
    .filter((secret) => secret.length >= MIN_LITERAL_SECRET)
    .sort((a, b) => b.length - a.length);
  for (const secret of literals) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
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
