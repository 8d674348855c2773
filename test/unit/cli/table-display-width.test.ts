import { describe, expect, it } from 'vitest';
import { renderFindings, renderTable } from '../../../cli/output.js';
import { displayWidth, truncateCell } from '../../../cli/table-fit.js';
import { driftDraft, storedFinding } from '../../helpers/findings.js';

/**
 * Terminal tables line up by the columns text takes on screen, not by its UTF-16 length: resource
 * keys, tag values and names from plans and clusters may be CJK, Hangul, fullwidth, emoji, flags or
 * letters written with combining accents. Each variant with the columns a terminal gives it (wcwidth).
 */
const VARIANTS: ReadonlyArray<readonly [string, string, number]> = [
  ['ascii', 'plain', 5],
  ['CJK', '日本語', 6],
  ['Hangul syllables', '한국', 4],
  ['Hangul jamo (leading + vowel + trailing: one syllable)', '\u1112\u1161\u11ab', 2],
  ['fullwidth forms', 'ｆｕｌｌ', 8],
  ['combining accents', 'e\u0301te\u0301', 3],
  ['emoji', '👍', 2],
  ['flag (two regional indicators)', '🇩🇪', 2],
  ['ZWJ family', '👨\u200d👩\u200d👧', 2],
  ['pictograph with VS16', '\u2764\ufe0f', 2],
  ['zero-width space', 'a\u200bb', 2],
];

describe('displayWidth', () => {
  it.each(VARIANTS)('%s', (_name, text, columns) => {
    expect(displayWidth(text)).toBe(columns);
  });
});

describe('tables line up and fit by display width', () => {
  const NOW = new Date('2026-12-01T00:00:00Z');
  const findings = VARIANTS.map(([, text]) =>
    storedFinding(
      { id: `${Math.random().toString(16).slice(2, 14)}${'0'.repeat(52)}` },
      driftDraft({
        resource: { address: `aws_s3_bucket.b["${text}"]`, type: 'aws_s3_bucket' },
        drift: {
          action: 'update',
          changes: [{ path: 'tags.Owner', before: text, after: 'x', sensitive: false }],
        },
      }),
    ),
  );
  /**
   * Where, on screen, each row's last cell starts (AGE, or WHAT CHANGED where a narrow width left AGE
   * out): the same column as the header's in every row.
   */
  const ageColumns = (table: string) =>
    table
      .trimEnd()
      .split('\n')
      .map((line) => displayWidth(line.slice(0, line.lastIndexOf('  ') + 2)));

  it('every row puts its AGE cell at the header column (no width limit)', () => {
    const table = renderFindings(findings, 'table', NOW, { colour: false });
    const columns = ageColumns(table);
    expect(new Set(columns.slice(1)).size).toBe(1);
    expect(columns[0]).toBe(columns[1]);
  });

  it.each([70, 90, 120])('no line takes more than COLUMNS=%i on screen', (width) => {
    const table = renderFindings(findings, 'table', NOW, { colour: false, width });
    for (const line of table.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    const columns = ageColumns(table);
    expect(new Set(columns).size).toBe(1);
  });

  it.each(VARIANTS)('a cell of %s is cut between graphemes to the columns it may take', (_name, text) => {
    for (let width = 1; width <= 8; width++) {
      const cut = truncateCell(`${text}${text}`, width);
      expect(displayWidth(cut)).toBeLessThanOrEqual(width);
      // No half grapheme: what is kept, less the ellipsis, starts the text.
      expect(`${text}${text}`.startsWith(cut.replace(/…$/, ''))).toBe(true);
    }
  });

  it('renderTable pads every cell to its column on screen', () => {
    const table = renderTable(
      ['NAME', 'NEXT'],
      VARIANTS.map(([, text]) => [text, 'x']),
    );
    const starts = table
      .trimEnd()
      .split('\n')
      .map((line) => displayWidth(line.slice(0, line.length - (line.startsWith('NAME') ? 4 : 1))));
    expect(new Set(starts).size).toBe(1);
  });
});
