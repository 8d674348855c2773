import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { SensitiveHasher } from '../core/redaction/secrets.js';
import {
  type CompactPlan,
  compactPlan,
  createJsonSelector,
  createPlanCompactor,
  PlanFormatError,
} from '../core/terraform/index.js';

export interface ReadPlanFileOptions {
  hashSensitive: SensitiveHasher;
  /** Files up to this size are read and parsed whole (fast path); larger ones are streamed. */
  inMemoryLimitBytes?: number | undefined;
  /** Read size of the streaming path (default 16 MiB); tests use small chunks to cross boundaries. */
  streamChunkBytes?: number | undefined;
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
  const { size } = await stat(path);
  if (size === 0) throw new PlanFormatError('plan is empty');
  if (size <= limit) {
    const text = await readFile(path, 'utf8');
    return compactPlan(text, { hashSensitive: options.hashSensitive });
  }
  return streamPlanFile(path, options.hashSensitive, options.streamChunkBytes ?? STREAM_CHUNK_BYTES);
}

async function streamPlanFile(
  path: string,
  hashSensitive: SensitiveHasher,
  chunkBytes: number,
): Promise<CompactPlan> {
  const compactor = createPlanCompactor({ hashSensitive });
  const selector = createJsonSelector(compactor.selector, compactor.accept);
  let firstByte: number | undefined;
  const stream = createReadStream(path, { highWaterMark: chunkBytes });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      firstByte ??= firstSignificantByte(chunk);
      selector.write(chunk);
    }
    selector.end();
  } finally {
    stream.destroy();
  }
  // The selector validates the JSON; only an object can be a plan (`[]` or `42` would otherwise
  // look like a plan without format_version).
  if (firstByte !== 0x7b) throw new PlanFormatError('plan is not a JSON object');
  return compactor.finish();
}

function firstSignificantByte(chunk: Uint8Array): number | undefined {
  for (const byte of chunk) {
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
  }
  return undefined;
}
