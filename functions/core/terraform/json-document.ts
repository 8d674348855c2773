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
export function jsonDocumentsEquivalent(a: JsonDocument, b: JsonDocument): boolean {
  if (isIamPolicyDocument(a) && isIamPolicyDocument(b)) return iamEqual(a, b);
  return deepEqual(a, b);
}

function isIamPolicyDocument(document: JsonDocument): boolean {
  return isPlainObject(document) && Object.hasOwn(document, 'Statement');
}

function iamEqual(a: unknown, b: unknown): boolean {
  const left = unwrapSingleton(a);
  const right = unwrapSingleton(b);
  if (left === right) return true;
  if (Array.isArray(left) && Array.isArray(right)) return sameMultiset(left, right);
  if (isPlainObject(left) && isPlainObject(right)) {
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    return keys.every((key) => Object.hasOwn(right, key) && iamEqual(left[key], right[key]));
  }
  return false;
}

function unwrapSingleton(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 ? value[0] : value;
}

function sameMultiset(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  const used = new Uint8Array(right.length);
  return left.every((item) => {
    const match = right.findIndex((candidate, index) => used[index] === 0 && iamEqual(item, candidate));
    if (match < 0) return false;
    used[match] = 1;
    return true;
  });
}
