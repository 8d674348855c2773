/**
 * Parses an object body that must be a JSON object (a state, a lock). Failure reasons name what
 * was wrong and its size, never the content: JSON.parse's own messages quote the input, and these
 * bodies hold secrets (state) or anything anyone wrote (locks).
 */
export function parseJsonObject(
  body: string,
  what: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  if (body.trim() === '') return { ok: false, reason: `${what} is empty` };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, reason: `${what} is not JSON (${body.length} characters)` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: `${what} is not a JSON object` };
  return { ok: true, value: value as Record<string, unknown> };
}
