import { BIDI_SOURCE, CONTROL_SOURCE, UNENCODABLE_SOURCE } from './sanitize.js';

/**
 * Text a person types once and every reader is shown later (a suppression's reason and author):
 * characters that no output shows as typed are refused where they were typed, so that what is
 * stored is what every table, digest and report shows, and the person can fix it at once.
 */
const CHECKS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /\r\n|[\n\r\u0085\u2028\u2029]/y, what: 'a line break' },
  { pattern: new RegExp(BIDI_SOURCE, 'y'), what: 'a bidi control' },
  // The controls outputs replace, and tab (a table cell or a digest line would not keep it).
  { pattern: new RegExp(`\\t|${CONTROL_SOURCE}`, 'y'), what: 'a control character' },
  { pattern: new RegExp(UNENCODABLE_SOURCE, 'y'), what: 'a character no output can encode' },
];

export interface UnsafeCharacter {
  /** 1-based, counted in characters (code points) of the text as given. */
  position: number;
  /** `U+001B` */
  codePoint: string;
  /** `a control character`, `a bidi control`, `a line break`, … */
  what: string;
}

/**
 * The first character of `text` (after the whitespace trimming drops at its ends) that is a line
 * break, a control character (tab included), a bidi control, a lone surrogate or U+FFFE/U+FFFF;
 * undefined when there is none.
 */
export function firstUnsafeCharacter(text: string): UnsafeCharacter | undefined {
  const start = text.length - text.trimStart().length;
  const end = text.trimEnd().length;
  let position = [...text.slice(0, start)].length;
  for (let index = start; index < end; ) {
    position++;
    const found = CHECKS.find((check) => {
      check.pattern.lastIndex = index;
      return check.pattern.test(text);
    });
    const code = text.codePointAt(index)!;
    if (found)
      return {
        position,
        codePoint: `U+${code.toString(16).toUpperCase().padStart(4, '0')}`,
        what: found.what,
      };
    index += code > 0xffff ? 2 : 1;
  }
  return undefined;
}
