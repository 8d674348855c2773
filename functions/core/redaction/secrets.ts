import { createHmac, createSecretKey } from 'node:crypto';
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
  // The key prepared once (createHmac would otherwise prepare it again for every value hashed).
  const key = createSecretKey(Buffer.from(salt, 'utf8'));
  return (value) => {
    const digest = createHmac('sha256', key).update(canonicalJson(value)).digest('hex');
    return `(sensitive:${digest.slice(0, 8)})`;
  };
}

export { isSecretOption, isSensitiveName } from './secret-names.js';
export {
  argumentsHoldCredential,
  commandMembersHoldCredential,
  containsCredential,
  REDACTED,
  redactArguments,
  secretCommandMembers,
} from './secret-values.js';

/**
 * Redacts free text (Terraform's stderr, error messages, log lines) before it is logged or stored.
 * `knownSecrets` are literal values known to be secret (credentials we handed to Terraform, values of
 * sensitive variables and outputs); the value rules of secret-values.ts catch what we could not know
 * in advance. Already redacted values are left alone, so redacting twice changes nothing.
 */
export function redactText(text: string, knownSecrets: Iterable<string> = NO_SECRETS): string {
  // Without literals, nothing to copy and sort for each of the many texts a finding holds.
  return redactCredentials(knownSecrets === NO_SECRETS ? text : redactLiterals(text, knownSecrets));
}

const NO_SECRETS: readonly string[] = [];

/**
 * At most `max` characters of `text` (then `…`), redacted whole before it is cut: a cap that cuts
 * through a credential (`postgres://admin:pass…`, half a token) leaves a start that no rule
 * recognises, and that start would be kept.
 */
export function redactedExcerpt(text: string, max: number, knownSecrets: Iterable<string> = []): string {
  const redacted = redactText(text, knownSecrets);
  return redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
}

/** Known secret literals shorter than this are not searched for: they would redact ordinary words. */
export const MIN_LITERAL_SECRET = 4;

export function redactLiterals(text: string, knownSecrets: Iterable<string>): string {
  let result = text;
  const literals = [...knownSecrets]
    .filter((secret) => secret.length >= MIN_LITERAL_SECRET)
    .flatMap((secret) => [...encodedForms(secret), ...percentForms(secret)])
    .sort((a, b) => b.length - a.length);
  for (const secret of literals) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}

/**
 * A secret literal as it appears in a value that embeds it (base64 text is decoded instead):
 * `jsonencode({key = var.token})` writes it escaped (`"` and `\` escaped, and `&`, `<`, `>` as
 * `\u0026`… as Go's encoder does), a JSON string inside a JSON string escapes it twice, and encoders
 * that write ASCII only escape every other character as `\uXXXX`. A literal without such characters
 * has only itself as a form.
 */
export function encodedForms(literal: string): string[] {
  const forms = new Set<string>([literal]);
  let level: string[] = [literal];
  for (let depth = 0; depth < 2; depth++) {
    level = level.flatMap((text) => {
      const escaped = JSON.stringify(text).slice(1, -1);
      const html = escaped.replace(/[&<>]/g, unicodeEscape);
      return [escaped, html, html.replace(/[^ -~\t\n\r]/g, unicodeEscape)];
    });
    for (const form of level) forms.add(form);
    level = [...new Set(level)];
  }
  return [...forms];
}

/**
 * A secret literal as a URL or a form carries it (`urlencode(var.token)` in a query or a connection
 * string, a form body): percent-encoded as Terraform's `urlencode` and Go's QueryEscape write it
 * (space as `+`), as encodeURIComponent does (space as `%20`, `!'()*` kept), as RFC 3986 asks (only
 * `-._~` kept), each with upper- and lower-case hex. Searched for like the literal, never by
 * decoding every string. A literal without such characters has no other form (none returned).
 */
