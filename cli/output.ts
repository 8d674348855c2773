import { InvalidArgumentError } from 'commander';
import { changeSummary, resourceLabel, truncate } from '../functions/core/findings/describe.js';
import type { Finding } from '../functions/core/findings/model.js';
import { isAboveInfo, severityRank } from '../functions/core/findings/model.js';
import { jsonForTerminal, stripForTerminal } from '../functions/core/text/sanitize.js';

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

export function renderFindings(findings: readonly Finding[], format: OutputFormat, now = new Date()): string {
  const sorted = sortFindings(findings);
  if (format === 'json') return `${jsonForTerminal(sorted)}\n`;
  if (sorted.length === 0) return 'No findings.\n';
  const rows = sorted.map((finding) => [
    finding.severity.toUpperCase(),
    finding.status,
    finding.workspace,
    finding.ruleId,
    resourceLabel(finding),
    truncate(changeSummary(finding), 70),
    age(finding.firstSeenAt, now),
  ]);
  return renderTable(['SEVERITY', 'STATUS', 'WORKSPACE', 'RULE', 'RESOURCE', 'WHAT CHANGED', 'AGE'], rows);
}

/** Every cell is data (addresses, titles, values, names): stripped before it is measured and printed. */
export function renderTable(header: string[], rawRows: string[][]): string {
  const rows = rawRows.map((row) => row.map((cell) => stripForTerminal(cell)));
  // A loop, not Math.max(...cells): spreading 150k rows into arguments overflows the stack.
  const widths = header.map((title) => title.length);
  for (const row of rows)
    for (let column = 0; column < widths.length; column++)
      widths[column] = Math.max(widths[column]!, (row[column] ?? '').length);
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** How long a finding has been open: "3d", "5h", "12m", "now". */
export function age(since: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - new Date(since).getTime()) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes}m`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)}h`;
  return `${Math.floor(minutes / (24 * 60))}d`;
}
