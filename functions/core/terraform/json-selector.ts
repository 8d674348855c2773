import { jsonParseReason, PlanFormatError } from './plan-error.js';
import type { PathSegment } from './plan-model.js';
import type { JsonKind, SelectDecision } from './plan-paths.js';

/**
 * Incremental, selective JSON reader for plans too large to hold as one string (V8 strings stop at
 * ~512 MiB). Bytes go in chunk by chunk; at every value inside a descended container
 * `select(path, kind)` decides (kind: what the value opens with): `descend` walks into it, `capture` materialises it (bytes collected, then one native
 * JSON.parse) and hands it to `onValue`, `skip` scans past it without building anything. Memory is
 * bounded by the captured values, not by the document.
 *
 * Strings are skipped with `indexOf` on the bytes (they are most of a plan's size). Descended
 * structure and literals are validated byte by byte, captured values by JSON.parse, so malformed or
 * truncated JSON throws PlanFormatError. Inside a skipped container only bracket nesting and string
 * ends are checked (a tight loop: skipped parts are most of a plan), not commas, literals or the
 * content of strings.
 */

export interface JsonSelector {
  write(chunk: Uint8Array): void;
  end(): void;
}

type Select = (path: readonly PathSegment[], kind: JsonKind) => SelectDecision;
type OnValue = (path: readonly PathSegment[], value: unknown) => void;

// Grammar positions.
const EXPECT_VALUE = 0;
const EXPECT_VALUE_OR_ARRAY_END = 1;
const EXPECT_KEY_OR_OBJECT_END = 2;
const EXPECT_KEY = 3;
const EXPECT_COLON = 4;
const EXPECT_COMMA_OR_END = 5;
const DONE = 6;

const OBJECT = 0;
const ARRAY = 1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ESCAPE_OR_CONTROL = /[\\\u0000-\u001f]/;
const NUMBER_SYNTAX = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The largest value captured whole: V8 strings stop at 2^29 - 24 characters, and a capture becomes
 * one string before JSON.parse. A larger one fails with this limit named, not as "invalid UTF-8".
 */
export const MAX_CAPTURE_BYTES = 0x1fffffe8;

/** How far past an element's start the native read looks for its end (it widens with the elements). */
const MIN_SPECULATION_WINDOW = 256 * 1024;
const EMPTY_BUFFER: Buffer = Buffer.alloc(0);
const MISS = Symbol('not one JSON value');
const ADDRESS_OPENING = new TextEncoder().encode('{"address":"');

export interface JsonSelectorOptions {
  /** Tests lower it to reach the limit without a 512 MiB document. */
  maxCaptureBytes?: number;
  /**
   * Asked for a captured object element that opens with `{"address":"<plain text>"`: true skips it
   * unparsed (scanned past, as a skipped value is). Only an optimisation: the consumer must ignore
   * such an element when it is delivered anyway (a chunk boundary, another layout).
   */
  skipEntry?: (path: readonly PathSegment[], address: string) => boolean;
}

