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
    return { ok: false, reason: `${what} ${notJsonBecause(body)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: `${what} is not a JSON object` };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Why a body is not JSON when its bytes say it: a text editor's byte order mark, or UTF-16 (each
 * ASCII character followed or preceded by a NUL once read as UTF-8; its BOM reads as two U+FFFD).
 * Terraform writes UTF-8 without a BOM and cannot read either.
 */
export function notJsonBecause(body: string, totalBytes?: number): string {
  // gzip's magic bytes 1f 8b (0x8b alone is not UTF-8): `aws s3 cp` of a .tfstate.gz, a backup tool.
  if (body.startsWith('\u001f\uFFFD')) return 'is gzip-compressed (Terraform writes plain JSON)';
  if (body.startsWith('\uFEFF')) return 'starts with a byte order mark (Terraform writes UTF-8 without one)';
  const head = body.slice(0, 64);
  const nulAt = (index: number) => head.charCodeAt(index) === 0;
  if (head.startsWith('\uFFFD\uFFFD') || (head.length > 1 && nulAt(0) !== nulAt(1)))
    return 'is UTF-16 text, not the UTF-8 Terraform writes';
  return totalBytes === undefined
    ? `is not JSON (${body.length} characters)`
    : `is not JSON (${totalBytes} bytes)`;
}
