/**
 * Fitting a table into a terminal: the widest text columns give up width first, down to a floor,
 * and cells longer than their column are cut with an ellipsis. Columns marked fixed (ids,
 * severities) never shrink: a cut id cannot be used, and the full text is in `findings show`.
 */

export const ELLIPSIS = '…';
/** A shrunk column keeps at least this many characters (or its natural width when narrower). */
export const MIN_SHRUNK_WIDTH = 6;

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
  const gap = options.gap ?? 2;
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

/** `text` cut to `width` characters, its last one an ellipsis when anything was cut. */
export function truncateCell(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 0) return '';
  let cut = width - 1;
  // Never leave half a surrogate pair (an emoji) before the ellipsis.
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut--;
  return `${text.slice(0, cut)}${ELLIPSIS}`;
}
