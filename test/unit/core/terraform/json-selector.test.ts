import { describe, expect, it } from 'vitest';
import { walkSelected } from '../../../../functions/core/terraform/compact.js';
import {
  createJsonSelector,
  type PathSegment,
  PlanFormatError,
  type SelectDecision,
} from '../../../../functions/core/terraform/index.js';

type Captured = Array<[PathSegment[], unknown]>;

/** Descends the root and `nav*` members, captures `cap*` members and array elements under `items`. */
function select(path: readonly PathSegment[]): SelectDecision {
  if (path.length === 0) return 'descend';
  const last = path[path.length - 1];
  if (typeof last === 'string' && last.startsWith('nav')) return 'descend';
  if (typeof last === 'string' && last.startsWith('cap')) return 'capture';
  if (path[path.length - 2] === 'items') return 'capture';
  if (last === 'items') return 'descend';
  return 'skip';
}

function viaSelector(chunks: Uint8Array[]): Captured {
  const captured: Captured = [];
  const reader = createJsonSelector(select, (path, value) => captured.push([[...path], value]));
  for (const chunk of chunks) reader.write(chunk);
  reader.end();
  return captured;
}

function viaParse(text: string): Captured {
  const captured: Captured = [];
  walkSelected(JSON.parse(text), select, (path, value) => captured.push([[...path], value]));
  return captured;
}

const DOCUMENT = JSON.stringify({
  skipped: { deep: [1, 2, { x: 'a "quoted" \\ string}{][' }], s: '\\"' },
  'cap\u00e9': 'caf\u00e9 \ud83d\ude00 😀 \\ " / \b\f\n\r\t \u0001',
  cap_number: -12.5e10,
  cap_zero: 0,
  cap_literals: [true, false, null],
  'nav\\"key\u00e9': {
    cap_inner: { s: 'ends with backslash \\', t: '\\\\' },
    items: [{ a: 1 }, 'two', 3.25, null, [4, [5]], { b: '\\"}' }],
    skip_me: '"]}',
    'cap"quoted"': 'x',
  },
  cap_empty: {},
  nav_scalar: 7,
  'cap_emoji_key_😀': 'é',
  tail: [[], {}, ''],
});
const BYTES = new TextEncoder().encode(DOCUMENT);

