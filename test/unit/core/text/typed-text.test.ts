import { describe, expect, it } from 'vitest';
import { firstUnsafeCharacter } from '../../../../functions/core/text/typed-text.js';

describe('firstUnsafeCharacter', () => {
  it('passes plain text in any script, and whitespace that trimming drops at the ends', () => {
    for (const text of ['bucket migration', 'Zoë, 移行中 🚧 until Q1', '  padded  ', 'typed\n', '\tx'])
      expect(firstUnsafeCharacter(text), JSON.stringify(text)).toBeUndefined();
  });

  it('names the first line break, control, bidi control or unencodable character and its position', () => {
    const cases: Array<[string, number, string, string]> = [
      ['one\ntwo', 4, 'U+000A', 'a line break'],
      ['one\r\ntwo', 4, 'U+000D', 'a line break'],
      ['a\u2028b', 2, 'U+2028', 'a line break'],
      ['a\u0085b', 2, 'U+0085', 'a line break'],
      ['red \u001b[31m', 5, 'U+001B', 'a control character'],
      ['tab\there', 4, 'U+0009', 'a control character'],
      ['del\u007f', 4, 'U+007F', 'a control character'],
      ['c1\u009b', 3, 'U+009B', 'a control character'],
      ['alice\u202eecila', 6, 'U+202E', 'a bidi control'],
      ['x\u2066y', 2, 'U+2066', 'a bidi control'],
      ['lone \ud800', 6, 'U+D800', 'a character no output can encode'],
      ['non\uffff', 4, 'U+FFFF', 'a character no output can encode'],
      // Positions count characters as seen: the emoji (two UTF-16 units) is one, as are leading spaces.
      ['  🚧\u202e', 4, 'U+202E', 'a bidi control'],
    ];
    for (const [text, position, codePoint, what] of cases)
      expect(firstUnsafeCharacter(text), JSON.stringify(text)).toEqual({ position, codePoint, what });
  });
});
