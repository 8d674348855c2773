import { once } from 'node:events';
import { jsonForTerminal } from '../functions/core/text/sanitize.js';

/**
 * The bytes of `${jsonForTerminal(items)}\n` (a 2-space indented array), written a batch of items at
 * a time: a 50,000-finding plan's output (~100 MB) is never one string, and the first bytes leave
 * before the last items are serialised. Every batch goes through jsonForTerminal, so the escapes are
 * those of the one-string form.
 */
export async function writeJsonArray(
  out: NodeJS.WritableStream,
  items: readonly unknown[],
  batchSize = 256,
): Promise<void> {
  if (items.length === 0) return write(out, '[]\n');
  for (let start = 0; start < items.length; start += batchSize) {
    // "[\n  A,\n  B\n]": the elements are already at the indentation they have in the whole array.
    const text = jsonForTerminal(items.slice(start, start + batchSize));
    await write(out, `${start === 0 ? '[\n' : ',\n'}${text.slice(2, -2)}`);
  }
  await write(out, '\n]\n');
}

/** Waits for 'drain' when the stream's buffer is full, so a slow reader does not make us hold it all. */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}
