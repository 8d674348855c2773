import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { changeSummary, resourceLabel } from '../functions/core/findings/describe.js';
import type { Finding, Severity } from '../functions/core/findings/model.js';
import { SEVERITIES, severityRank } from '../functions/core/findings/model.js';
import type { Registry } from '../functions/core/registry/model.js';
import { jsonForTerminal, stripForTerminal } from '../functions/core/text/sanitize.js';
import { shortIdLength } from './finding-ids.js';
import { presentFindings } from './finding-view.js';
import { renderMarkdown } from './formats/markdown.js';
import { directoryUri, sarifLog } from './formats/sarif.js';
import { PACKAGE_ROOT, packageVersion } from './package-root.js';
import { columnsThatFit, displayWidth, fitWidths, truncateCell } from './table-fit.js';
import { paintSeverity, type TerminalStyle, terminalFor } from './terminal.js';

export type OutputFormat = 'table' | 'json';

export function parseFormat(value: string): OutputFormat {
  if (value !== 'table' && value !== 'json')
    throw new InvalidArgumentError(`use table or json, not ${value}`);
  return value;
}

/** What the commands that list findings print: `routes` and `findings show` stay table|json. */
export type ListingFormat = OutputFormat | 'markdown' | 'sarif';
export const LISTING_FORMATS: readonly ListingFormat[] = ['table', 'json', 'markdown', 'sarif'];

