import { stripForTerminal } from '../text/sanitize.js';

/**
 * The one way the report builds HTML. Findings carry attacker-controlled text (addresses, tags,
 * values, lock holders): every value interpolated into {@link html} is escaped unless it is itself
 * the result of {@link html} (or of {@link trusted}, for our own constant CSS and script). There is
 * no other way to produce `Html`, so a forgotten escape is a type error, not a hole.
 */
const MADE_HERE = Symbol('html');

export class Html {
  readonly #text: string;
  constructor(key: symbol, text: string) {
    if (key !== MADE_HERE) throw new TypeError('Html is made by html`…` only');
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const make = (text: string) => new Html(MADE_HERE, text);

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/** Tagged template: `html\`<td>${finding.title}</td>\`` escapes the title; nested Html stays as is. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let index = 0; index < values.length; index++) out += render(values[index]) + strings[index + 1];
  return make(out);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * Our own constant markup (the stylesheet, the script): never call it with data. The argument type
 * accepts only string literals' worth of intent; a reviewer greps for `trusted(`.
 */
export function trusted(constant: string): Html {
  return make(constant);
}

/**
 * Text for an HTML text node or a quoted attribute value: `&<>"'` escaped, and control characters
 * and bidi controls (Trojan Source: text that reads differently from what it is) shown as U+FFFD,
 * as on a terminal.
 */
export function escapeHtml(text: string): string {
  return inertText(text).replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Data text with controls and bidi controls visible as U+FFFD; line feeds and tabs kept. */
export function inertText(text: string): string {
  // Almost all text has nothing to strip: skip the several passes of stripForTerminal for it.
  return NEEDS_STRIPPING.test(text) ? stripForTerminal(text, { multiline: true }) : text;
}

/** What stripForTerminal (multiline) changes: C0 controls but tab and line feed, DEL, C1, bidi, U+2028/9. */
const NEEDS_STRIPPING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/** Every string of a JSON value made inert ({@link inertText}), keys included. */
export function inertJson(value: unknown): unknown {
  if (typeof value === 'string') return inertText(value);
  if (Array.isArray(value)) return value.map(inertJson);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [inertText(key), inertJson(item)]));
  return value;
}

/**
 * The body of a `<script type="application/json">`: JSON whose text can never end the element or
 * open a comment — `<`, `>` and `&` are `\u` escapes (so no `</script>` or `<!--`), and so are
 * U+2028/U+2029 (older parsers of JavaScript break lines there). JSON.parse reads it back unchanged.
 */
export function scriptJson(value: unknown): Html {
  return make(
    JSON.stringify(inertJson(value)).replace(
      /[<>&\u2028\u2029]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  );
}
