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
