import type { JsonValue } from '../findings/model.js';
import { deepEqual, isPlainObject, type JsonObject, MAX_VALUE_DEPTH, nestingExceeds } from './json-values.js';

export type JsonDocument = JsonValue[] | JsonObject;

/**
 * Strings that hold a JSON object or array (IAM policies, ECS container definitions, SQS redrive
 * policies). Cheap first-character test before parsing, because most strings are not documents.
 */
export function parseJsonDocument(text: string): JsonDocument | undefined {
  let index = 0;
  while (index < text.length && isJsonWhitespace(text.charCodeAt(index))) index++;
  const first = text.charCodeAt(index);
  if (first !== 0x7b && first !== 0x5b) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    // JSON.parse takes any depth; the walkers after it do not. Too deep: compared as plain text.
    // The length test keeps the depth walk off ordinary documents (a level needs two characters).
    if (text.length > 2 * MAX_VALUE_DEPTH && nestingExceeds(value, MAX_VALUE_DEPTH)) return undefined;
    return value as JsonDocument;
  } catch {
    return undefined;
  }
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Two documents mean the same thing. Key order never matters. IAM policy documents (a top-level
 * `Statement`) are also compared the way IAM reads them: statement and value lists are sets, and a
 * single value equals a one-element list (`"Action": "s3:GetObject"` ≡ `["s3:GetObject"]`), which is
 * how AWS re-serialises policies it stores.
 */
export function jsonDocumentsEquivalent(
  a: JsonDocument,
  b: JsonDocument,
  keys: IamKeyCache = newIamKeyCache(),
): boolean {
  if (isIamPolicyDocument(a) && isIamPolicyDocument(b))
    return iamKey(a, false, keys) === iamKey(b, false, keys);
  return deepEqual(a, b);
}

export function isIamPolicyDocument(document: unknown): boolean {
  return isPlainObject(document) && Object.hasOwn(document, 'Statement');
}

/**
 * A text that two parts of IAM policy documents share exactly when IAM reads them the same: one-element
 * lists are their element, lists are multisets (sorted by their elements' keys), object keys sorted,
 * and an account in a principal is its id whether written `123456789012` or, as AWS stores it,
 * `arn:aws:iam::123456789012:root`. Keys, not a pairwise comparison, so that matching the statements
 * or actions of two long lists is a sort, never a search of one list per element of the other.
 */
export function iamKey(value: unknown, principal = false, cache?: IamKeyCache): string {
  if (typeof value !== 'object' || value === null) {
    if (principal && typeof value === 'string') return JSON.stringify(ACCOUNT_ROOT.exec(value)?.[1] ?? value);
    return JSON.stringify(value) ?? 'null';
  }
  const known = cache?.[principal ? 'principal' : 'plain'].get(value);
  if (known !== undefined) return known;
  let key: string;
  if (Array.isArray(value))
    key =
      value.length === 1
        ? iamKey(value[0], principal, cache)
        : `[${value
            .map((item) => iamKey(item, principal, cache))
            .sort()
            .join(',')}]`;
  else if (isPlainObject(value))
    key = `{${Object.keys(value)
      .sort()
      .map(
        (name) => `${JSON.stringify(name)}:${iamKey(value[name], principal || isPrincipalKey(name), cache)}`,
      )
      .join(',')}}`;
  else key = JSON.stringify(value) ?? 'null';
  cache?.[principal ? 'principal' : 'plain'].set(value, key);
  return key;
}

/**
 * The keys of the objects and lists of two documents being compared, by whether they sit in a
 * principal: the diff asks for the key of every level of a document (the whole, each statement, each
 * value), and each level's key is its members' keys, so each is computed once. One cache per pair of
 * freshly parsed documents, which nothing changes while they are compared.
 */
export interface IamKeyCache {
  plain: WeakMap<object, string>;
  principal: WeakMap<object, string>;
}

export function newIamKeyCache(): IamKeyCache {
  return { plain: new WeakMap(), principal: new WeakMap() };
}

export function isPrincipalKey(key: string): boolean {
  return key === 'Principal' || key === 'NotPrincipal';
}

/** The account's root ARN in any partition, which AWS writes for an account id in a principal. */
const ACCOUNT_ROOT = /^arn:aws[a-z-]*:iam::(\d{12}):root$/;

/**
 * A statement that allows everyone: `Effect: Allow`, Principal `"*"` or `{"AWS": "*"}`, and no
 * Condition (one narrows `"*"` to a known caller).
 */
export function isPublicAllowStatement(value: unknown): boolean {
  if (!isPlainObject(value) || value.Effect !== 'Allow' || narrowsCallers(value.Condition)) return false;
  const principal = value.Principal;
  if (principal === '*') return true;
  if (!isPlainObject(principal)) return false;
  const aws = principal.AWS;
  return aws === '*' || (Array.isArray(aws) && aws.includes('*'));
}

/** A Condition with any member narrows who may call; absent, null or `{}` narrows nothing. */
function narrowsCallers(condition: unknown): boolean {
  if (condition === undefined || condition === null) return false;
  if (!isPlainObject(condition)) return true;
  for (const _key in condition) return true;
  return false;
}
