import type { JsonValue } from '../findings/model.js';

/**
 * JSON values (as plans carry them) rendered as HCL native syntax, laid out exactly as `terraform fmt`
 * lays it out, so a snippet can be pasted into a configuration and pass `terraform fmt -check`.
 *
 * Every string is an HCL template: `${` and `%{` would start an interpolation or a directive, so they
 * are doubled (`$${`, `%%{`). Control characters, bidi controls and invisible format characters are
 * written as `\uNNNN` escapes: the value Terraform reads is unchanged, and nothing in the snippet can
 * move a terminal's cursor or reorder what a reviewer sees (Trojan Source).
 */

/** HCL keywords that read as values, not names, where an object key is expected bare. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'for',
  'in',
  'if',
  'endif',
  'endfor',
]);

/** An ASCII HCL identifier (letters, digits, `_`, `-`; not starting with a digit or `-`). */
export function isHclIdentifier(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(text);
}

/**
 * Characters written as `\u` escapes inside HCL strings: C0 and C1 controls and DEL (tab, line feed
 * and carriage return get their short escapes first), bidi embeddings/overrides/isolates and marks,
 * zero-width and other invisible format characters, the Unicode line and paragraph separators, and
 * lone surrogates.
 */
const ESCAPED_CHARACTERS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose.
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCharacter(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) return short;
  const code = char.charCodeAt(0);
  // A lone surrogate is not a character Terraform can hold: it would be read as U+FFFD anyway.
  if (code >= 0xd800 && code <= 0xdfff) return '\\ufffd';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The body of an HCL quoted string (without the quotes). */
