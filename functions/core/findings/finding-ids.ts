/**
 * Short finding ids, as git abbreviates commits. A finding id is a sha256 hex fingerprint; tables
 * show its first 12 characters (48 bits). Among n findings the chance that two share 12 characters
 * is about n²/2⁴⁹: one in 50,000 for an estate with 100,000 open findings, where 8 characters
 * (32 bits) would collide almost surely and 10 characters about once in 200. When the ids shown
 * do share 12 characters, the column grows until they differ, as git's abbreviations do.
 */
export const SHORT_ID_LENGTH = 12;
/** Shorter prefixes than this match too much to be typed on purpose. */
export const MIN_PREFIX_LENGTH = 4;

/** The one length at which every distinct id of `ids` has a distinct prefix (at least 12). */
export function shortIdLength(ids: readonly string[]): number {
  const sorted = [...new Set(ids)].sort();
  let length = SHORT_ID_LENGTH;
  for (let index = 1; index < sorted.length; index++) {
    const a = sorted[index - 1]!;
    const b = sorted[index]!;
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    length = Math.max(length, common + 1);
  }
  return length;
}

export type PrefixMatch =
  | { kind: 'match'; id: string }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'unknown' }
  | { kind: 'invalid'; reason: string };

/**
 * Which of `ids` a typed id or prefix names: the one id it starts (or is), several (ambiguous),
 * none, or a text that cannot be a finding id at all. Case-insensitive, as hex is.
 */
export function matchFindingId(typed: string, ids: Iterable<string>): PrefixMatch {
  const prefix = typed.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(prefix))
    return { kind: 'invalid', reason: 'a finding id is hexadecimal (0-9, a-f)' };
  if (prefix.length < MIN_PREFIX_LENGTH)
    return { kind: 'invalid', reason: `give at least ${MIN_PREFIX_LENGTH} characters of the id` };
  if (prefix.length > 64) return { kind: 'invalid', reason: 'a finding id has 64 characters' };
  const candidates = [...new Set([...ids].filter((id) => id.startsWith(prefix)))].sort();
  if (candidates.length === 1) return { kind: 'match', id: candidates[0]! };
  if (candidates.length === 0) return { kind: 'unknown' };
  return { kind: 'ambiguous', candidates };
}

/** A finding's id as tables and digests show it: its first `length` characters (12 unless ids collide). */
export function shortId(id: string, length = SHORT_ID_LENGTH): string {
  return id.slice(0, length);
}
