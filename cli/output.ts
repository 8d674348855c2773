import { InvalidArgumentError } from 'commander';
import { changeSummary, resourceLabel, truncate } from '../functions/core/findings/describe.js';
import type { Finding } from '../functions/core/findings/model.js';
import { isAboveInfo, severityRank } from '../functions/core/findings/model.js';
import { jsonForTerminal, stripForTerminal } from '../functions/core/text/sanitize.js';
import { shortIdLength } from './finding-ids.js';
import { fitWidths, truncateCell } from './table-fit.js';
import { paintSeverity, type TerminalStyle, terminalFor } from './terminal.js';

export type OutputFormat = 'table' | 'json';

export function parseFormat(value: string): OutputFormat {
  if (value !== 'table' && value !== 'json')
    throw new InvalidArgumentError(`use table or json, not ${value}`);
  return value;
}

/**
 * Exit codes (DESIGN.md CLI contract): 1 when a scan failed (its scan-failed finding is still
 * printed), 2 when a finding above info is open, 0 otherwise.
 */
export function exitCodeFor(findings: readonly Finding[]): 0 | 1 | 2 {
  const open = findings.filter((finding) => finding.status !== 'resolved');
  if (open.some((finding) => finding.kind === 'scan-failed')) return 1;
  if (open.some(isAboveInfo)) return 2;
  return 0;
}

export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      Number(a.status === 'resolved') - Number(b.status === 'resolved') ||
      severityRank(a.severity) - severityRank(b.severity) ||
      a.workspace.localeCompare(b.workspace) ||
      resourceLabel(a).localeCompare(resourceLabel(b)),
  );
}

/**
 * Findings as a table for people (coloured by severity and fitted to the terminal when `style` says
 * so: by default, what stdout is) or as JSON (never coloured, never cut).
 */
export function renderFindings(
  findings: readonly Finding[],
  format: OutputFormat,
  now = new Date(),
  style: TerminalStyle = terminalFor(),
): string {
  const sorted = sortFindings(findings);
  if (format === 'json') return `${jsonForTerminal(sorted)}\n`;
  if (sorted.length === 0) return 'No findings.\n';
  const idLength = shortIdLength(sorted.map((finding) => finding.id));
  const rows = sorted.map((finding) => [
    finding.id.slice(0, idLength),
    finding.severity.toUpperCase(),
    finding.status,
    finding.workspace,
    finding.ruleId,
    resourceLabel(finding),
    truncate(changeSummary(finding), 70),
    age(finding.firstSeenAt, now),
  ]);
  return renderTable(
    ['ID', 'SEVERITY', 'STATUS', 'WORKSPACE', 'RULE', 'RESOURCE', 'WHAT CHANGED', 'AGE'],
    rows,
    {
      style,
      // Ids (a prefix is what commands take), severities, statuses and ages are short and never cut.
      fixed: [0, 1, 2, 7],
      paint: (cell, row, column) => (column === 1 ? paintSeverity(cell, sorted[row]!.severity, style) : cell),
    },
  );
}

export interface TableOptions {
  /** Colour and width; default: what stdout is (terminalFor). */
  style?: TerminalStyle;
  /** Columns never shrunk to fit the width (ids, severities). */
  fixed?: readonly number[];
  /** Colours one cell, given its cleaned, fitted text; padding is added outside the colour. */
  paint?: (cell: string, row: number, column: number) => string;
}

/**
 * Every cell is data (addresses, titles, values, names): stripped before it is measured and printed.
 * Colour is added after that, around the cleaned cell, so data can never bring its own.
 */
export function renderTable(header: string[], rawRows: string[][], options: TableOptions = {}): string {
  const style = options.style ?? terminalFor();
  const rows = rawRows.map((row) => row.map((cell) => stripForTerminal(cell)));
  // A loop, not Math.max(...cells): spreading 150k rows into arguments overflows the stack.
  const natural = header.map((title) => title.length);
  for (const row of rows)
    for (let column = 0; column < natural.length; column++)
      natural[column] = Math.max(natural[column]!, (row[column] ?? '').length);
  const widths = fitWidths(natural, style.width, { fixed: new Set(options.fixed ?? []) });
  const line = (cells: string[], row?: number) =>
    widths
      .map((width, column) => {
        const cell = truncateCell(cells[column] ?? '', width);
        const shown = row === undefined || !options.paint ? cell : options.paint(cell, row, column);
        return shown + ' '.repeat(width - cell.length);
      })
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map((row, index) => line(row, index))].join('\n')}\n`;
}

/** How long a finding has been open: "3d", "5h", "12m", "now". */
export function age(since: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - new Date(since).getTime()) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes}m`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)}h`;
  return `${Math.floor(minutes / (24 * 60))}d`;
}
