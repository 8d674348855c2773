/**
 * Output that cannot be turned against its reader. Addresses, titles, values, paths, lock holders
 * and cluster object names come from plans, state and clusters: anyone who can write a tag or a
 * lock file writes them. Before such text reaches a terminal it loses everything a terminal would
 * execute; before it reaches a chat message it loses everything the chat client would turn into
 * a mention, a link or markup. Our own markup is added around the cleaned data, never through it.
 */

/** Shown where a control character or a bidi control was: the reader sees that data was altered. */
export const REPLACEMENT = '\uFFFD';

/**
 * Terminal escape sequences (ECMA-48), removed whole because they are formatting (Terraform and
 * kubectl messages carry colours): CSI (`ESC [` or 8-bit U+009B, e.g. colours, cursor moves,
 * screen clears); OSC, DCS, SOS, PM and APC strings (window titles, OSC 8 hyperlinks, clipboard
 * writes) up to BEL or ST, or to the end of the text when unterminated; any other `ESC` sequence.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?',
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[\\s\\S]*?(?:\\u0007|\\u001b\\\\|\\u009c|$)',
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?',
  ].join('|'),
  'g',
);
/** C0 (but tab and line feed, handled per mode), DEL and C1 controls. */
export const CONTROL_SOURCE = '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]';
const CONTROL = new RegExp(CONTROL_SOURCE, 'g');
/** Bidi embeddings, overrides and isolates, and the invisible direction marks (Trojan Source). */
export const BIDI_SOURCE = '[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]';
const BIDI = new RegExp(BIDI_SOURCE, 'g');
/**
 * What no UTF-8 encoder or XML-based transport takes: lone surrogates (a `\ud800` escape in a JSON
 * state or lock body parses to one) and the noncharacters U+FFFE and U+FFFF. SQS refuses messages
 * that hold them (InvalidMessageContents), so a digest SNS delivers to a queue (a chat relay, an SQS
 * destination) would be lost.
 */
export const UNENCODABLE_SOURCE =
  '[\\ufffe\\uffff]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const UNENCODABLE = new RegExp(UNENCODABLE_SOURCE, 'g');
/** Line breaks a terminal or a chat client may honour: CRLF, LF, the Unicode line/paragraph separators. */
const LINE_BREAK = /\r\n|[\n\u2028\u2029]/g;

export interface StripOptions {
  /** Keep line feeds and tabs (error messages, multi-line text). Default: one line, breaks and tabs become spaces. */
  multiline?: boolean;
}

/**
 * Text from data, safe to print on a terminal: escape sequences removed, every other control
 * character (CR included: it overwrites what came before), every bidi control, lone surrogate and
 * U+FFFE/U+FFFF shown as U+FFFD. Our own colours, if any, are added after this, around the stripped text.
 */
export function stripForTerminal(text: string, options: StripOptions = {}): string {
  const lines = text.replace(ESCAPE_SEQUENCE, '').replace(LINE_BREAK, options.multiline ? '\n' : ' ');
  const tabs = options.multiline ? lines : lines.replace(/\t/g, ' ');
  return tabs.replace(CONTROL, REPLACEMENT).replace(BIDI, REPLACEMENT).replace(UNENCODABLE, REPLACEMENT);
}

const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const UNSAFE_IN_JSON_ALL = new RegExp(UNSAFE_IN_JSON.source, 'g');

/**
 * JSON.stringify escapes C0 controls but prints DEL, C1 controls (U+009B is a CSI for terminals
 * that honour 8-bit controls), bidi controls and U+2028/U+2029 raw. These can only occur inside
 * JSON strings, so a `\u` escape keeps the document equal as data and inert on a terminal.
 */
