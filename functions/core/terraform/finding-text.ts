import { formatPath, isIdentifier } from './attribute-path.js';
import type { CompactAttributeChange } from './plan-model.js';
import { listPaths } from './remediation.js';

/** Short, chat-sized titles and one-paragraph details. Values never appear here, only paths. */

/** `ingress, tags.Owner and 2 more`: top-level attributes, with the tag key for tags. */
export function changedAttributesSummary(changes: readonly CompactAttributeChange[], limit = 3): string {
  const names: string[] = [];
  for (const change of changes) {
    const name = summaryName(change);
    if (name !== '' && !names.includes(name)) names.push(name);
  }
  if (names.length <= limit) return names.join(', ');
  return `${names.slice(0, limit).join(', ')} and ${names.length - limit} more`;
}

function summaryName(change: CompactAttributeChange): string {
  const { segments } = change;
  const top = segments[0];
  if (typeof top === 'string' && isIdentifier(top)) {
    return top === 'tags' && segments.length > 1 ? formatPath(segments.slice(0, 2)) : top;
  }
  return formatPath(segments.slice(0, 1));
}

export function withAttributes(title: string, changes: readonly CompactAttributeChange[]): string {
  const summary = changedAttributesSummary(changes);
  return summary === '' ? title : `${title}: ${summary}`;
}

export function pathsSentence(changes: readonly CompactAttributeChange[]): string {
  if (changes.length === 0) return '';
  let sensitive = 0;
  for (const change of changes) if (change.sensitive) sensitive++;
  const note = sensitive > 0 ? ` (${sensitive} sensitive, shown as hashes)` : '';
  const paths =
    changes.length === 1
      ? changes[0]!.path || '(whole value)'
      : listPaths(changes.map((change) => change.path));
  return ` Changed: ${paths}${note}.`;
}

export function noiseSentence(removedPaths: number): string {
  return removedPaths > 0 ? ` ${removedPaths} further change(s) were recognised as noise and left out.` : '';
}
