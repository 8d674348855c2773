import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPlanFile, readPlanStream } from '../../../functions/adapters/plan-file.js';
import { PlanFormatError } from '../../../functions/core/terraform/index.js';
import { entry, hashSensitive, plan } from '../../helpers/plan-builders.js';
import { usePlanFiles } from '../../helpers/plan-files.js';

/** Bytes that are not a UTF-8 plan, and inputs of unknown size, on every reading path. */
const { writePlan } = usePlanFiles('driftwatch-plan-input-');

/** The in-memory path, the streaming path, the streaming path in 1- and 3-byte chunks, and a stream. */
function readers(content: Uint8Array) {
  const path = writePlan(content);
  return [
    () => readPlanFile(path, { hashSensitive }),
    () => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1 }),
    () => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1, streamChunkBytes: 1 }),
    () => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1, streamChunkBytes: 3 }),
    () => readPlanStream(Readable.from([Buffer.from(content)]), { hashSensitive }),
  ];
}

async function reasonsOf(content: Uint8Array): Promise<string[]> {
  const reasons: string[] = [];
  for (const read of readers(content)) {
    const error = await read().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error, 'expected a PlanFormatError').toBeInstanceOf(PlanFormatError);
    reasons.push((error as Error).message);
  }
  return reasons;
}

const driftWithTag = (value: string) =>
  plan({
    drift: [
      entry('aws_s3_bucket.a', { before: { tags: { Owner: value } }, after: { tags: { Owner: 'x' } } }),
    ],
  });

describe('encodings', () => {
  it('Latin-1 bytes say the plan is not UTF-8, on every path (even inside a skipped value)', async () => {
    const utf8 = Buffer.from(JSON.stringify(driftWithTag('café')));
    const latin1 = Buffer.from(JSON.stringify(driftWithTag('café')), 'latin1');
    expect(latin1.length).toBe(utf8.length - 1);
    for (const reason of await reasonsOf(latin1)) expect(reason).toMatch(/^plan is not UTF-8 text/);
    // The same in configuration, which the streaming reader skips without decoding.
    const skipped = Buffer.from(JSON.stringify({ ...plan(), configuration: { note: 'café' } }), 'latin1');
    for (const reason of await reasonsOf(skipped)) expect(reason).toMatch(/^plan is not UTF-8 text/);
  });

  it('UTF-16 (PowerShell 5 `>`) says so and how to write UTF-8', async () => {
    const text = JSON.stringify(plan());
    for (const bytes of [
      Buffer.from(`\ufeff${text}`, 'utf16le'),
      Buffer.from(`\ufeff${text}`, 'utf16le').swap16(),
      // Without a byte order mark (iconv -t UTF-16LE / UTF-16BE), which read as "not JSON at position 1".
      Buffer.from(text, 'utf16le'),
      Buffer.from(text, 'utf16le').swap16(),
      Buffer.from(` \n${text}`, 'utf16le'),
    ]) {
      for (const reason of await reasonsOf(bytes))
        expect(reason).toMatch(/^plan is UTF-16 text, not UTF-8 .*Out-File -Encoding utf8/);
    }
  });

  it('multi-byte characters split across chunks are valid, and a UTF-8 BOM is dropped', async () => {
    const raw = driftWithTag('Zürich → 東京 🚀');
    const bytes = Buffer.from(`\ufeff${JSON.stringify(raw)}`);
    const results = [];
    for (const read of readers(bytes)) results.push(await read());
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0]?.drift[0]?.changes[0]).toMatchObject({
      path: 'tags.Owner',
      before: 'Zürich → 東京 🚀',
    });
  });

  it('a sequence cut off inside a string is not UTF-8', async () => {
    const [start, end] = JSON.stringify(driftWithTag('@')).split('@') as [string, string];
    const bytes = Buffer.concat([Buffer.from(start), Buffer.from([0xe6, 0x9d]), Buffer.from(end)]);
    for (const reason of await reasonsOf(bytes)) expect(reason).toMatch(/^plan is not UTF-8 text/);
  });
});

describe('stdin (readPlanStream)', () => {
  it('reads a plan in many chunks like a file', async () => {
    const text = JSON.stringify(driftWithTag('a'));
    const chunks = text.match(/.{1,7}/gs)!.map((part) => Buffer.from(part));
    const streamed = await readPlanStream(Readable.from(chunks), { hashSensitive });
    expect(streamed).toEqual(await readPlanFile(writePlan(text), { hashSensitive }));
  });

  it('rejects what is not a plan: empty, an array, a state file', async () => {
    const read = (text: string) =>
      readPlanStream(Readable.from(text ? [Buffer.from(text)] : []), { hashSensitive }).catch(
        (error: Error) => error.message,
      );
    expect(await read('')).toBe('plan is empty');
    expect(await read('[]')).toBe('plan is not a JSON object');
    expect(await read('{"version":4,"serial":1,"lineage":"x","resources":[]}')).toMatch(
      /^this is a Terraform state file, not a plan/,
    );
  });
});

describe('a value larger than one string can hold', () => {
  it('names the value and the limit instead of failing as invalid UTF-8', async () => {
    const raw = driftWithTag('x'.repeat(5000));
    const path = writePlan(JSON.stringify(raw));
    const error = await readPlanFile(path, {
      hashSensitive,
      inMemoryLimitBytes: 1,
      streamChunkBytes: 1024,
      maxCaptureBytes: 2 * 1024 * 1024 - 1,
    }).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error).toBeUndefined();
    const tooLarge = await readPlanFile(path, {
      hashSensitive,
      inMemoryLimitBytes: 1,
      streamChunkBytes: 1024,
      maxCaptureBytes: 4096,
    }).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(tooLarge).toBeInstanceOf(PlanFormatError);
    expect(tooLarge?.message).toBe(
      'plan value resource_drift[0] is larger than 4096 bytes, the most driftwatch reads as one value (one resource entry)',
    );
  });
});
