import { describe, expect, it } from 'vitest';
import { historySpans, renderFindingDetail } from '../../../cli/finding-detail.js';
import { matchFindingId, SHORT_ID_LENGTH, shortIdLength } from '../../../cli/finding-ids.js';
import { renderFindings, renderTable } from '../../../cli/output.js';
import { ELLIPSIS, fitWidths, MIN_SHRUNK_WIDTH, truncateCell } from '../../../cli/table-fit.js';
import { colourEnabled, PLAIN, paintSeverity, tableWidth, terminalFor } from '../../../cli/terminal.js';
import { driftDraft, storedFinding } from '../../helpers/findings.js';

/** Issue 12 §3: the pure parts of a CLI people recognise (colour decision, width fitting, short ids). */

const ESC = '\u001b';
/** Our colour codes, to compare what a reader sees. */
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
const hex = (prefix: string) => prefix.padEnd(64, '0');

describe('colourEnabled', () => {
  const tty = (env: Record<string, string>) => colourEnabled({ isTTY: true, env });
  const pipe = (env: Record<string, string>) => colourEnabled({ isTTY: false, env });

  it('colours a terminal and not a pipe by default', () => {
    expect(tty({})).toBe(true);
    expect(pipe({})).toBe(false);
    expect(tty({ TERM: 'dumb' })).toBe(false);
  });

  it('any non-empty NO_COLOR disables it; an empty one does not', () => {
    expect(tty({ NO_COLOR: '1' })).toBe(false);
    expect(tty({ NO_COLOR: 'false' })).toBe(false);
    expect(tty({ NO_COLOR: '' })).toBe(true);
  });

  it('FORCE_COLOR enables it without a terminal; FORCE_COLOR=0 disables it on one', () => {
    expect(pipe({ FORCE_COLOR: '1' })).toBe(true);
    expect(pipe({ FORCE_COLOR: 'true' })).toBe(true);
    expect(tty({ FORCE_COLOR: '0' })).toBe(false);
    expect(tty({ FORCE_COLOR: 'false' })).toBe(false);
    // As for Node itself: the explicit FORCE_COLOR wins over NO_COLOR.
    expect(pipe({ FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
  });
});

describe('tableWidth', () => {
  it('is the terminal width on a terminal, no limit in a pipe, and COLUMNS wins when it is a number', () => {
    expect(tableWidth({ isTTY: true, columns: 120, env: {} })).toBe(120);
    expect(tableWidth({ isTTY: false, columns: 120, env: {} })).toBeUndefined();
    expect(tableWidth({ isTTY: false, env: { COLUMNS: '80' } })).toBe(80);
    expect(tableWidth({ isTTY: true, columns: 200, env: { COLUMNS: '100' } })).toBe(100);
    expect(tableWidth({ isTTY: false, env: { COLUMNS: 'wide' } })).toBeUndefined();
    expect(tableWidth({ isTTY: false, env: { COLUMNS: '0' } })).toBeUndefined();
  });

  it('terminalFor reads both off a stream and the environment', () => {
    expect(terminalFor({ isTTY: true, columns: 90 }, {})).toEqual({ colour: true, width: 90 });
    expect(terminalFor({}, { COLUMNS: '70' })).toEqual({ colour: false, width: 70 });
  });
});

describe('fitWidths and truncateCell', () => {
  it('changes nothing without a limit or when the table fits', () => {
    expect(fitWidths([10, 40, 5], undefined)).toEqual([10, 40, 5]);
    expect(fitWidths([10, 40, 5], 59)).toEqual([10, 40, 5]);
  });

  it('takes width from the widest columns first and never from fixed ones', () => {
    // 8 + 30 + 50 + gaps 4 = 92 → 60: the two text columns end equal, the fixed one is untouched.
    expect(fitWidths([8, 30, 50], 60, { fixed: new Set([0]) })).toEqual([8, 24, 24]);
    // Only the widest has to give: the short column keeps its width.
    expect(fitWidths([8, 10, 50], 60, { fixed: new Set([0]) })).toEqual([8, 10, 38]);
  });

  it('stops at the floor when even that does not fit', () => {
    const widths = fitWidths([12, 30, 30], 20, { fixed: new Set([0]) });
    expect(widths).toEqual([12, MIN_SHRUNK_WIDTH, MIN_SHRUNK_WIDTH]);
    expect(fitWidths([3, 30], 10)).toEqual([3, MIN_SHRUNK_WIDTH]);
  });

  it('cuts with an ellipsis, never through a surrogate pair', () => {
    expect(truncateCell('aws_s3_bucket.ledger', 8)).toBe(`aws_s3_${ELLIPSIS}`);
    expect(truncateCell('short', 8)).toBe('short');
    expect(truncateCell('ab😀cd', 4)).toBe(`ab${ELLIPSIS}`);
  });
});

describe('short ids and prefixes', () => {
  it('shows 12 characters, more only when the shown ids share 12', () => {
    expect(shortIdLength([hex('ab'), hex('cd')])).toBe(SHORT_ID_LENGTH);
    expect(shortIdLength([hex('abcdef0123456'), hex('abcdef0123457')])).toBe(13);
    expect(shortIdLength([hex('ab'), hex('ab')])).toBe(SHORT_ID_LENGTH);
  });

  it('resolves a unique prefix, and tells ambiguous, unknown and malformed ones apart', () => {
    const ids = [hex('abcd1'), hex('abcd2'), hex('ef01')];
    expect(matchFindingId('ef01', ids)).toEqual({ kind: 'match', id: hex('ef01') });
    expect(matchFindingId('ABCD1', ids)).toEqual({ kind: 'match', id: hex('abcd1') });
    expect(matchFindingId(hex('ef01'), ids)).toEqual({ kind: 'match', id: hex('ef01') });
    expect(matchFindingId('abcd', ids)).toEqual({
      kind: 'ambiguous',
      candidates: [hex('abcd1'), hex('abcd2')],
    });
    expect(matchFindingId('9999', ids)).toEqual({ kind: 'unknown' });
    expect(matchFindingId('abc', ids).kind).toBe('invalid');
    expect(matchFindingId('xyz1', ids).kind).toBe('invalid');
    expect(matchFindingId(`${hex('ef01')}0`, ids).kind).toBe('invalid');
  });
});

describe('tables', () => {
  const now = new Date('2026-12-01T00:00:00Z');
  const findings = [
    storedFinding({ id: hex('1a2b3c4d5e6f7'), severity: 'critical' }),
    storedFinding(
      { id: hex('9f8e7d6c5b4a3'), severity: 'low' },
      driftDraft({
        resource: {
          address: `module.very_long_module_name.aws_s3_bucket.${'x'.repeat(60)}`,
          type: 'aws_s3_bucket',
        },
      }),
    ),
  ];

  it('lead with the short id, and fit the width with ellipses, ids and severities whole', () => {
    const table = renderFindings(findings, 'table', now, { colour: false, width: 80 });
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID {12}SEVERITY/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(table).toContain(ELLIPSIS);
    expect(table).toContain('1a2b3c4d5e6f  CRITICAL');
    expect(table).toContain('9f8e7d6c5b4a  LOW');
    // Unlimited: nothing cut but the summary's own limit.
    const wide = renderFindings(findings, 'table', now, PLAIN);
    expect(wide).toContain('x'.repeat(60));
  });

  it('on a narrow terminal leave out the rule, the status, the age, then the workspace, never cut to nothing', () => {
    const headerAt = (width: number) =>
      renderFindings(findings, 'table', now, { colour: false, width }).split('\n')[0]!.split(/ {2,}/);
    expect(headerAt(200)).toEqual([
      'ID',
      'SEVERITY',
      'STATUS',
      'WORKSPACE',
      'RULE',
      'RESOURCE',
      'WHAT CHANGED',
      'AGE',
    ]);
    expect(headerAt(90)).toEqual([
      'ID',
      'SEVERITY',
      'STATUS',
      'WORKSPACE',
      'RESOURCE',
      'WHAT CHANGED',
      'AGE',
    ]);
    expect(headerAt(60)).toEqual(['ID', 'SEVERITY', 'RESOURCE', 'WHAT CHANGED']);
    // Still coloured by its own severity once columns before it are gone, rows aligned.
    const coloured = renderFindings(findings, 'table', now, { colour: true, width: 60 });
    expect(coloured).toContain(`${ESC}[1;31mCRITICAL${ESC}[0m`);
    for (const line of coloured.replace(SGR, '').trimEnd().split('\n'))
      expect(line.length).toBeLessThanOrEqual(60);
    // In a pipe (no width) nothing is left out.
    expect(renderFindings(findings, 'table', now, PLAIN).split('\n')[0]).toContain('RULE');
  });

  it('colour the severity around the cleaned cell, and nothing when colour is off', () => {
    const coloured = renderFindings(findings, 'table', now, { colour: true });
    expect(coloured).toContain(`${ESC}[1;31mCRITICAL${ESC}[0m`);
    expect(coloured).toContain(`${ESC}[36mLOW${ESC}[0m`);
    expect(renderFindings(findings, 'table', now, PLAIN)).not.toContain(ESC);
    expect(renderFindings(findings, 'json', now, { colour: true, width: 40 })).not.toContain(ESC);
    // Columns still line up: padding is outside the colour.
    const [, first, second] = coloured.split('\n');
    expect(first!.replace(SGR, '').indexOf('new')).toBe(second!.replace(SGR, '').indexOf('new'));
  });

  it('keep fixed columns (scan ids, scopes) whole even when the rest must shrink', () => {
    const scanId = '20261201T020000Z-0123456789abcdef';
    const table = renderTable(['SCAN', 'NOTE'], [[scanId, 'x'.repeat(80)]], {
      style: { colour: false, width: 50 },
      fixed: [0],
    });
    expect(table).toContain(`${scanId}  ${'x'.repeat(50 - scanId.length - 3)}${ELLIPSIS}\n`);
    for (const line of table.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(50);
  });

  it('data never brings its own escape sequences, coloured or not', () => {
    const hostile = `evil${ESC}[31mred${ESC}]0;title\u0007`;
    const table = renderTable(['NAME'], [[hostile]], {
      style: { colour: true, width: 10 },
      paint: (cell) => cell,
    });
    expect(table).not.toContain(ESC);
    expect(paintSeverity('HIGH', 'high', PLAIN)).toBe('HIGH');
  });
});

describe('finding detail', () => {
  const now = new Date('2026-12-01T03:00:00Z');
  const finding = storedFinding(
    {
      status: 'ongoing',
      firstSeenAt: '2026-11-28T02:00:00Z',
      lastSeenAt: '2026-11-30T02:00:00Z',
      evidence: { stateVersion: 'v7', url: 'postgres://app:hunter2secret@db.internal/orders' },
    },
    driftDraft({
      drift: {
        action: 'update',
        changes: [
          {
            path: 'password',
            before: '(sensitive:0a1b2c3d)',
            after: '(sensitive:4e5f6a7b)',
            sensitive: true,
          },
          { path: 'tags.Owner', before: 'payments', after: `fin${ESC}[2Jance`, sensitive: false },
        ],
      },
      remediation: {
        summary: 'Revert it or adopt it',
        steps: ['terraform plan, then apply through the pipeline', 'change the code'],
      },
    }),
  );
  const line = (status: 'new' | 'ongoing', lastSeenAt: string) => ({ ...finding, status, lastSeenAt });

  it('shows what, whose, since when, the changes, the evidence, the history and the remediation', () => {
    const history = [
      line('ongoing', '2026-11-30T02:00:00Z'),
      line('new', '2026-11-28T02:00:00Z'),
      line('ongoing', '2026-11-29T02:00:00Z'),
    ];
    const text = renderFindingDetail(finding, history, now);
    expect(text).toContain(finding.id);
    expect(text).toMatch(/owner +payments/);
    expect(text).toMatch(/workspace +payments-prod \(prod\)/);
    expect(text).toMatch(/first seen +2026-11-28T02:00:00Z \(3d ago\)/);
    expect(text).toContain('password: (sensitive:0a1b2c3d) → (sensitive:4e5f6a7b)');
    // The screen-clear planted in the value is written out, not run and not silently dropped.
    expect(text).toContain('tags.Owner: payments → "fin\\u001b[2Jance"');
    expect(text).toContain('stateVersion: v7');
    expect(text).toMatch(
      /2026-11-28T02:00:00Z +new\n +2026-11-29T02:00:00Z … 2026-11-30T02:00:00Z +ongoing \(2 scans\)/,
    );
    expect(text).toContain(
      'Revert it or adopt it\n  1. terraform plan, then apply through the pipeline\n  2. change the code',
    );
    // Stored findings are redacted; a credential that got into evidence anyway is not printed, nor escapes.
    expect(text).not.toContain('hunter2secret');
    expect(text).not.toContain(ESC);
  });

  it('says so when the store has no history of it', () => {
    expect(renderFindingDetail(finding, [], now)).toContain("no scan history in the store's recent scans");
    expect(historySpans([])).toEqual([]);
  });
});