export function escapeJsonText(json: string): string {
  // Almost no output holds one: a test scans ~100 MB of findings far faster than a replace with a
  // callback, which builds a new string even when it replaces nothing.
  if (!UNSAFE_IN_JSON.test(json)) return json;
  return json.replace(UNSAFE_IN_JSON_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON for stdout: `JSON.stringify` plus the escapes of {@link escapeJsonText}. */
export function jsonForTerminal(value: unknown, space: number | undefined = 2): string {
  return escapeJsonText(JSON.stringify(value, null, space));
}

/**
 * One piece of data for a Slack mrkdwn / Chatbot `client-markdown` message (Slack, Teams, Chime),
 * inline in our own markup:
 * - controls and bidi controls as in {@link stripForTerminal}, and line breaks become spaces, so
 *   data cannot start a line that looks like one of ours;
 * - `&`, `<`, `>` escaped (Slack's only required escapes): no `<!channel>`, `<!here>`,
 *   `<!everyone>`, `<@U…>`, `<#C…>`, `<!subteam^…>`, `<https://…|label>` and no Teams `<at>` or
 *   HTML can be formed;
 * - a zero-width space after an `@` that starts a word: `@channel`, `@here` and `@name` do not
 *   notify even where the client links plain names (`link_names`); e-mail addresses are untouched;
 * - a zero-width space between `]` and `(`: `[text](https://…)` cannot become a link whose target
 *   is hidden behind its text on markdown clients (Teams);
 * - backticks become U+02CB, so data cannot close our code spans and restyle what follows.
 * Bare URLs stay: clients auto-link them, but they show their own target and cannot mention anyone.
 */
export function escapeForChat(text: string): string {
  return stripForTerminal(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/(^|[^\p{L}\p{N}_.+-])@(?=[\p{L}\p{N}_])/gu, '$1@\u200B')
    .replace(/\](?=\()/g, ']\u200B')
    .replace(/`/g, '\u02CB');
}

/** Data as inline code in a chat message (an address, a command with a lock id), its text at most `max` long. */
export function chatCode(text: string, max = Number.POSITIVE_INFINITY): string {
  return `\`${limitText(escapeForChat(text), max)}\``;
}

// Built on first use: creating a Segmenter loads ICU's break rules (~10 ms), which every CLI start
// paid when this module was loaded, `--help` included.
let segmenter: Intl.Segmenter | undefined;

/**
 * At most `max` UTF-16 code units (never fewer characters than that: a conservative measure for
 * limits stated in characters), cut between graphemes (no half emoji, no lone surrogate, no
 * accent without its letter) and never inside a `&amp;`-style escape, ending with an ellipsis.
 */
export function limitText(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  const budget = max - ellipsis.length;
  let kept = '';
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(text.slice(0, budget + 8))) {
    if (kept.length + segment.length > budget) break;
    kept += segment;
  }
  return `${kept.replace(/&[#a-z0-9]*$/i, '')}${ellipsis}`;
}

/**
 * Characters a reader cannot see, or cannot tell from a space or from nothing: C0 and C1 controls,
 * DEL, no-break and the other Unicode spaces, soft hyphen, zero-width characters and joiners, bidi
 * controls, line and paragraph separators, the byte order mark, Hangul fillers.
 */
export const INVISIBLE_CHARACTERS =
  '\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\u3164\\ufeff\\uffa0';
/** Text shown bare only when none of this applies: empty, a space at either end, two spaces, or an invisible character. */
export const NOT_PLAIN_SOURCE = `^$|^ | $|  |[${INVISIBLE_CHARACTERS}]`;
/** What JSON.stringify leaves raw among them (it escapes C0 controls itself; raw line feeds are its layout). */
export const INVISIBLE_IN_JSON_SOURCE = `[${INVISIBLE_CHARACTERS.replace('\\u0000-\\u001f', '')}]`;
const NOT_PLAIN = new RegExp(NOT_PLAIN_SOURCE);
const INVISIBLE_IN_JSON = new RegExp(INVISIBLE_IN_JSON_SOURCE, 'g');

/**
 * A value from a plan, state or cluster as people read it in a table, a digest or a report. Text is
 * shown bare when what is seen is what it holds; otherwise (empty, spaces at its ends or doubled,
 * controls, escape sequences, bidi controls, zero-width or no-break spaces) as a quoted JSON string
 * with every invisible character written as `\uXXXX`. Stripping them instead would let two
 * different values read the same: `private → private` for a value that gained `ESC[0m` or a trailing
 * space. Other values are JSON, with the same escapes. The result holds no control character.
 * (The report's script does the same in the browser, from the same patterns.)
 */
export function visibleValue(value: unknown, space?: number): string {
  if (typeof value === 'string' && !NOT_PLAIN.test(value)) return value;
  return visibleJson(value, space);
}

/** JSON (a YAML double-quoted scalar too, for a string) with every invisible character written as `\\uXXXX`. */
export function visibleJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space) ?? String(value);
  return json.replace(INVISIBLE_IN_JSON, unicodeEscape);
}

const INVISIBLE = new RegExp(`[${INVISIBLE_CHARACTERS}]`, 'g');

/** Text with every invisible character (line breaks included) written as `\\uXXXX`: one line, as it reads. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, unicodeEscape);
}

/** One UTF-16 code unit as the JSON escape `\\uXXXX`. */
export function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** {@link escapeForChat} then {@link limitText}: one piece of data with its own length budget. */
export function chatText(text: string, max: number): string {
  return limitText(escapeForChat(text), max);
}
