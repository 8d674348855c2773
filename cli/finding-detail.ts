import { resourceLabel } from '../functions/core/findings/describe.js';
import type { Finding, FindingStatus, JsonValue } from '../functions/core/findings/model.js';
import { redactText } from '../functions/core/redaction/secrets.js';
import { stripForTerminal, visibleValue } from '../functions/core/text/sanitize.js';
import { dayOf, expiredSuppressionOf } from './finding-view.js';
import { ago } from './output.js';
import { truncateCell } from './table-fit.js';
import { bold, dim, PLAIN, paintSeverity, type TerminalStyle } from './terminal.js';

/** A value longer than this is cut in the readable view; `--format json` has it whole. */
export const MAX_VALUE_LENGTH = 500;

/** One run of scans in which the finding kept the same status. */
export interface HistorySpan {
  status: FindingStatus;
  from: string;
  to: string;
  scans: number;
}

/**
 * The finding's history lines (one per scan that saw it, any order) as spans of equal status, oldest
 * first: a finding open for a month reads as "new, then ongoing for 29 scans", not 30 lines.
 */
export function historySpans(lines: readonly Finding[]): HistorySpan[] {
  const ordered = [...lines].sort((a, b) => a.lastSeenAt.localeCompare(b.lastSeenAt));
  const spans: HistorySpan[] = [];
  for (const line of ordered) {
    const at = line.status === 'resolved' ? (line.resolvedAt ?? line.lastSeenAt) : line.lastSeenAt;
    const last = spans.at(-1);
    if (last && last.status === line.status) {
      last.to = at;
      last.scans++;
    } else spans.push({ status: line.status, from: at, to: at, scans: 1 });
  }
  return spans;
}

/**
 * One finding for a person: what, where, whose, since when, what changed, the evidence, its history
 * and what to do. Every piece of data is stripped for the terminal (and free text passed through the
 * credential rules once more: stored findings are redacted already, this is the second lock); colour
 * is added around the cleaned text only.
 */
export function renderFindingDetail(
  finding: Finding,
  history: readonly Finding[],
  now: Date,
  style: TerminalStyle = PLAIN,
): string {
  const clean = (text: string) => stripForTerminal(redactText(text));
  const cleanBlock = (text: string, indent: string) =>
    stripForTerminal(redactText(text), { multiline: true }).replace(/\n/g, `\n${indent}`);
  const out: string[] = [];
  const field = (label: string, value: string) => out.push(`  ${dim(label.padEnd(12), style)} ${value}`);

  out.push(bold(clean(finding.title), style));
  field('id', finding.id);
  field('severity', paintSeverity(finding.severity.toUpperCase(), finding.severity, style));
  const suppression = finding.suppression;
  const expired = finding.status === 'resolved' ? undefined : expiredSuppressionOf(finding);
  field(
    'status',
    suppression
      ? `${finding.status} until ${clean(suppression.until.slice(0, 10))} by ${clean(suppression.by)}: ${clean(suppression.reason)}`
      : expired
        ? `${finding.status} (open again: the suppression by ${clean(expired.by)} expired on ${clean(dayOf(expired.until))}: ${clean(expired.reason)})`
        : finding.status,
  );
  field('kind', `${finding.kind} (${clean(finding.ruleId)})`);
  field(
    'workspace',
    `${clean(finding.workspace)}${finding.environment ? ` (${clean(finding.environment)})` : ''}`,
  );
  field('owner', finding.owner ? clean(finding.owner) : '(none: the fallback owner is told)');
  field('resource', clean(resourceDescription(finding)));
  field('first seen', `${finding.firstSeenAt} (${ago(finding.firstSeenAt, now)})`);
  // A resolved line's scan is the one that resolved it, which did not see it.
  const resolved = finding.status === 'resolved';
  field(
    'last seen',
    resolved ? finding.lastSeenAt : `${finding.lastSeenAt} in scan ${clean(finding.scanId)}`,
  );
  if (finding.resolvedAt)
    field(
      'resolved',
      resolved ? `${finding.resolvedAt} in scan ${clean(finding.scanId)}` : finding.resolvedAt,
    );

  if (finding.detail.trim()) out.push('', `  ${cleanBlock(finding.detail.trim(), '  ')}`);

  const changes = finding.drift?.changes ?? [];
  if (finding.drift) {
    out.push('', bold(`Changes (${finding.drift.action})`, style));
    if (changes.length === 0) out.push('  (no attribute changes recorded)');
    for (const change of changes)
      out.push(
        `  ${clean(change.path === '' ? '(whole value)' : change.path)}: ${shownValue(change.before)} → ${shownValue(change.after)}${change.sensitive ? dim(' (sensitive: only a hash is kept)', style) : ''}`,
      );
  }

  const evidence = Object.entries(finding.evidence ?? {});
  if (evidence.length > 0) {
    out.push('', bold('Evidence', style));
    for (const [key, value] of evidence) out.push(`  ${clean(key)}: ${shownValue(value as JsonValue)}`);
  }

  out.push('', bold('History', style));
  const spans = historySpans(history);
  if (spans.length === 0)
    out.push(`  no scan history in the store's recent scans; first seen ${finding.firstSeenAt}`);
  for (const span of spans)
    out.push(
      span.scans === 1
        ? `  ${span.from}  ${span.status}`
        : `  ${span.from} … ${span.to}  ${span.status} (${span.scans} scans)`,
    );

  out.push('', bold('Remediation', style), `  ${cleanBlock(finding.remediation.summary, '  ')}`);
  finding.remediation.steps.forEach((step, index) => {
    out.push(`  ${index + 1}. ${cleanBlock(step, '     ')}`);
  });
  return `${out.join('\n')}\n`;

  // Invisible characters written out, so two values that differ always read differently.
  function shownValue(value: JsonValue | undefined): string {
    return truncateCell(clean(value === undefined ? 'undefined' : visibleValue(value)), MAX_VALUE_LENGTH);
  }
}

function resourceDescription(finding: Finding): string {
  const resource = finding.resource;
  if (!resource) return resourceLabel(finding);
  if ('address' in resource) {
    const extra = [
      resource.type,
      resource.provider,
      resource.movedFrom && `moved from ${resource.movedFrom}`,
    ];
    return `${resource.address} (${extra.filter(Boolean).join(', ')})`;
  }
  if ('bucket' in resource) {
    const extra = [
      resource.lockTable && `lock table ${resource.lockTable}`,
      resource.lockId && `lock ${resource.lockId}`,
    ];
    const label = resourceLabel(finding);
    const details = extra.filter(Boolean).join(', ');
    return details ? `${label} (${details})` : label;
  }
  return `${resourceLabel(finding)}${resource.app ? ` (app ${resource.app}, ${resource.group || 'core'})` : ''}`;
}
