import { limitText, visibleValue } from '../text/sanitize.js';
import type { Finding, JsonValue } from './model.js';

/** How findings read in a table or a chat line: short, one line, values already redacted. */

/**
 * What a finding is about, in one line. A label with invisible characters (a lock key holding an
 * escape sequence) is shown as visibleValue shows values: stripped, it would name another key.
 */
export function resourceLabel(finding: Pick<Finding, 'resource' | 'workspace'>): string {
  const resource = finding.resource;
  if (!resource) return visibleLabel(finding.workspace);
  if ('address' in resource) return visibleLabel(resource.address);
  if ('bucket' in resource) return visibleLabel(`s3://${resource.bucket}/${resource.key ?? ''}`);
  return visibleLabel(
    `${resource.kind}/${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`,
  );
}

/** The label itself when it reads as it is (an empty one too: `s3://b/` is not empty). */
function visibleLabel(label: string): string {
  return label === '' ? label : visibleValue(label);
}

/** `tags.Owner: payments → finance; ingress[0]: null → {...}` for the first changes, else the title. */
export function changeSummary(
  finding: Pick<Finding, 'drift' | 'title'> & Partial<Pick<Finding, 'ruleId' | 'evidence'>>,
  maxChanges = 2,
  valueLength = 28,
): string {
  const changes = finding.drift?.changes ?? [];
  if (changes.length === 0) return failedCheckMessage(finding) ?? finding.title;
  const shown = changes
    .slice(0, maxChanges)
    .map(
      (change) =>
        // The whole value (an output's path is '') reads as the values alone, not ": a → b".
        `${change.path === '' ? '' : `${change.path}: `}${shortValue(change.before, valueLength)} → ${shortValue(change.after, valueLength)}`,
    )
    .join('; ');
  return changes.length > maxChanges ? `${shown}; +${changes.length - maxChanges} more` : shown;
}

/**
 * What a failed check says (its first message, redacted when the plan was read): what a table or a
 * digest line shows of it, the title being only which check failed. Display only: the finding's value
 * hash leaves it out, so a message that names a live value does not make the finding "changed".
 */
function failedCheckMessage(finding: Partial<Pick<Finding, 'ruleId' | 'evidence'>>): string | undefined {
  if (finding.ruleId !== 'drift.check-failed') return undefined;
  const messages = finding.evidence?.messages;
  const first = Array.isArray(messages) ? messages[0] : undefined;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/** A value in at most `max` characters, on one line, invisible characters made visible (visibleValue). */
export function shortValue(value: JsonValue, max: number): string {
  return limitText(visibleValue(value), max);
}

export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

const DAY_MS = 24 * 60 * 60_000;

/** Whole calendar days (UTC) from an instant's date to another's: how long a finding has been open. */
export function openDays(firstSeenAt: string, now: Date): number {
  return Math.floor(
    (Date.parse(now.toISOString().slice(0, 10)) - Date.parse(firstSeenAt.slice(0, 10))) / DAY_MS,
  );
}