export function createJsonSelector(
  select: Select,
  onValue: OnValue,
  options: JsonSelectorOptions = {},
): JsonSelector {
  const maxCaptureBytes = options.maxCaptureBytes ?? MAX_CAPTURE_BYTES;
  const { skipEntry } = options;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const empty = new Uint8Array(0);

  let state = EXPECT_VALUE;
  let started = false;
  let consumed = 0; // bytes of earlier chunks, for error offsets
  let chunk: Uint8Array = empty;
  // The same bytes as a Buffer, for its native multi-byte indexOf.
  let chunkBytes: Buffer = EMPTY_BUFFER;
  let cachedOpening = new Uint8Array(0);
  let largestElement = 0;
  let speculationWindow = MIN_SPECULATION_WINDOW;
  let nativeReads = 0;
  let nativeMisses = 0;

  // Containers: all open ones, bottom `navDepth` of them are descended (tracked in `path`).
  const kinds: number[] = [];
  let navDepth = 0;
  const path: PathSegment[] = [];
  const indexes: number[] = [];

  // A skipped or captured value in progress starts at container depth `regionDepth` (-1: none).
  let regionDepth = -1;
  let capturing = false;
  let captureStart = 0;
  let captureParts: Uint8Array[] = [];
  let capturedBytes = 0; // of captureParts

  // Inside a skipped or captured container only its end matters (a capture is validated by
  // JSON.parse afterwards): a tight loop counts brackets and jumps over strings.
  let fast = false;
  let fastNesting = 0;
  let fastKinds = new Uint8Array(64);
  let fastString = false;

  // Token in progress.
  let inString = false;
  let stringIsNavKey = false;
  let stringIsKey = false;
  let stringStart = 0; // content start within the current chunk
  let trailingBackslashes = 0; // of the string content seen in earlier chunks
  let keyParts: Uint8Array[] = [];
  const keyCache = new Map<number, string>();
  let numberText: string | undefined;
  let literal: string | undefined;
  let literalIndex = 0;

  function tooLarge(): never {
    const where = path
      .map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`))
      .join('');
    throw new PlanFormatError(
      `plan value ${where.replace(/^\./, '')} is larger than ${maxCaptureBytes >= 1048576 ? `${Math.floor(maxCaptureBytes / 1048576)} MiB` : `${maxCaptureBytes} bytes`}, the most driftwatch reads as one value (one resource entry)`,
    );
  }

  function fail(message: string, position: number): never {
    throw new PlanFormatError(`plan is not JSON: ${message} at byte ${consumed + position}`);
  }

  function unexpected(position: number): never {
    const code = chunk[position]!;
    const shown =
      code >= 0x20 && code < 0x7f ? `'${String.fromCharCode(code)}'` : `byte 0x${code.toString(16)}`;
    fail(`unexpected ${shown}`, position);
  }

  function bytesFrom(parts: Uint8Array[], start: number, end: number): Uint8Array {
    if (parts.length === 0) return chunk.subarray(start, end);
    const tail = chunk.subarray(start, end);
    let length = tail.length;
    for (const part of parts) length += part.length;
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    bytes.set(tail, offset);
    return bytes;
  }

  function decode(bytes: Uint8Array, position: number): string {
    try {
      return decoder.decode(bytes);
    } catch {
      fail('invalid UTF-8', position);
    }
  }

  /** A value begins at `position` in a descended container (or at the root). */
  function beginValue(position: number, kind: JsonKind, known?: SelectDecision): void {
    if (regionDepth >= 0) return;
    const top = navDepth - 1;
    if (top >= 0 && kinds[top] === ARRAY) path[top] = indexes[top]!;
    const decision = known ?? select(path, kind);
    if (decision === 'descend' && kind !== 'scalar') return;
    regionDepth = kinds.length;
    // A scalar met while descending is delivered like a captured one.
    capturing = decision !== 'skip';
    if (capturing) {
      captureStart = position;
      if (captureParts.length > 0) captureParts = [];
      capturedBytes = 0;
    }
  }

  function openContainer(kind: number, position: number, known?: SelectDecision): void {
    beginValue(position, kind === ARRAY ? 'array' : 'object', known);
    const descended = regionDepth < 0;
    if (regionDepth === kinds.length) {
      fast = true;
      fastNesting = 0;
    }
    kinds.push(kind);
    if (descended) {
      navDepth++;
      path.push(kind === ARRAY ? 0 : '');
      indexes.push(0);
    }
    state = kind === ARRAY ? EXPECT_VALUE_OR_ARRAY_END : EXPECT_KEY_OR_OBJECT_END;
  }

  function closeContainer(kind: number, position: number): void {
    if (kinds.length === 0 || kinds[kinds.length - 1] !== kind) unexpected(position);
    if (kinds.length <= navDepth) {
      navDepth--;
      path.pop();
      indexes.pop();
    }
    kinds.pop();
    endValue(position + 1);
  }

  /** The value that ended just before `end` (exclusive) is complete. */
  function endValue(end: number): void {
    if (regionDepth >= 0 && kinds.length === regionDepth) {
      regionDepth = -1;
      if (capturing) deliverCapture(end);
    }
    if (kinds.length === 0) {
      state = DONE;
      return;
    }
    state = EXPECT_COMMA_OR_END;
    if (regionDepth < 0 && kinds[kinds.length - 1] === ARRAY) indexes[navDepth - 1]!++;
  }

  function deliverCapture(end: number): void {
    capturing = false;
    if (capturedBytes + end - captureStart > maxCaptureBytes) tooLarge();
    capturedBytes = 0;
    const text = decode(bytesFrom(captureParts, captureStart, end), end);
    if (captureParts.length > 0) captureParts = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // V8's position is within the value; the byte offset of the value's end locates it in the file.
      fail(`${jsonParseReason(error).replace(/ in JSON at position \d+$/, '')} in the value ending`, end);
    }
    onValue(path, value);
  }

  function finishKey(end: number): void {
    if (stringIsNavKey) {
      path[navDepth - 1] =
        keyParts.length === 0 ? (asciiKey(stringStart, end) ?? decodeKey(end)) : decodeKey(end);
    }
    state = EXPECT_COLON;
  }

  /**
   * Most keys are short ASCII names from a small vocabulary (attribute names): look them up by a
   * hash of their bytes instead of building a new string for each of millions of occurrences.
   */
  function asciiKey(start: number, end: number): string | undefined {
    const length = end - start;
    if (length > 64) return undefined;
    let hash = length;
    for (let index = start; index < end; index++) {
      const code = chunk[index]!;
      if (code >= 0x80 || code === BACKSLASH || code < 0x20) return undefined;
      hash = (Math.imul(hash, 31) + code) | 0;
    }
    const known = keyCache.get(hash);
    if (known !== undefined && known.length === length && sameBytes(known, start)) return known;
    let key = '';
    for (let index = start; index < end; index++) key += String.fromCharCode(chunk[index]!);
    if (keyCache.size < 10_000) keyCache.set(hash, key);
    return key;
  }

  function sameBytes(key: string, start: number): boolean {
    for (let index = 0; index < key.length; index++)
      if (key.charCodeAt(index) !== chunk[start + index]) return false;
    return true;
  }

  function decodeKey(end: number): string {
    const raw = decode(bytesFrom(keyParts, stringStart, end), end);
    keyParts = [];
    // Escapes and raw control characters go through JSON.parse, which also rejects the invalid ones.
    if (!ESCAPE_OR_CONTROL.test(raw)) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      fail('invalid key', end);
    }
  }

  /**
   * Finds the closing quote of the string whose content continues at `from`; -1 when the chunk ends
   * first. A quote preceded by an odd run of backslashes is escaped; the run may span chunks.
   */
  function findStringEnd(from: number): number {
    const segmentStart = from;
    let search = from;
    for (;;) {
      const quote = nextQuote(search);
      if (quote < 0) {
        let run = 0;
        let index = chunk.length - 1;
        while (index >= segmentStart && chunk[index] === BACKSLASH) {
          run++;
          index--;
        }
        trailingBackslashes = index < segmentStart ? trailingBackslashes + run : run;
        return -1;
      }
      let run = 0;
      let index = quote - 1;
      while (index >= segmentStart && chunk[index] === BACKSLASH) {
        run++;
        index--;
      }
      if (index < segmentStart) run += trailingBackslashes;
      if (run % 2 === 0) return quote;
      search = quote + 1;
    }
  }

  /** Most strings are short: a plain loop beats the call into indexOf until a string proves long. */
  function nextQuote(from: number): number {
    const shortEnd = Math.min(chunk.length, from + 32);
    for (let index = from; index < shortEnd; index++) if (chunk[index] === QUOTE) return index;
    return shortEnd === chunk.length ? -1 : chunk.indexOf(QUOTE, shortEnd);
  }

  /** Continues the current string at `from`; returns the position after it, or -1 if still open. */
  function scanString(from: number): number {
    const quote = findStringEnd(from);
    if (quote < 0) return -1;
    inString = false;
    trailingBackslashes = 0;
    if (stringIsKey) finishKey(quote);
    else endValue(quote + 1);
    return quote + 1;
  }

  function startString(position: number, isKey: boolean): number {
    inString = true;
    stringIsKey = isKey;
    stringIsNavKey = isKey && regionDepth < 0;
    stringStart = position + 1;
    trailingBackslashes = 0;
    // Millions of strings start here: a new (empty) array each time is garbage to collect.
    if (keyParts.length > 0) keyParts = [];
    if (!isKey) beginValue(position, 'scalar');
    return scanString(position + 1);
  }

  function finishNumber(end: number): void {
    const text = numberText!;
    numberText = undefined;
    if (!NUMBER_SYNTAX.test(text)) fail(`invalid number ${JSON.stringify(text.slice(0, 40))}`, end);
    endValue(end);
  }

  function startScalar(code: number, position: number): void {
    if (code === 0x74 /* t */) literal = 'true';
    else if (code === 0x66 /* f */) literal = 'false';
    else if (code === 0x6e /* n */) literal = 'null';
    else if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) {
      beginValue(position, 'scalar');
      numberText = String.fromCharCode(code);
      return;
    } else unexpected(position);
    beginValue(position, 'scalar');
    literalIndex = 1;
  }

  /** Scans a region container from `from`; returns the position after it, or the chunk length. */
  function scanFast(from: number): number {
    const input = chunk;
    const length = input.length;
    let position = from;
    while (position < length) {
      const code = input[position]!;
      if (code === QUOTE) {
        trailingBackslashes = 0;
        const quote = findStringEnd(position + 1);
        if (quote < 0) {
          inString = true;
          fastString = true;
          stringIsNavKey = false;
          return length;
        }
        position = quote + 1;
        continue;
      }
      if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
        if (fastNesting === fastKinds.length) {
          const grown = new Uint8Array(fastKinds.length * 2);
          grown.set(fastKinds);
          fastKinds = grown;
        }
        fastKinds[fastNesting++] = code === 0x7b ? OBJECT : ARRAY;
      } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
        const kind = code === 0x7d ? OBJECT : ARRAY;
        if (fastNesting === 0) {
          fast = false;
          closeContainer(kind, position);
          return position + 1;
        }
        if (fastKinds[--fastNesting] !== kind) unexpected(position);
      }
      position++;
    }
    return length;
  }

  function write(data: Uint8Array): void {
    // A plain view: subarrays of a Node Buffer are Buffers, and those are slow to create.
    const input =
      data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    chunk = input;
    chunkBytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    const length = input.length;
    let position = 0;
    if (inString && fastString) {
      const quote = findStringEnd(0);
      if (quote < 0) {
        saveChunkTail(length);
        return;
      }
      inString = false;
      fastString = false;
      trailingBackslashes = 0;
      position = quote + 1;
    } else if (inString) {
      stringStart = 0;
      position = scanString(0);
      if (position < 0) {
        saveChunkTail(length);
        return;
      }
    }
    while (position < length) {
      if (fast) {
        position = scanFast(position);
        continue;
      }
      const code = input[position]!;
      if (numberText !== undefined) {
        if (isNumberByte(code)) {
          numberText += String.fromCharCode(code);
          position++;
          continue;
        }
        finishNumber(position);
        continue;
      }
      if (literal !== undefined) {
        if (code !== literal.charCodeAt(literalIndex)) unexpected(position);
        position++;
        if (++literalIndex === literal.length) {
          literal = undefined;
          endValue(position);
        }
        continue;
      }
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
        position++;
        continue;
      }
      started = true;
      switch (state) {
        case EXPECT_VALUE_OR_ARRAY_END:
          if (code === 0x5d /* ] */) {
            closeContainer(ARRAY, position);
            position++;
            continue;
          }
          position = startValue(code, position);
          break;
        case EXPECT_VALUE:
          position = startValue(code, position);
          break;
        case EXPECT_KEY_OR_OBJECT_END:
          if (code === 0x7d /* } */) {
            closeContainer(OBJECT, position);
            position++;
            continue;
          }
          if (code !== QUOTE) unexpected(position);
          position = startString(position, true);
          break;
        case EXPECT_KEY:
          if (code !== QUOTE) unexpected(position);
          position = startString(position, true);
          break;
        case EXPECT_COLON:
          if (code !== 0x3a /* : */) unexpected(position);
          state = EXPECT_VALUE;
          position++;
          break;
        case EXPECT_COMMA_OR_END:
          if (code === 0x2c /* , */) {
            state = kinds[kinds.length - 1] === ARRAY ? EXPECT_VALUE : EXPECT_KEY;
            position++;
          } else if (code === 0x7d /* } */) {
            closeContainer(OBJECT, position);
            position++;
          } else if (code === 0x5d /* ] */) {
            closeContainer(ARRAY, position);
            position++;
          } else unexpected(position);
          break;
        default:
          fail('unexpected data after the end of the document', position);
      }
      // A string runs past this chunk: the rest of the chunk is its content.
      if (position < 0) break;
    }
    saveChunkTail(length);
  }

  /** Returns the position after the token start, or -1 when a string runs past the chunk. */
  function startValue(code: number, position: number): number {
    if (code === 0x7b /* { */) {
      if (regionDepth < 0 && navDepth === kinds.length && kinds[navDepth - 1] === ARRAY) {
        const top = navDepth - 1;
        path[top] = indexes[top]!;
        const decision = select(path, 'object');
        if (decision === 'capture') {
          if (skipEntry !== undefined && isSkippedEntry(position)) {
            openContainer(OBJECT, position, 'skip');
            return position + 1;
          }
          const end = captureElementNatively(position);
          if (end >= 0) return end;
        }
        openContainer(OBJECT, position, decision);
        return position + 1;
      }
      openContainer(OBJECT, position);
      return position + 1;
    }
    if (code === 0x5b /* [ */) {
      openContainer(ARRAY, position);
      return position + 1;
    }
    if (code === QUOTE) return startString(position, false);
    startScalar(code, position);
    return position + 1;
  }

  /**
   * The object element of a descended array starting at `position`, read with one native search and
   * one JSON.parse instead of byte by byte: `terraform show -json` writes no whitespace, and the
   * entries of an array start with the same key, so `},{"address":` (this element's own opening
   * after `},`) ends it unless the same bytes open a nested object inside it. JSON.parse is the proof:
   * a slice that is not exactly one JSON value fails, and the element is then read the slow way (which
   * also reports malformed JSON as the slow way does). Returns the position after the element, or -1.
   */
  function captureElementNatively(position: number): number {
    // A document where the guess keeps failing (entries nesting objects that open like them, arrays
    // of one element) is read byte by byte from then on instead of paying for both ways.
    if (nativeMisses > 64 && nativeMisses > 2 * nativeReads) return -1;
    const opening = elementOpening(position);
    if (opening === undefined) return -1;
    const limit = Math.min(chunk.length, position + speculationWindow, position + maxCaptureBytes);
    const found = chunkBytes.subarray(position + opening.length, limit).indexOf(opening);
    const end = position + opening.length + found; // at the `,`, after the element's `}`
    const value = found >= 0 && chunk[end - 1] === 0x7d /* } */ ? parseOrMiss(position, end) : MISS;
    if (value === MISS) {
      nativeMisses++;
      return -1;
    }
    nativeReads++;
    // Elements grow in the window's terms: a plan of large entries widens it, a last element never
    // finds its successor (the search runs to the limit), so the window stays a few elements wide.
    if (end - position > largestElement) {
      largestElement = end - position;
      speculationWindow = Math.max(MIN_SPECULATION_WINDOW, 4 * largestElement);
    }
    onValue(path, value);
    state = EXPECT_COMMA_OR_END;
    indexes[navDepth - 1]!++;
    return end;
  }

  /** Whether the element at `position` opens with an address (in this chunk) that skipEntry skips. */
  function isSkippedEntry(position: number): boolean {
    const start = position + ADDRESS_OPENING.length;
    if (start >= chunk.length) return false;
    for (let index = 0; index < ADDRESS_OPENING.length; index++)
      if (chunk[position + index] !== ADDRESS_OPENING[index]) return false;
    const end = Math.min(chunk.length, start + 1024);
    let quote = start;
    while (quote < end && chunk[quote] !== QUOTE) {
      if (chunk[quote] === BACKSLASH || chunk[quote]! < 0x20) return false;
      quote++;
    }
    if (quote === end) return false;
    return skipEntry!(path, decode(chunk.subarray(start, quote), quote));
  }

  function parseOrMiss(start: number, end: number): unknown {
    try {
      return JSON.parse(decoder.decode(chunk.subarray(start, end)));
    } catch {
      return MISS;
    }
  }

  /** `,{"key":` for an element opening with `{"key":` (a short plain key), else undefined. */
  function elementOpening(position: number): Uint8Array | undefined {
    if (chunk[position + 1] !== QUOTE) return undefined;
    const keyEnd = Math.min(chunk.length, position + 66);
    let index = position + 2;
    while (index < keyEnd && chunk[index] !== QUOTE && chunk[index] !== BACKSLASH) index++;
    if (index >= keyEnd || chunk[index] !== QUOTE || chunk[index + 1] !== 0x3a /* : */) return undefined;
    const length = index + 2 - position + 1;
    if (
      cachedOpening.length === length &&
      chunk[position + 2] === cachedOpening[3] &&
      sameOpening(position, length)
    )
      return cachedOpening;
    const opening = new Uint8Array(length);
    opening[0] = 0x2c; /* , */
    opening.set(chunk.subarray(position, index + 2), 1);
    cachedOpening = opening;
    return opening;
  }

  function sameOpening(position: number, length: number): boolean {
    for (let index = 1; index < length; index++)
      if (cachedOpening[index] !== chunk[position + index - 1]) return false;
    return true;
  }

  /** Chunks are not ours to keep: copy the parts a capture or key still needs. */
  function saveChunkTail(length: number): void {
    if (capturing && regionDepth >= 0) {
      // Checked as parts accumulate, so an oversized value fails before it fills the memory.
      capturedBytes += length - captureStart;
      if (capturedBytes > maxCaptureBytes) tooLarge();
      captureParts.push(chunk.slice(captureStart, length));
      captureStart = 0;
    }
    if (inString && stringIsNavKey) {
      keyParts.push(chunk.slice(stringStart, length));
      stringStart = 0;
    }
    consumed += length;
    chunk = empty;
    chunkBytes = EMPTY_BUFFER;
  }

  function end(): void {
    chunk = empty;
    if (numberText !== undefined) finishNumber(0);
    if (!started) throw new PlanFormatError('plan is empty');
    if (state !== DONE || inString || literal !== undefined) {
      fail('unexpected end of input (truncated?)', 0);
    }
  }

  return { write, end };
}

function isNumberByte(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2e ||
    code === 0x2d ||
    code === 0x2b ||
    code === 0x65 ||
    code === 0x45
  );
}