export function percentForms(literal: string): string[] {
  if (/^[A-Za-z0-9._~-]*$/.test(literal)) return [];
  const strict = [...new TextEncoder().encode(literal)]
    .map((byte) => (UNRESERVED.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : percent(byte)))
    .join('');
  const forms = new Set<string>([strict, strict.replace(/%20/g, '+'), encodeURIComponent(literal)]);
  for (const form of [...forms]) forms.add(form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  forms.delete(literal);
  return [...forms];
}
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

function percent(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * What a text containing `literal` shows of it once the text is base64-encoded (`base64encode` of a
 * user_data script, a Kubernetes Secret's data): for each of the three byte offsets the literal can
 * start at within a 3-byte group, the characters that encode its bytes alone, in the standard and
 * URL alphabets. A search for these finds the literal in base64 text without decoding every string
 * (a base64 text with line breaks is searched without them: see holdsLiteralText).
 */
export function base64Forms(literal: string): string[] {
  const bytes = Buffer.from(literal, 'utf8');
  const forms = new Set<string>();
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.alloc(Math.ceil((shift + bytes.length) / 3) * 3);
    bytes.copy(padded, shift);
    const encoded = padded.toString('base64');
    // Character i covers bits [6i, 6i + 6): those wholly inside the literal's bits are its own.
    const form = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (form.length < MIN_LITERAL_SECRET) continue;
    forms.add(form);
    forms.add(form.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** JSON with sorted object keys, so equal values hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Plan values usually arrive with their keys sorted already (Terraform writes them so), and the
  // objects of findings differ only in key order: either is serialised natively, in one call, as
  // itself or as a copy with sorted keys, to the same text.
  const sorted = sortedForJson(value, 0);
  if (sorted !== undefined) return JSON.stringify(sorted);
  // What a copy cannot express (undefined members, holes, integer-like keys out of order...).
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value as object).sort();
  let text = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`;
  }
  return `${text}}`;
}

/**
 * Whether `JSON.stringify(value)` is already its canonical form: plain objects whose keys are in
 * sorted order, arrays without holes, and only strings, finite or not numbers, booleans and null
 * below (no undefined, functions or objects with toJSON, which the two forms write differently).
 * Deeper than a plan value may nest, the answer is no (and the recursive form takes over).
 */
function isCanonical(value: object, depth: number): boolean {
  if (depth > 256) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (!isCanonicalMember(item, depth)) return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!isCanonicalMember((value as Record<string, unknown>)[key], depth)) return false;
  }
  return true;
}

/**
 * `value` when JSON.stringify writes it canonically, else a copy whose keys are inserted in sorted
 * order (JSON.stringify writes them in that order), else undefined: a member JSON.stringify writes
 * differently from the recursive form (see isCanonical), or a key a copy cannot place in order (an
 * integer-like key, which objects always list first, or `__proto__`).
 */
function sortedForJson(value: object, depth: number): object | undefined {
  if (isCanonical(value, depth)) return value;
  if (depth > 256) return undefined;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (let index = 0; index < value.length; index++) {
      const member = sortedMember(value[index], depth);
      if (member === undefined) return undefined;
      copy.push(member);
    }
    return copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const keys = Object.keys(value).sort();
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    if (key === '__proto__' || INTEGER_LIKE.test(key)) return undefined;
    const member = sortedMember((value as Record<string, unknown>)[key], depth);
    if (member === undefined) return undefined;
    copy[key] = member;
  }
  return copy;
}
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

function sortedMember(member: unknown, depth: number): unknown {
  switch (typeof member) {
    case 'string':
    case 'number':
    case 'boolean':
      return member;
    case 'object':
      return member === null ? null : sortedForJson(member, depth + 1);
    default:
      return undefined;
  }
}

function isCanonicalMember(member: unknown, depth: number): boolean {
  switch (typeof member) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      return member === null || isCanonical(member, depth + 1);
    default:
      return false;
  }
}
