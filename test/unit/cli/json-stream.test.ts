import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeJsonArray } from '../../../cli/json-stream.js';
import { jsonForTerminal } from '../../../functions/core/text/sanitize.js';

/** Collects what is written; with a tiny buffer, so write() asks the writer to wait for 'drain'. */
function sink(): { stream: Writable; text: () => string; waits: () => number; maxQueued: () => number } {
  const parts: Buffer[] = [];
  let waits = 0;
  let maxQueued = 0;
  const stream = new Writable({
    highWaterMark: 16,
    decodeStrings: false,
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk);
      setImmediate(done);
    },
  });
  const write = stream.write.bind(stream);
  stream.write = ((chunk: Buffer) => {
    // What was still queued when the writer wrote again: it stays small only if the writer waits.
    maxQueued = Math.max(maxQueued, stream.writableLength);
    const ok = write(chunk);
    if (!ok) waits++;
    return ok;
  }) as typeof stream.write;
  // The bytes as UTF-8: a part written as Latin-1 that was not ASCII would not decode to the text.
  return {
    stream,
    text: () => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts)),
    waits: () => waits,
    maxQueued: () => maxQueued,
  };
}

const item = (index: number) => ({
  index,
  // Characters jsonForTerminal escapes (C1 controls, bidi overrides, line separators) and nesting.
  title: `finding ${index} \u0085\u202e\u2028 "quoted" \\ back`,
  nested: { list: [index, null, true, { deep: [] }], empty: {} },
});

describe('writeJsonArray', () => {
  for (const [count, batchSize] of [
    [0, 3],
    [1, 3],
    [2, 3],
    [3, 3],
    [4, 3],
    [10, 3],
    [600, 256],
  ] as const)
    it(`writes the bytes of jsonForTerminal(array) + newline for ${count} items in batches of ${batchSize}`, async () => {
      const items = Array.from({ length: count }, (_, index) => item(index));
      const out = sink();
      await writeJsonArray(out.stream, items, batchSize);
      expect(out.text()).toBe(`${jsonForTerminal(items)}\n`);
    });

  for (const [name, title] of [
    ['ASCII only', 'plain "quoted" \\ back\ttab \u0001 control'],
    ['Latin-1 letters', 'café Ünïcode ÿ'],
    ['characters beyond Latin-1', 'naïve € 日本 😀'],
    ['DEL, the one ASCII character it escapes', 'del \u007f only'],
    ['DEL and C1 controls', 'del \u007f csi \u009b nbsp \u00a0'],
  ] as const)
    it(`writes the UTF-8 bytes of jsonForTerminal(array) for text with ${name}`, async () => {
      const items = Array.from({ length: 5 }, (_, index) => ({ index, title }));
      const out = sink();
      await writeJsonArray(out.stream, items, 2);
      expect(out.text()).toBe(`${jsonForTerminal(items)}\n`);
    });

  it('waits for the reader when the buffer is full instead of queueing everything', async () => {
    const out = sink();
    await writeJsonArray(
      out.stream,
      Array.from({ length: 20 }, (_, index) => item(index)),
      2,
    );
    expect(out.waits()).toBeGreaterThan(0);
    expect(out.maxQueued()).toBeLessThan(16);
  });
});
