import { limitText, visibleValue } from '../text/sanitize.js';
import type { Finding, JsonValue } from './model.js';

/** How findings read in a table or a chat line: short, one line, values already redacted. */

export function resourceLabel(finding: Pick<Finding, 'resource' | 'workspace'>): string {
  const resource = finding.resource;
  if (!resource) return finding.workspace;
  if ('address' in resource) return resource.address;
  if ('bucket' in resource) return `s3://${resource.bucket}/${resource.key ?? ''}`;
  return `${resource.kind}/${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`;
}

/** `tags.Owner: payments → finance; ingress[0]: null → {...}` for the first changes, else the title. */
export function changeSummary(
  finding: Pick<Finding, 'drift' | 'title'>,
  maxChanges = 2,
  valueLength = 28,
): string {
  const changes = finding.drift?.changes ?? [];
  if (changes.length === 0) return finding.title;
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
