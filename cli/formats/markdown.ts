import { changeSummary, resourceLabel, truncate } from '../../functions/core/findings/describe.js';
import { type Finding, type Severity, severityRank } from '../../functions/core/findings/model.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { shortIdLength } from '../finding-ids.js';

/**
 * GitHub refuses a comment body over 65,536 characters ("Body is too long"), so a CI step posting
 * the output of a large plan failed and the pull request got no comment at all. The table stops
 * below the limit, with room left for a heading or footer the pipeline adds around it.
 */
export const MARKDOWN_MAX_CHARS = 60_000;

/**
 * Findings as GitHub-flavoured Markdown for a pull-request comment: a one-line summary, then a table.
 * Every cell is data (addresses, titles, values from plans and clusters): it is escaped so that it
 * cannot end its cell, its row or the table, open a code span, form a link, an image, a mention or
 * HTML. The caller passes findings already sorted (output.ts sortFindings) and filtered, so when the
 * table must stop at `maxChars` the rows left out are the least severe; a last line counts them.
 */
export function renderMarkdown(
  findings: readonly Finding[],
  options: { minimum?: Severity; maxChars?: number } = {},
): string {
  if (findings.length === 0)
    return options.minimum && options.minimum !== 'info'
      ? `No findings at ${options.minimum} or above.\n`
      : 'No findings.\n';
  const idLength = shortIdLength(findings.map((finding) => finding.id));
  const header =
    '| ID | Severity | Status | Workspace | Rule | Resource | What changed |\n| --- | --- | --- | --- | --- | --- | --- |';
  const rows = findings.map(
    (finding) =>
      `| ${[
        code(finding.id.slice(0, idLength)),
        finding.severity,
        finding.status,
        escapeMarkdownCell(finding.workspace),
        code(finding.ruleId),
        code(resourceLabel(finding)),
        escapeMarkdownCell(truncate(changeSummary(finding), 120)),
      ].join(' | ')} |`,
  );
  const head = `${markdownSummary(findings)}\n\n${header}\n`;
  const maxChars = options.maxChars ?? MARKDOWN_MAX_CHARS;
  let length = head.length;
  let shown = 0;
  for (const row of rows) {
    // Room is kept for the note that counts the rows left out, whatever it will say.
    if (length + row.length + 1 + OMITTED_NOTE_ROOM > maxChars) break;
    length += row.length + 1;
    shown++;
  }
  const table = `${head}${rows.slice(0, shown).join('\n')}\n`;
  if (shown === rows.length) return table;
  return `${table}\n${omittedNote(findings.slice(shown))}\n`;
}

/** The longest omittedNote can be: seven counts of up to seven digits each, and its fixed text. */
const OMITTED_NOTE_ROOM = 400;

function omittedNote(omitted: readonly Pick<Finding, 'severity' | 'status'>[]): string {
  const noun = omitted.length === 1 ? 'finding' : 'findings';
  return `_…and ${omitted.length} more ${noun} not shown (${countsByStatus(omitted)}): a GitHub comment holds at most 65,536 characters. \`--format json\` or \`--format sarif\` lists them all; \`--severity <level>\` shortens this table._`;
}

/**
 * "3 findings: 1 critical, 2 medium" (severities most severe first, only those present). Resolved and
 * suppressed findings (`--status resolved`, `--status all`) are counted apart, after the open ones:
 * "3 findings: 1 critical; 1 resolved, 1 suppressed", so a comment never calls them open problems.
 */
export function markdownSummary(findings: readonly Pick<Finding, 'severity' | 'status'>[]): string {
  const noun = findings.length === 1 ? 'finding' : 'findings';
  return `${findings.length} ${noun}: ${countsByStatus(findings)}`;
}

/** "1 critical, 2 medium; 1 resolved": open findings by severity, then resolved and suppressed ones. */
function countsByStatus(findings: readonly Pick<Finding, 'severity' | 'status'>[]): string {
  const counts = new Map<Severity, number>();
  let resolved = 0;
  let suppressed = 0;
  for (const finding of findings) {
    if (finding.status === 'resolved') resolved++;
    else if (finding.status === 'suppressed') suppressed++;
    else counts.set(finding.severity, (counts.get(finding.severity) ?? 0) + 1);
  }
  const open = [...counts]
    .sort(([a], [b]) => severityRank(a) - severityRank(b))
    .map(([severity, count]) => `${count} ${severity}`);
  const closed = [
    ...(resolved > 0 ? [`${resolved} resolved`] : []),
    ...(suppressed > 0 ? [`${suppressed} suppressed`] : []),
  ];
  return [open.join(', '), closed.join(', ')].filter(Boolean).join('; ');
}

/**
 * One piece of data as the text of a Markdown table cell (GitHub-flavoured): on one line (controls
 * and bidi controls replaced as on a terminal), with `\` and every character Markdown or GitHub give a
 * meaning escaped, so that it reads as the literal text:
 * - `|` would end the cell; a backslash before it is GFM's own escape inside tables;
 * - `` ` `` would open a code span, `*` `_` `~` emphasis or strike-through, `[` `]` `!` links and images;
 * - `<` `>` `&` would start HTML or an entity (GitHub renders a subset of HTML in comments);
 * - `@` and `#` would mention a user or team, or link an issue: an escaped one does not.
 */
export function escapeMarkdownCell(text: string): string {
  return stripForTerminal(text)
    .replace(/[\\`*_[\]!|~@#]/g, (char) => `\\${char}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * Data as inline code in a cell: a code span shows its text literally (no emphasis, links, HTML or
 * mentions), so only what would end it matters. Backticks in the data cannot be escaped inside a
 * span: the fence is one backtick longer than the longest run in the text (CommonMark), padded with
 * spaces when the text starts or ends with one. `|` still ends a GFM table cell inside a span unless
 * escaped, and GitHub shows `\|` there as `|`.
 */
export function code(text: string): string {
  const clean = stripForTerminal(text).replace(/\|/g, '\\|');
  if (clean === '') return '';
  const longest = Math.max(0, ...[...clean.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}