export function parseListingFormat(value: string): ListingFormat {
  if (!(LISTING_FORMATS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`use table, json, markdown or sarif, not ${value}`);
  return value as ListingFormat;
}

/** Commander parser for `--severity` and `--fail-on`: an invalid level is a usage error (exit 64). */
export function parseSeverity(value: string): Severity {
  if (!(SEVERITIES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`use one of ${SEVERITIES.join(', ')}, not ${value}`);
  return value as Severity;
}

/** The options every listing command takes (`--format`, `--severity`, `--fail-on`). */
export interface ListingOptions {
  format: ListingFormat;
  /** Show only findings at or above this severity. */
  severity?: Severity;
  /** Exit 2 only when a shown finding is at or above this severity (default: above info, i.e. low). */
  failOn?: Severity;
}

export function atOrAbove(severity: Severity, minimum: Severity): boolean {
  return severityRank(severity) <= severityRank(minimum);
}

/** The findings `--severity` lets through (all without it). */
export function shownFindings(findings: readonly Finding[], minimum?: Severity): Finding[] {
  return minimum ? findings.filter((finding) => atOrAbove(finding.severity, minimum)) : [...findings];
}

/**
 * Exit codes (DESIGN.md CLI contract): 1 when a scan failed (its scan-failed finding is printed
 * unless --severity hides it; the failure is never hidden), 2 when an open finding that is shown is
 * at or above --fail-on (default: above info), 0 otherwise.
 */
export function exitCodeFor(
  findings: readonly Finding[],
  filter: Pick<ListingOptions, 'severity' | 'failOn'> = {},
): 0 | 1 | 2 {
  const open = findings.filter((finding) => finding.status !== 'resolved');
  if (open.some((finding) => finding.kind === 'scan-failed')) return 1;
  const failOn = filter.failOn ?? 'low';
  if (shownFindings(open, filter.severity).some((finding) => atOrAbove(finding.severity, failOn))) return 2;
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
 * so: by default, what stdout is), as JSON (never coloured, never cut), as Markdown for a pull-request
 * comment or as a SARIF 2.1.0 log (cli/formats/). `listing.severity` keeps those at or above it.
 * Every format shows the findings as presented (presentFinding): redacted once more and as of `now`,
 * whichever command made or read them.
 */
export function renderFindings(
  findings: readonly Finding[],
  format: ListingFormat,
  now = new Date(),
  style: TerminalStyle = terminalFor(),
  listing: { severity?: Severity; sourceRootOf?: (workspace: string) => string | undefined } = {},
): string {
  const sorted = sortFindings(shownFindings(presentFindings(findings, now), listing.severity));
  if (format === 'json') return `${jsonForTerminal(sorted)}\n`;
  if (format === 'sarif')
    return `${jsonForTerminal(sarifLog(sorted, { tool: driftwatchTool(), sourceRootOf: listing.sourceRootOf }))}\n`;
  if (format === 'markdown') return renderMarkdown(sorted, { minimum: listing.severity });
  // As the Markdown says it: a bare "No findings." after --severity hid some (a failed scan among
  // them) would read as "nothing found" about workspaces that were never read.
  if (sorted.length === 0)
    return listing.severity ? `No findings at ${listing.severity} or above.\n` : 'No findings.\n';
  const idLength = shortIdLength(sorted.map((finding) => finding.id));
  const rows = sorted.map((finding) => [
    finding.id.slice(0, idLength),
    finding.severity.toUpperCase(),
    finding.status,
    finding.workspace,
    finding.ruleId,
    resourceLabel(finding),
    // Whole here: renderTable cuts it to the width of a terminal or COLUMNS, and into a pipe a
    // script reads it uncut (docs/cli.md). changeSummary already keeps each value short.
    changeSummary(finding).replace(/\s+/g, ' '),
    age(finding.firstSeenAt, now),
  ]);
  return renderTable(
    ['ID', 'SEVERITY', 'STATUS', 'WORKSPACE', 'RULE', 'RESOURCE', 'WHAT CHANGED', 'AGE'],
    rows,
    {
      style,
      // Ids (a prefix is what commands take), severities, statuses and ages are short and never cut.
      fixed: [0, 1, 2, 7],
      // On a narrow terminal the rule, the status, the age and then the workspace go first: the id
      // leads to all of them (`findings show`).
      droppable: [4, 2, 7, 3],
      paint: (cell, row, column) => (column === 1 ? paintSeverity(cell, sorted[row]!.severity, style) : cell),
    },
  );
}

export interface TableOptions {
  /** Colour and width; default: what stdout is (terminalFor). */
  style?: TerminalStyle;
  /** Columns never shrunk to fit the width (ids, severities). */
  fixed?: readonly number[];
  /**
   * Columns left out, in this order, while the others could not keep 16 characters each in the width
   * (table-fit.ts columnsThatFit): on a narrow terminal a few readable columns beat all of them cut.
   */
  droppable?: readonly number[];
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
      natural[column] = Math.max(natural[column]!, displayWidth(row[column] ?? ''));
  const fixed = new Set(options.fixed ?? []);
  const shown = columnsThatFit(natural, fixed, style.width, options.droppable ?? []);
  const widths = fitWidths(
    shown.map((column) => natural[column]!),
    style.width,
    { fixed: new Set(shown.flatMap((column, index) => (fixed.has(column) ? [index] : []))) },
  );
  const line = (cells: string[], row?: number) =>
    widths
      .map((width, index) => {
        const column = shown[index]!;
        const cell = truncateCell(cells[column] ?? '', width);
        const painted = row === undefined || !options.paint ? cell : options.paint(cell, row, column);
        // Padded by the columns the cell takes on screen, not its UTF-16 length (wide, combining).
        return painted + ' '.repeat(Math.max(0, width - displayWidth(cell)));
      })
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map((row, index) => line(row, index))].join('\n')}\n`;
}

/**
 * How long a finding has been open, for the table's AGE column: "3d", "5h", "12m", "now". In a
 * sentence, use {@link ago}: "now" does not take a suffix.
 */
export function age(since: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - new Date(since).getTime()) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes}m`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)}h`;
  return `${Math.floor(minutes / (24 * 60))}d`;
}

/** {@link age} in running text: "3d ago", "just now" (never "now ago"). */
export function ago(since: string, now: Date): string {
  const shown = age(since, now);
  return shown === 'now' ? 'just now' : `${shown} ago`;
}

/**
 * The SARIF tool: version from package.json (as --version), informationUri from its `homepage` when
 * it has one (none is made up: the log would point readers at a page that is not ours).
 */
function driftwatchTool(): { name: string; version: string; informationUri?: string } {
  let homepage: unknown;
  try {
    ({ homepage } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
      homepage?: unknown;
    });
  } catch {
    homepage = undefined;
  }
  return {
    name: 'driftwatch',
    version: packageVersion(),
    ...(typeof homepage === 'string' && /^https:\/\//.test(homepage) ? { informationUri: homepage } : {}),
  };
}

/**
 * A Terraform root directory as SARIF's artifact URI: relative to the current directory, which is the
 * repository root where code scanning runs (`infra/payments/`); none when it lies outside it.
 */
export function sourceRootUri(dir: string, cwd: string = process.cwd()): string | undefined {
  return directoryUri(relative(cwd, resolve(cwd, dir)));
}

/** The source roots of a registry's workspaces (`source.dir` + `source.path`); none for S3 bundles. */
export function registrySourceRoots(loaded: {
  registry: Pick<Registry, 'workspaces'>;
  dir: string;
}): (workspace: string) => string | undefined {
  return (id) => {
    const source = loaded.registry.workspaces.find((workspace) => workspace.id === id)?.source;
    if (!source || !('dir' in source)) return undefined;
    // source.dir may be absolute: resolved against the registry's directory, not joined to it.
    return sourceRootUri(resolve(loaded.dir, source.dir, source.path ?? '.'));
  };
}
