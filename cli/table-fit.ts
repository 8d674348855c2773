/**
 * Fitting a table into a terminal: the widest text columns give up width first, down to a floor,
 * and cells longer than their column are cut with an ellipsis. Columns marked fixed (ids,
 * severities) never shrink: a cut id cannot be used, and the full text is in `findings show`.
 */

export const ELLIPSIS = '…';
/** A shrunk column keeps at least this many characters (or its natural width when narrower). */
export const MIN_SHRUNK_WIDTH = 6;
/** Spaces between two columns. */
const COLUMN_GAP = 2;

/**
 * Column widths whose line (cells joined by `gap` spaces) fits `limit`. Width is taken one
 * character at a time from the currently widest shrinkable column, so long columns end up equal
 * and short ones are untouched. When the fixed columns alone exceed the limit, the result is as
 * narrow as the floors allow: lines are then longer than the limit, never unreadable.
 */
export function fitWidths(
  widths: readonly number[],
  limit: number | undefined,
  options: { gap?: number; fixed?: ReadonlySet<number> } = {},
): number[] {
  const fitted = [...widths];
  if (limit === undefined) return fitted;
  const gap = options.gap ?? COLUMN_GAP;
  const fixed = options.fixed ?? new Set<number>();
  let excess = fitted.reduce((sum, width) => sum + width, 0) + gap * Math.max(0, fitted.length - 1) - limit;
  const floor = widths.map((width) => Math.min(width, MIN_SHRUNK_WIDTH));
  while (excess > 0) {
    let widest = -1;
    for (let column = 0; column < fitted.length; column++) {
      if (fixed.has(column) || fitted[column]! <= floor[column]!) continue;
      if (widest === -1 || fitted[column]! > fitted[widest]!) widest = column;
    }
    if (widest === -1) break;
    // Down to the next widest column at once (not one by one): tables of long values converge fast.
    let next = floor[widest]!;
    for (let column = 0; column < fitted.length; column++)
      if (column !== widest && !fixed.has(column) && fitted[column]! <= fitted[widest]!)
        next = Math.max(next, fitted[column]!);
    const take = Math.max(1, Math.min(excess, fitted[widest]! - next));
    fitted[widest] = fitted[widest]! - take;
    excess -= take;
  }
  return fitted;
}

/** A shrinkable column keeps at least this many characters before droppable columns go. */
const READABLE_WIDTH = 16;

/**
 * The columns shown, in order: all of them when they fit with every shrinkable one at least
 * READABLE_WIDTH wide (or narrower by nature), else without the droppable ones, one at a time.
 */
export function columnsThatFit(
  natural: readonly number[],
  fixed: ReadonlySet<number>,
  limit: number | undefined,
  droppable: readonly number[],
): number[] {
  let shown = natural.map((_width, column) => column);
  if (limit === undefined) return shown;
  const needed = (columns: readonly number[]) =>
    columns.reduce(
      (sum, column) =>
        sum + (fixed.has(column) ? natural[column]! : Math.min(natural[column]!, READABLE_WIDTH)),
      COLUMN_GAP * Math.max(0, columns.length - 1),
    );
  for (const column of droppable) {
    if (needed(shown) <= limit) break;
    shown = shown.filter((kept) => kept !== column);
  }
  return shown;
}

/**
 * Terminal columns `text` takes (text already stripped of controls): a wide or fullwidth character
 * (CJK, Hangul, fullwidth forms) and an emoji take two, a combining mark, a zero-width character or
 * a joiner none, one grapheme (a ZWJ emoji sequence, a flag, a letter with its accents) is measured
 * as one character. Counting UTF-16 units instead moved every later column of a row with `日本語`,
 * `é` written with a combining accent or a flag, and let such a row run past the terminal's width.
 */
export function displayWidth(text: string): number {
  if (ONE_COLUMN_EACH.test(text)) return text.length;
  let width = 0;
  for (const grapheme of graphemes(text)) width += graphemeWidth(grapheme);
  return width;
}

/** `text` cut to `width` columns (displayWidth), between graphemes, its last one an ellipsis when anything was cut. */
export function truncateCell(text: string, width: number): string {
  if (ONE_COLUMN_EACH.test(text)) {
    if (text.length <= width) return text;
    return width <= 0 ? '' : `${text.slice(0, width - 1)}${ELLIPSIS}`;
  }
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let kept = '';
  let used = 0;
  for (const grapheme of graphemes(text)) {
    const columns = graphemeWidth(grapheme);
    if (used + columns > width - 1) break;
    kept += grapheme;
    used += columns;
  }
  return `${kept}${ELLIPSIS}`;
}

/**
 * Text whose every UTF-16 unit is a character of one column that combines with nothing: ASCII, Latin,
 * Greek, Cyrillic, punctuation, arrows (`→`), box drawing, `…` and U+FFFD. Measured by its length
 * without segmenting: most cells are such text, and a table may have 150,000 rows.
 */
const ONE_COLUMN_EACH =
  /^[\x20-\x7e\u00a0-\u02ff\u0370-\u0482\u048a-\u0590\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u257f\ufffd]*$/;

let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): string[] {
  // Built on first use: creating a Segmenter loads ICU's break rules, which ASCII tables never need.
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), ({ segment }) => segment);
}

/** Combining marks, format characters (zero-width space and joiners), Hangul medial and final jamo. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff\ud7b0-\ud7ff]+$/u;
/**
 * East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F, by block, as wcwidth does)
 * and emoji shown as emoji (Emoji_Presentation, or any pictograph followed by VS16 U+FE0F).
 */
const WIDE =
  /^(?:[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f)/u;

function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}
