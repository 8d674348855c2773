import { isUtf8 } from 'node:buffer';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { shellWord } from '../core/backend/rule.js';
import type { SensitiveHasher } from '../core/redaction/secrets.js';
import {
  type CompactPlan,
  compactPlan,
  createJsonSelector,
  createPlanCompactor,
  PlanFormatError,
  streamedLogError,
} from '../core/terraform/index.js';

export interface ReadPlanFileOptions {
  hashSensitive: SensitiveHasher;
  /** Secret values the caller handed to Terraform (sensitive variables): hashed wherever they show. */
  knownSecrets?: readonly string[];
  /** Files up to this size are read and parsed whole (fast path); larger ones are streamed. */
  inMemoryLimitBytes?: number | undefined;
  /** Read size of the streaming path (default 16 MiB); tests use small chunks to cross boundaries. */
  streamChunkBytes?: number | undefined;
  /** The largest single value the streaming path captures (default: V8's string limit); for tests. */
  maxCaptureBytes?: number | undefined;
}

/**
 * Small plans (most workspaces) are parsed whole; above this the streaming reader is both faster
 * (it skips configuration and prior_state attributes instead of materialising them) and needs about
 * half the memory (bench/evaluate-plan.ts), and it has no limit at V8's maximum string length.
 */
export const DEFAULT_IN_MEMORY_LIMIT_BYTES = 16 * 1024 * 1024;
const STREAM_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * Reads the output of `terraform show -json <planfile>` into a CompactPlan. Small plans are parsed
 * with JSON.parse (fastest); large ones are streamed through the selective JSON reader, so a plan
 * larger than V8's maximum string length still evaluates and memory stays bounded by the compacted
 * result, not by the file. Throws PlanFormatError (empty, not JSON, truncated, unsupported format).
 */
export async function readPlanFile(path: string, options: ReadPlanFileOptions): Promise<CompactPlan> {
  const limit = options.inMemoryLimitBytes ?? DEFAULT_IN_MEMORY_LIMIT_BYTES;
  const stats = await stat(path);
  const { size } = stats;
  // A pipe (`evaluate-plan <(terraform show -json plan.tfplan)`, a FIFO) or a device has no size
  // until read: it is streamed, never taken for an empty file.
  const sized = stats.isFile();
  if (sized && size === 0) throw new PlanFormatError('plan is empty');
  if (sized && size <= limit) {
    const text = decodePlanText(await readFile(path), path);
    return compactPlan(text, { hashSensitive: options.hashSensitive, knownSecrets: options.knownSecrets });
  }
  return readPlanStream(fileChunks(path, options.streamChunkBytes ?? STREAM_CHUNK_BYTES), options, path);
}

/**
 * The file's bytes in chunks read into two buffers by turns: the next chunk is read while the
 * reader works on this one, and a 140 MB plan touches 2 × 16 MiB of fresh memory instead of 140 MB
 * (a stream allocates every chunk anew; first-touched pages cost more than the copy into them).
 * A chunk is valid until the next one is asked for: readPlanStream copies whatever it keeps.
 */
async function* fileChunks(path: string, chunkBytes: number): AsyncGenerator<Uint8Array> {
  const file = await open(path, 'r');
  const buffers = [Buffer.allocUnsafeSlow(chunkBytes), Buffer.allocUnsafeSlow(chunkBytes)];
  let turn = 0;
  let pending: Promise<{ bytesRead: number }> | undefined = file.read(buffers[0]!, 0, chunkBytes, null);
  try {
    for (;;) {
      const { bytesRead } = await pending;
      pending = undefined;
      if (bytesRead === 0) return;
      const chunk = buffers[turn]!.subarray(0, bytesRead);
      turn ^= 1;
      pending = file.read(buffers[turn]!, 0, chunkBytes, null);
      yield chunk;
    }
  } finally {
    // A reader that stopped early (malformed plan) leaves a read in flight: it ends before the close.
    await pending?.catch(() => undefined);
    await file.close();
  }
}

/**
 * Reads a plan from a stream of unknown size (`driftwatch evaluate-plan -` reads stdin) through the
 * streaming reader, so memory stays bounded by the compacted result whatever arrives. A chunk's
 * memory may be reused once the next chunk is asked for (fileChunks does): nothing keeps a view of it.
 */
