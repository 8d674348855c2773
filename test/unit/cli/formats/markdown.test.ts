import { describe, expect, it } from 'vitest';
import {
  code,
  escapeMarkdownCell,
  MARKDOWN_MAX_CHARS,
  markdownSummary,
  renderMarkdown,
} from '../../../../cli/formats/markdown.js';
import { renderFindings } from '../../../../cli/output.js';
import { type Severity, severityRank } from '../../../../functions/core/findings/model.js';
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

  it('stays under the size of a GitHub comment: the least severe rows go, and a last line counts them', () => {
    // 600 findings of ~200-character rows: about twice what a GitHub comment holds (65,536).
    const severities = ['critical', 'high', 'medium', 'low'] as const;
    const findings = Array.from({ length: 600 }, (_, i) =>
      storedFinding(
        {},
        driftDraft({
          severity: severities[Math.floor((i * severities.length) / 600)]!,
          workspace: `workspace-${i}`,
          resource: {
            address: `aws_security_group.service_${'x'.repeat(40)}_${i}`,
            type: 'aws_security_group',
          },
        }),
      ),
    );
    const text = renderFindings(findings, 'markdown', NOW, PLAIN);
    expect(text.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    const lines = text.trimEnd().split('\n');
    // The summary still counts every finding.
    expect(lines[0]).toBe('600 findings: 150 critical, 150 high, 150 medium, 150 low');
    const rows = lines.slice(4).filter((line) => line.startsWith('|'));
    expect(rows.length).toBeGreaterThan(150);
    expect(rows.length).toBeLessThan(600);
    // The most severe are the ones shown: no finding left out ranks above one shown.
    const shown = new Set(rows.map((row) => cells(row)[3]));
    const omitted = findings.filter((finding) => !shown.has(finding.workspace));
    expect(omitted.length + rows.length).toBe(600);
    const worstShown = Math.max(...rows.map((row) => severityRank(cells(row)[1] as Severity)));
    expect(omitted.every((finding) => severityRank(finding.severity) >= worstShown)).toBe(true);
    const note = lines.at(-1)!;
    expect(note).toBe(
      `_…and ${omitted.length} more findings not shown (${markdownSummary(omitted).replace(/^\d+ findings: /, '')}): a GitHub comment holds at most 65,536 characters. \`--format json\` or \`--format sarif\` lists them all; \`--severity <level>\` shortens this table._`,
    );
    expect(note).toMatch(/\d+ low\)/);
  });

  it('cuts at any limit without breaking a row, and shows the whole table when it fits exactly', () => {
    const findings = Array.from({ length: 30 }, (_, i) =>
      storedFinding({}, driftDraft({ severity: 'high', workspace: `w-${i}` })),
    );
    const whole = renderMarkdown(findings, { maxChars: Number.MAX_SAFE_INTEGER });
    expect(whole).not.toContain('not shown');
    for (const maxChars of [1_000, 2_500, 4_000]) {
      const text = renderMarkdown(findings, { maxChars });
      expect(text.length).toBeLessThanOrEqual(maxChars);
      // Every table line is a whole row of seven cells.
      const tableLines = text.split('\n').filter((line) => line.startsWith('|'));
      expect(tableLines.every((line) => cells(line).length === 7)).toBe(true);
      expect(text).toMatch(/_…and \d+ more findings? not shown \(\d+ high\)/);
    }
    expect(renderMarkdown(findings, { maxChars: whole.length + 400 })).toBe(whole);
  });
});
