/**
 * Characters that copying from a web page, a chat message or a word processor puts where the
 * registry needs plain ASCII: a no-break space for an indent or the space after `key:`, curly quotes
 * around a value, an en dash for a list's `-`. They look right and are not: YAML reads them as text,
 * so the parser's own message ("Implicit keys need to be on a single line", "not a valid id") points
 * everywhere but at them. A problem names the character and where it is; the value itself is never
 * repeated (problems never quote what they read).
 */
const SPACE = 'a space';
const NOTHING = 'nothing at all';

const LOOKS_LIKE: Record<string, [name: string, looksLike: string]> = {
  '\u00a0': ['a no-break space', SPACE],
  '\u2002': ['an en space', SPACE],
  '\u2003': ['an em space', SPACE],
  '\u2009': ['a thin space', SPACE],
  '\u202f': ['a narrow no-break space', SPACE],
  '\u3000': ['an ideographic space', SPACE],
  '\u200b': ['a zero-width space', NOTHING],
  '\u200c': ['a zero-width non-joiner', NOTHING],
  '\u200d': ['a zero-width joiner', NOTHING],
  '\u2060': ['a word joiner', NOTHING],
  '\ufeff': ['a byte order mark', NOTHING],
  '\u2018': ['a curly quote', "'"],
  '\u2019': ['a curly quote', "'"],
  '\u201c': ['a curly quote', '"'],
  '\u201d': ['a curly quote', '"'],
  '\u2013': ['an en dash', '-'],
  '\u2014': ['an em dash', '-'],
  '\u2212': ['a minus sign', '-'],
};

const ANY = new RegExp(`[${Object.keys(LOOKS_LIKE).join('')}]`);

/** The first look-alike in `text`: its 0-based index and how to say what it is. */
export function firstLookAlike(text: string): { index: number; description: string } | undefined {
  const match = ANY.exec(text);
  if (!match) return undefined;
  const char = match[0];
  const [name, looksLike] = LOOKS_LIKE[char]!;
  const what =
    looksLike === NOTHING ? 'is invisible' : `looks like ${looksLike === SPACE ? SPACE : `'${looksLike}'`}`;
  const code = `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return {
    index: match.index,
    description: `${name} (${code}), which ${what} (text copied from a web page or chat holds them)`,
  };
}