describe('createJsonSelector', () => {
  const expected = viaParse(DOCUMENT);

  it('captures the same values as walking the parsed document', () => {
    expect(viaSelector([BYTES])).toEqual(expected);
    expect(expected.map(([path]) => path.join('/'))).toContain('nav\\"key\u00e9/items/4');
  });

  it('gives the same result with a chunk boundary at every byte position', () => {
    for (let split = 1; split < BYTES.length; split++) {
      const result = viaSelector([BYTES.subarray(0, split), BYTES.subarray(split)]);
      if (JSON.stringify(result) !== JSON.stringify(expected)) {
        throw new Error(
          `split at byte ${split} (${JSON.stringify(DOCUMENT.slice(Math.max(0, split - 5), split + 5))}) differs`,
        );
      }
    }
  });

  it('gives the same result fed one byte at a time and in three uneven chunks', () => {
    expect(viaSelector(Array.from(BYTES, (byte) => Uint8Array.of(byte)))).toEqual(expected);
    for (let first = 1; first < BYTES.length; first += 7) {
      const second = Math.min(BYTES.length, first + 3);
      expect(
        viaSelector([BYTES.subarray(0, first), BYTES.subarray(first, second), BYTES.subarray(second)]),
      ).toEqual(expected);
    }
  });

  it('handles runs of backslashes before a quote across chunk boundaries', () => {
    for (let run = 0; run <= 6; run++) {
      const value = `${'\\'.repeat(run)}"x`;
      const text = JSON.stringify({ cap: value, skip: value, nav: { cap: value } });
      const bytes = new TextEncoder().encode(text);
      for (let split = 1; split < bytes.length; split++) {
        expect(viaSelector([bytes.subarray(0, split), bytes.subarray(split)])).toEqual(viaParse(text));
      }
    }
  });

  it('does not keep references to the caller’s chunks', () => {
    const captured: Captured = [];
    const reader = createJsonSelector(select, (path, value) => captured.push([[...path], value]));
    const buffer = new Uint8Array(BYTES.length);
    for (let offset = 0; offset < BYTES.length; offset += 16) {
      const length = Math.min(16, BYTES.length - offset);
      buffer.set(BYTES.subarray(offset, offset + length));
      reader.write(buffer.subarray(0, length));
      buffer.fill(0x78); // the caller reuses its buffer
    }
    reader.end();
    expect(captured).toEqual(expected);
  });

  it('delivers a scalar met while descending, and a scalar root', () => {
    expect(viaSelector([new TextEncoder().encode('{"nav": 5}')])).toEqual([[['nav'], 5]]);
    expect(viaSelector([new TextEncoder().encode(' 42 ')])).toEqual([[[], 42]]);
    expect(viaSelector([new TextEncoder().encode('-0.5'), new TextEncoder().encode('e3')])).toEqual([
      [[], -500],
    ]);
  });

  it('throws "plan is empty" for no input or whitespace only', () => {
    expect(() => viaSelector([])).toThrow(new PlanFormatError('plan is empty'));
    expect(() => viaSelector([new TextEncoder().encode(' \n\t')])).toThrow(
      new PlanFormatError('plan is empty'),
    );
  });

  it('throws PlanFormatError for every truncation of the document', () => {
    for (let length = 1; length < BYTES.length; length++) {
      expect(() => viaSelector([BYTES.subarray(0, length)]), `truncated at ${length}`).toThrow(
        PlanFormatError,
      );
    }
  });

  it.each([
    ['{"a":1,}', /unexpected '}' at byte 7/],
    ['{"a" 1}', /unexpected '1'/],
    ['{"a":tru}', /unexpected '}'/],
    ['{"a":01}', /invalid number/],
    ['{"a":-}', /invalid number/],
    ['{"nav":{"a":1,}}', /unexpected '}'/],
    ['{"cap":[1,]}', /plan is not JSON/],
    ['{"a":[1}', /unexpected '}'/],
    ['{"a":1}}', /unexpected data after the end/],
    ['{"a":1} x', /unexpected data after the end/],
    ['{a:1}', /unexpected 'a'/],
    ['{"nav":{"cap":[1,2}}', /unexpected '}'/],
    ['{"skipped":{"x":[1,2}}', /unexpected '}'/],
    ['{"cap":"\\x"}', /plan is not JSON/],
    ['{"cap":"\u0001"}', /plan is not JSON/],
    ['{"a":1', /unexpected end of input/],
    ['{"a":"abc', /unexpected end of input/],
    ['{"nav":{"a\u0001b":1}}', /invalid key/],
    ['{"nav":{"a\\qb":1}}', /invalid key/],
  ])('rejects %s', (text, reason) => {
    expect(() => viaSelector([new TextEncoder().encode(text)])).toThrow(reason);
    expect(() => viaSelector([new TextEncoder().encode(text)])).toThrow(PlanFormatError);
  });

  it('decodes thousands of distinct and colliding keys correctly (the key cache verifies bytes)', () => {
    const members: Array<[string, unknown]> = Array.from({ length: 3000 }, (_, index) => [
      `k${index.toString(36)}`,
      index,
    ]);
    // "Aa" and "BB" have the same 31-based hash: both must come back as themselves.
    members.push(['navAa', { capAa: 1 }], ['navBB', { capBB: 2 }]);
    const text = JSON.stringify({ nav: Object.fromEntries(members), cap_end: true });
    const captured: Captured = [];
    const all = (path: readonly PathSegment[]): SelectDecision => {
      if (path.length <= 1) return 'descend';
      return path.length === 2 && String(path[1]).startsWith('nav') ? 'descend' : 'capture';
    };
    const reader = createJsonSelector(all, (path, value) => captured.push([[...path], value]));
    reader.write(new TextEncoder().encode(text));
    reader.end();
    expect(captured.filter(([path]) => path[0] === 'nav').length).toBe(3002);
    expect(captured).toContainEqual([['nav', 'navAa', 'capAa'], 1]);
    expect(captured).toContainEqual([['nav', 'navBB', 'capBB'], 2]);
    expect(captured).toContainEqual([['nav', 'kz'], 35]);
  });

  it('rejects invalid UTF-8 in captured values', () => {
    const bytes = Uint8Array.of(
      ...new TextEncoder().encode('{"cap":"'),
      0xc3,
      0x28,
      ...new TextEncoder().encode('"}'),
    );
    expect(() => viaSelector([bytes])).toThrow(/invalid UTF-8/);
  });
});

/**
 * Array elements that are captured are read natively when the next `,{"<first key>":` in the chunk
 * ends them (compact output, as Terraform writes it). Every way that guess can be wrong must give what
 * the byte-by-byte reader gives: fed one byte at a time no chunk ever holds the next element, so that
 * is the reference.
 */