export function escapeHclText(text: string): string {
  return (
    text
      .replace(/\\/g, '\\\\')
      .replace(/"/g, '\\"')
      .replace(ESCAPED_CHARACTERS, escapeCharacter)
      // A function, not a replacement string: in one, `$$` would itself mean a single `$`.
      .replace(/\$\{/g, () => '$${')
      .replace(/%\{/g, '%%{')
  );
}

/** An HCL quoted string literal. */
export function hclString(text: string): string {
  return `"${escapeHclText(text)}"`;
}

/** An object key: bare when it is an identifier that cannot be read as a keyword, else quoted. */
export function hclKey(key: string): string {
  return isHclIdentifier(key) && !VALUE_KEYWORDS.has(key) ? key : hclString(key);
}

/** A number as an HCL numeric literal (`-1`, `1.5`, `1e+21`). */
export function hclNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError('JSON numbers are finite');
  return Object.is(value, -0) ? '0' : String(value);
}

/** A scalar, or an empty list/object: values that always fit on one line. */
function inlineScalar(value: JsonValue): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return hclNumber(value);
  if (typeof value === 'string') return hclString(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
  return Object.keys(value).length === 0 ? '{}' : undefined;
}

/**
 * A value on one line, for prose and comments (`["a", "b"]`, `{ Owner = "x" }`): the same escaping,
 * not necessarily the layout `terraform fmt` gives a multi-line value.
 */
export function hclInline(value: JsonValue): string {
  const scalar = inlineScalar(value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) return `[${value.map(hclInline).join(', ')}]`;
  const entries = Object.entries(value as Record<string, JsonValue>).map(
    ([key, member]) => `${hclKey(key)} = ${hclInline(member)}`,
  );
  return `{ ${entries.join(', ')} }`;
}

/**
 * One line of a snippet before layout. An `assign` line is `lead = rhs` where the value is complete
 * on that line: `terraform fmt` aligns the `=` of consecutive such lines, and any other line (a
 * comment, a block header, a value that opens a bracket, a closing bracket, a blank) ends the run.
 */
export type HclLine =
  | { kind: 'assign'; depth: number; lead: string; rhs: string }
  | { kind: 'text'; depth: number; text: string }
  | { kind: 'blank' };

/** `name = value` as lines: one assign line, or an opening line, the members, and a closing line. */
export function attributeLines(depth: number, lead: string, value: JsonValue, suffix = ''): HclLine[] {
  const single = singleLineValue(value);
  if (single !== undefined) return [{ kind: 'assign', depth, lead, rhs: `${single}${suffix}` }];
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return [
    { kind: 'text', depth, text: `${lead} = ${open}` },
    ...memberLines(depth + 1, value),
    { kind: 'text', depth, text: `${close}${suffix}` },
  ];
}

/** The lines inside a multi-line list or object value. */
export function memberLines(depth: number, value: JsonValue): HclLine[] {
  const lines: HclLine[] = [];
  if (Array.isArray(value)) {
    for (const element of value) lines.push(...elementLines(depth, element));
    return lines;
  }
  for (const [key, member] of Object.entries(value as Record<string, JsonValue>))
    lines.push(...attributeLines(depth, hclKey(key), member));
  return lines;
}

/** One element of a multi-line list, with its trailing comma. */
function elementLines(depth: number, element: JsonValue): HclLine[] {
  const single = singleLineValue(element);
  if (single !== undefined) return [{ kind: 'text', depth, text: `${single},` }];
  const [open, close] = Array.isArray(element) ? ['[', ']'] : ['{', '}'];
  return [
    { kind: 'text', depth, text: open },
    ...memberLines(depth + 1, element),
    { kind: 'text', depth, text: `${close},` },
  ];
}

/**
 * Scalars, empty collections and lists of scalars stay on one line; objects with members, and lists
 * holding collections, take one line per member (the layout a reviewer can read and edit).
 */
function singleLineValue(value: JsonValue): string | undefined {
  const scalar = inlineScalar(value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value) && value.every((element) => inlineScalar(element) !== undefined))
    return `[${value.map((element) => inlineScalar(element)!).join(', ')}]`;
  return undefined;
}

/** A `#` comment line; the text is made single-line and inert first. */
export function commentLine(depth: number, text: string): HclLine {
  return { kind: 'text', depth, text: `# ${inertText(text)}` };
}

/**
 * Text from data (paths, addresses, keys) for a comment or a prose line: every character that
 * {@link escapeHclText} escapes is written as a visible `\uNNNN`, so it cannot end the comment
 * line, move the cursor or reorder the text.
 */
export function inertText(text: string): string {
  return text.replace(ESCAPED_CHARACTERS, escapeCharacter);
}

/**
 * Lines as `terraform fmt` writes them: two spaces per level, and the `=` of each run of
 * consecutive assign lines aligned one space after the longest lead of the run.
 */
export function layoutHcl(lines: readonly HclLine[]): string {
  const out: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.kind !== 'assign') {
      out.push(line.kind === 'blank' ? '' : `${'  '.repeat(line.depth)}${line.text}`);
      index++;
      continue;
    }
    let end = index;
    let width = 0;
    while (end < lines.length && lines[end]!.kind === 'assign') {
      const member = lines[end] as Extract<HclLine, { kind: 'assign' }>;
      width = Math.max(width, member.depth * 2 + columns(member.lead));
      end++;
    }
    for (let k = index; k < end; k++) {
      const member = lines[k] as Extract<HclLine, { kind: 'assign' }>;
      const lead = `${'  '.repeat(member.depth)}${member.lead}`;
      out.push(`${lead}${' '.repeat(width - columns(lead) + 1)}= ${member.rhs}`);
    }
    index = end;
  }
  return `${out.join('\n')}\n`;
}

/**
 * The columns `terraform fmt` counts for a lead: it counts characters (runes), not UTF-16 units
 * (an emoji in a quoted key is one column).
 */
function columns(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A whole value rendered as the right-hand side of `lead =` at `depth`, laid out (for tests and snippets). */
export function renderHclAttribute(lead: string, value: JsonValue, depth = 0): string {
  return layoutHcl(attributeLines(depth, lead, value));
}
