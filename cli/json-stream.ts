import { once } from 'node:events';
import { escapeJsonText } from '../functions/core/text/sanitize.js';

/**
 * The bytes of `${jsonForTerminal(items)}\n` (a 2-space indented array), written a batch of items at
 * a time: a 50,000-finding plan's output (~100 MB) is never one string, and the first bytes leave
 * before the last items are serialised. Every batch goes through the escapes of jsonForTerminal, so
 * the bytes are those of the one-string form.
 */
export async function writeJsonArray(
  out: NodeJS.WritableStream,
  items: readonly unknown[],
  batchSize = BATCH_SIZE,
): Promise<void> {
  if (items.length === 0) return write(out, Buffer.from('[]\n'));
  for (let start = 0; start < items.length; start += batchSize) {
    // "[\n  A,\n  B\n]": the elements are already at the indentation they have in the whole array.
    const bytes = jsonBytes(items.slice(start, start + batchSize));
    await write(out, start === 0 ? OPEN : SEPARATOR);
    await write(out, bytes.subarray(2, bytes.length - 2));
  }
  await write(out, CLOSE);
}

/**
 * About 64 KiB of findings' JSON: a text of a few hundred KiB is a large object to V8 and a fresh
 * mapping to malloc, whose first-touched pages cost more system time than serialising them (the
 * 45,000 findings of bench/evaluate-plan.ts: 0.41 s in batches of 256, 0.36 s in batches of 32).
 */
const BATCH_SIZE = 32;
const OPEN = Buffer.from('[\n');
const SEPARATOR = Buffer.from(',\n');
const CLOSE = Buffer.from('\n]\n');

/**
 * Every character escapeJsonText escapes is at or above U+007F (DEL). Text whose UTF-8 encoding is
 * as long as the text is ASCII, so once the encoding shows that and DEL is absent, the bytes need no
 * escape: no scan of the ~100 MB of findings beyond the encoding and a search for one character.
 */
function jsonBytes(value: unknown): Buffer {
  const json = JSON.stringify(value, null, 2);
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length === json.length && !json.includes('\u007f')) return bytes;
  return Buffer.from(escapeJsonText(json), 'utf8');
}

/** Waits for 'drain' when the stream's buffer is full, so a slow reader does not make us hold it all. */
async function write(out: NodeJS.WritableStream, bytes: Uint8Array): Promise<void> {
  if (!out.write(bytes)) await once(out, 'drain');
}