export async function readPlanStream(
  source: AsyncIterable<Uint8Array>,
  options: ReadPlanFileOptions,
  path?: string,
): Promise<CompactPlan> {
  const compactor = createPlanCompactor({
    hashSensitive: options.hashSensitive,
    knownSecrets: options.knownSecrets,
  });
  const selector = createJsonSelector(compactor.selector, compactor.accept, {
    skipEntry: compactor.skipsEntry,
    ...(options.maxCaptureBytes !== undefined ? { maxCaptureBytes: options.maxCaptureBytes } : {}),
  });
  const utf8 = createUtf8Check();
  let firstByte: number | undefined;
  // The first bytes are held until there are enough to recognise a byte order mark.
  let head: Uint8Array | undefined = new Uint8Array(0);
  const feed = (chunk: Uint8Array) => {
    utf8.write(chunk);
    firstByte ??= firstSignificantByte(chunk);
    selector.write(chunk);
  };
  const releaseHead = (bytes: Uint8Array) => {
    head = undefined;
    assertNotBinaryPlan(bytes, path);
    assertNotUtf16(bytes);
    // A UTF-8 byte order mark (editors add one) is not part of the JSON; decodePlanText drops it too.
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    if (bytes.length > start) feed(bytes.subarray(start));
  };
  try {
    for await (const chunk of source) {
      if (chunk.length === 0) continue;
      if (head === undefined) {
        feed(chunk);
        continue;
      }
      const joined = Buffer.concat([head, chunk]);
      if (joined.length >= 3) releaseHead(joined);
      else head = joined;
    }
    if (head !== undefined) releaseHead(head);
    utf8.end();
    selector.end();
  } catch (error) {
    // `terraform plan -json | driftwatch evaluate-plan -`: the second log line is "data after the
    // end of the document"; the first one already said what the input is.
    if (error instanceof PlanFormatError && compactor.isStreamedLog()) throw streamedLogError();
    throw error;
  }
  // The selector validates the JSON; only an object can be a plan (`[]` or `42` would otherwise
  // look like a plan without format_version).
  if (firstByte !== 0x7b) throw new PlanFormatError('plan is not a JSON object');
  return compactor.finish();
}

const NOT_UTF8 =
  'plan is not UTF-8 text: `terraform show -json` writes UTF-8; was the file re-encoded (an editor, a Windows code page)?';

/**
 * The bytes as text, strictly: a plan in another encoding must fail with that reason, not turn its
 * non-ASCII characters into U+FFFD and read on (a UTF-8 BOM is dropped, as editors add one).
 */
export function decodePlanText(bytes: Uint8Array, path?: string): string {
  assertNotBinaryPlan(bytes, path);
  assertNotUtf16(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new PlanFormatError(NOT_UTF8);
  }
}

/**
 * The plan file itself (`terraform plan -out plan.tfplan`) is a zip archive: the most common wrong
 * input, named as such rather than as text in a foreign encoding.
 */
function assertNotBinaryPlan(bytes: Uint8Array, path?: string): void {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03) {
    // The command names the file given (stdin has none), so it can be copied as it is.
    const output = path === undefined ? 'plan.json' : jsonNameBeside(path);
    throw new PlanFormatError(
      `this is a binary plan file (a zip archive, as \`terraform plan -out\` writes it), not its JSON: run \`terraform show -json ${path === undefined ? 'plan.tfplan' : shellWord(path)} > ${shellWord(output)}\` in the root module's directory and pass ${shellWord(output)}`,
    );
  }
}

/**
 * Where the JSON of a binary plan goes: its name with `.json` for its extension (`plan.tfplan` →
 * `plan.json`), or `<name>.show.json` when that is the binary's own name (a plan saved as `plan.json`).
 */
function jsonNameBeside(path: string): string {
  const name = basename(path);
  const stem = name.replace(/\.[^.]*$/, '') || name;
  return `${stem}.json` === name ? `${stem}.show.json` : `${stem}.json`;
}

/**
 * PowerShell 5's `>` writes UTF-16 with a byte order mark: the most common re-encoded plan. Without
 * the mark (iconv -t UTF-16LE, .NET's Encoding.Unicode) a NUL byte beside the first character gives
 * it away: JSON text never holds a raw NUL.
 */
function assertNotUtf16(bytes: Uint8Array): void {
  const [first, second] = bytes;
  const marked = (first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff);
  // The other byte of the first character is printable ASCII (`{`, whitespace): other binary input
  // starting with a NUL is not called UTF-16.
  const unmarked =
    bytes.length >= 2 && ((first === 0 && isAsciiText(second)) || (second === 0 && isAsciiText(first)));
  if (marked || unmarked)
    throw new PlanFormatError(
      'plan is UTF-16 text, not UTF-8 (PowerShell 5 `>` writes UTF-16): write it with `terraform show -json plan.tfplan | Out-File -Encoding utf8 plan.json`',
    );
}

function isAsciiText(byte: number | undefined): boolean {
  return (
    byte !== undefined && (byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte < 0x7f))
  );
}

/**
 * Validates UTF-8 chunk by chunk (a multi-byte character may span two chunks). The selector decodes
 * only what it captures; skipped strings would otherwise never be checked.
 */
function createUtf8Check(): { write(chunk: Uint8Array): void; end(): void } {
  let carry: Uint8Array = new Uint8Array(0);
  return {
    write(chunk) {
      // Only a character split by the chunk boundary is joined (a copy, but rare next to the read).
      const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const complete = completeLength(data);
      if (!isUtf8(data.subarray(0, complete))) throw new PlanFormatError(NOT_UTF8);
      // A copy: the chunk's buffer is read into again (fileChunks), and Buffer#slice is a view.
      carry = Uint8Array.prototype.slice.call(data, complete);
    },
    end() {
      if (carry.length > 0) throw new PlanFormatError(NOT_UTF8);
    },
  };
}

/** Length of `data` without a multi-byte character that the next chunk completes. */
function completeLength(data: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= data.length; back++) {
    const byte = data[data.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte < 0xc0) return data.length;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return back < needed ? data.length - back : data.length;
  }
  return data.length;
}

function firstSignificantByte(chunk: Uint8Array): number | undefined {
  for (const byte of chunk) {
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
  }
  return undefined;
}
