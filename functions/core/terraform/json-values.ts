import type { JsonValue } from '../findings/model.js';

export type JsonObject = { [key: string]: JsonValue };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string with content, or undefined (absent, empty or not a string). */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Values parsed from plan JSON are JSON values; this names the assumption in one place. */
export function asJson(value: unknown): JsonValue {
  return value === undefined ? null : (value as JsonValue);
}

/**
 * How deep plan values may nest. Real attribute values stay far below (blocks in blocks, a policy
 * document in a string: tens of levels); the recursive walkers that read values (diff, redaction,
 * canonical JSON, deepEqual, JSON.stringify) stay far from the stack limit below it, even when a
 * JSON document string inside a value adds its own levels (json-document.ts applies the same limit).
 */
export const MAX_VALUE_DEPTH = 256;

/**
 * Whether `value` nests containers more than `limit` levels deep. The recursion stops at `limit`
 * levels, so any depth is safe to ask about; it allocates nothing (it runs over every plan entry).
 */
export function nestingExceeds(value: unknown, limit: number): boolean {
  return typeof value === 'object' && value !== null && containerNestsBeyond(value, 1, limit);
}

function containerNestsBeyond(container: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(container)) {
    for (let index = 0; index < container.length; index++) {
      const child: unknown = container[index];
      if (typeof child === 'object' && child !== null && containerNestsBeyond(child, depth + 1, limit))
        return true;
    }
    return false;
  }
  for (const key in container) {
    const child = (container as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && containerNestsBeyond(child, depth + 1, limit))
      return true;
  }
  return false;
}

/**
 * Structural equality of parsed JSON (object key order ignored). Walks without allocating, because
 * it runs over every unchanged subtree of every drifted resource.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!deepEqual(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !deepEqual(left[key], right[key])) return false;
    keys++;
  }
  for (const _key in right) keys--;
  return keys === 0;
}

/** null, absent, `""`, `[]` and `{}`: what providers use interchangeably for "nothing". */
export function isNullish(value: unknown): boolean {
  return value === null || value === undefined;
}

/**
 * The value an attribute takes when nobody set it: what a provider reports for an attribute that
 * the state holds as null (a first refresh after apply, or an attribute a newer provider added).
 */
export function isZeroValue(value: unknown): boolean {
  return value === false || value === 0 || isEmptyValue(value);
}

/** Null (or absent) on one side, the zero value of its kind on the other: `null → []`, `"" → null`. */
export function isNullVersusEmpty(before: unknown, after: unknown): boolean {
  return (isNullish(before) && isZeroValue(after)) || (isZeroValue(before) && isNullish(after));
}

export function isEmptyValue(value: unknown): boolean {
  if (value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) {
    for (const _key in value) return false;
    return true;
  }
  return false;
}

/**
 * Reads `mask[key]` of a sensitivity/unknown mask, which mirrors the value's shape. A mask `true`
 * covers everything below it (`after_sensitive: true` for a whole object): each child is `true` too,
 * so a reader that looks at one member (tags, identity) cannot take a masked value for a plain one.
 */
export function childMask(mask: unknown, key: string | number): unknown {
  if (mask === true) return true;
  if (typeof mask !== 'object' || mask === null) return undefined;
  if (Array.isArray(mask)) return typeof key === 'number' ? mask[key] : undefined;
  return typeof key === 'string' && Object.hasOwn(mask, key)
    ? (mask as Record<string, unknown>)[key]
    : undefined;
}