describe('createJsonSelector, native reading of captured array elements', () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const outcome = (chunks: Uint8Array[]) => {
    try {
      return { captured: viaSelector(chunks) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const byteByByte = (text: string) => outcome(Array.from(encode(text), (byte) => Uint8Array.of(byte)));
  const entry = (address: string, extra: Record<string, unknown> = {}) => ({
    address,
    mode: 'managed',
    ...extra,
  });
  const documents: Array<[string, string]> = [
    [
      'entries that end where the next one starts',
      JSON.stringify({ items: [entry('a'), entry('b'), entry('c')] }),
    ],
    [
      'a nested object opening with the same key (the first `,{"address":` is inside the element)',
      JSON.stringify({
        items: [
          entry('a', { values: { list: [{ address: '10.0.0.1' }, { address: '10.0.0.2' }] } }),
          entry('b', { values: [[{ address: 'x' }, { address: 'y' }]] }),
          entry('c'),
        ],
      }),
    ],
    [
      'the separator inside strings',
      JSON.stringify({
        items: [entry('a },{"address":"b'), entry('},{"address":'), entry('"},{\\"address\\":"')],
      }),
    ],
    [
      'another array of the same shape after the last element',
      JSON.stringify({
        items: [entry('a')],
        nav: { items: [entry('b'), entry('c')] },
        cap_tail: [entry('d')],
      }),
    ],
    [
      'elements that are not objects between objects',
      JSON.stringify({ items: [entry('a'), 'two', entry('b'), [entry('c')], entry('d')] }),
    ],
    [
      'elements opening with different keys',
      JSON.stringify({ items: [{ b: 1 }, { a: 2 }, { b: 3 }, { a: 4 }] }),
    ],
    ['an empty element and an escaped first key', '{"items":[{},{"a\\"b":1},{"a\\"b":2},{}]}'],
    [
      'pretty-printed (no native guess applies)',
      JSON.stringify({ items: [entry('a'), entry('b')] }, null, 2),
    ],
    [
      'an element larger than the look-ahead window',
      JSON.stringify({ items: [entry('a', { big: 'x'.repeat(300_000) }), entry('b'), entry('c')] }),
    ],
    ['a malformed element between good ones', '{"items":[{"address":"a"},{"address":"b",},{"address":"c"}]}'],
    ['a bad escape in an element', '{"items":[{"address":"a"},{"address":"b\\q"},{"address":"c"}]}'],
    [
      'a raw control character in an element',
      '{"items":[{"address":"a"},{"address":"b\u0001"},{"address":"c"}]}',
    ],
    ['an unclosed element before the next', '{"items":[{"address":"a","v":[1},{"address":"c"}]}'],
    ['a truncated array', '{"items":[{"address":"a"},{"address":"b"}'],
    [
      'hundreds of entries that each nest an object opening like them (the guess is given up), then plain ones',
      JSON.stringify({
        items: [
          ...Array.from({ length: 300 }, (_, index) =>
            entry(`n${index}`, { v: [{ address: `10.0.${index}.1` }, { address: `10.0.${index}.2` }] }),
          ),
          ...Array.from({ length: 50 }, (_, index) => entry(`p${index}`)),
        ],
      }),
    ],
  ];

  it.each(documents)('%s: the same values or the same error as byte by byte', (_, text) => {
    const expected = byteByByte(text);
    expect(outcome([encode(text)])).toEqual(expected);
    if (expected.captured) expect(expected.captured).toEqual(viaParse(text));
  });

  it('reads across chunk boundaries at every position the same way', () => {
    const text = documents[1]![1];
    const bytes = encode(text);
    const expected = viaParse(text);
    for (let split = 1; split < bytes.length; split++) {
      expect(viaSelector([bytes.subarray(0, split), bytes.subarray(split)]), `split at ${split}`).toEqual(
        expected,
      );
    }
  });

  it('names the limit when a natively read element would exceed it, as byte by byte does', () => {
    const text = JSON.stringify({ items: [entry('a', { big: 'x'.repeat(200) }), entry('b')] });
    const run = (chunks: Uint8Array[]) => {
      const reader = createJsonSelector(select, () => undefined, { maxCaptureBytes: 100 });
      for (const chunk of chunks) reader.write(chunk);
      reader.end();
    };
    expect(() => run([encode(text)])).toThrow(/larger than 100 bytes/);
    expect(() => run(Array.from(encode(text), (byte) => Uint8Array.of(byte)))).toThrow(
      /larger than 100 bytes/,
    );
  });
});
