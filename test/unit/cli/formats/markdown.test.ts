import { describe, expect, it } from 'vitest';
import {
  code,
  escapeMarkdownCell,
  markdownSummary,
  renderMarkdown,
} from '../../../../cli/formats/markdown.js';
import { renderFindings } from '../../../../cli/output.js';
import { driftDraft, scanFailedDraft, storedFinding } from '../../../helpers/findings.js';

const PLAIN = { colour: false, width: 200 };
const NOW = new Date('2026-11-30T02:10:00Z');

/** The cells of a Markdown table row, split where GFM splits them: at `|` not preceded by `\`. */
function cells(row: string): string[] {
  return row
    .replace(/^\|\s?/, '')
    .replace(/\s?\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

describe('markdown format', () => {
  it('starts with a one-line summary, then a table with one row per finding, most severe first', () => {
    const findings = [
      storedFinding({}, driftDraft({ severity: 'medium' })),
      storedFinding({}, driftDraft({ severity: 'critical', workspace: 'core-prod' })),
      storedFinding({}, driftDraft({ severity: 'medium', workspace: 'app-prod' })),
    ];
    const text = renderFindings(findings, 'markdown', NOW, PLAIN);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('3 findings: 1 critical, 2 medium');
    expect(lines[1]).toBe('');
    expect(cells(lines[2]!)).toEqual([
      'ID',
      'Severity',
      'Status',
      'Workspace',
      'Rule',
      'Resource',
      'What changed',
    ]);
    expect(lines[3]).toMatch(/^\| --- \|/);
    const rows = lines.slice(4).map(cells);
    expect(rows.map((row) => row[1])).toEqual(['critical', 'medium', 'medium']);
    expect(rows.map((row) => row[2])).toEqual(['new', 'new', 'new']);
    expect(rows.map((row) => row[3])).toEqual(['core-prod', 'app-prod', 'payments-prod']);
    expect(rows[0]![4]).toBe('`drift.update`');
    expect(rows[0]![5]).toBe('`aws_s3_bucket.ledger`');
    expect(rows[0]![6]).toBe('tags.Owner: payments → finance');
  });

  it('escapes data so it cannot end a cell, a row or a code span, or form HTML, links or mentions', () => {
    const hostile = 'a|b `x` <img src=x onerror=alert(1)> [l](https://e.x) @team #12 *b* _i_\nnext|row';
    const finding = storedFinding(
      {},
      driftDraft({
        workspace: 'w|1',
        resource: { address: 'aws_s3_bucket.x["a|`b`"]', type: 'aws_s3_bucket' },
        // No changes: the row shows the title, whole (a change's values are cut at 28 characters).
        drift: undefined,
        title: hostile,
      }),
    );
    const text = renderMarkdown([finding]);
    const lines = text.trimEnd().split('\n');
    // One summary, a blank line, header, separator, and exactly one row: the newline did not split it.
    expect(lines).toHaveLength(5);
    const row = cells(lines[4]!);
    expect(row).toHaveLength(7);
    expect(row[3]).toBe('w\\|1');
    // The address is a code span fenced by more backticks than it holds, its pipe escaped.
    expect(row[5]).toBe('``aws_s3_bucket.x["a\\|`b`"]``');
    expect(row[6]).not.toMatch(/<img/);
    expect(row[6]).toContain('&lt;img');
    expect(row[6]).toContain('\\[l\\](https://e.x)');
    expect(row[6]).toContain('\\@team');
    expect(row[6]).toContain('\\#12');
    expect(row[6]).toContain('\\*b\\*');
    expect(row[6]).toContain('\\`x\\`');
    expect(row[6]).toContain('next\\|row');
  });

  it('escapeMarkdownCell and code keep one line and drop terminal controls', () => {
    expect(escapeMarkdownCell('a\r\nb\u001b[31mred\u202e')).toBe('a bred\uFFFD');
    expect(escapeMarkdownCell('x & y > z')).toBe('x &amp; y &gt; z');
    expect(code('`start')).toBe('`` `start ``');
    expect(code('plain')).toBe('`plain`');
    expect(code('')).toBe('');
  });

  it('says No findings. for an empty listing, and names the --severity threshold when one hid some', () => {
    expect(renderMarkdown([])).toBe('No findings.\n');
    const low = storedFinding({}, driftDraft({ severity: 'low' }));
    expect(renderFindings([low], 'markdown', NOW, PLAIN, { severity: 'high' })).toBe(
      'No findings at high or above.\n',
    );
  });

  it("shows each finding's status and counts resolved and suppressed ones apart from the open ones", () => {
    const open = storedFinding({}, driftDraft({ severity: 'high' }));
    const resolved = storedFinding(
      { status: 'resolved' },
      driftDraft({ severity: 'critical', workspace: 'a' }),
    );
    const suppressed = storedFinding(
      { status: 'suppressed' },
      driftDraft({ severity: 'medium', workspace: 'b' }),
    );
    const text = renderMarkdown([open, resolved, suppressed]);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('3 findings: 1 high; 1 resolved, 1 suppressed');
    expect(lines.slice(4).map((row) => cells(row)[2])).toEqual(['new', 'resolved', 'suppressed']);
    // `findings --status resolved --format markdown`: nothing open is claimed.
    expect(markdownSummary([resolved])).toBe('1 finding: 1 resolved');
    expect(markdownSummary([resolved, suppressed])).toBe('2 findings: 1 resolved, 1 suppressed');
  });

  it('counts a single finding in the singular', () => {
    expect(markdownSummary([storedFinding({}, scanFailedDraft())])).toBe('1 finding: 1 high');
  });
});
