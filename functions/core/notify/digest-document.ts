import type { Severity } from '../findings/model.js';
import { limitText, stripForTerminal } from '../text/sanitize.js';
import type { Advice } from './advice.js';
import { type DigestContent, type DigestItem, largestFitting } from './digest-content.js';

/**
 * The digest for machines (HTTPS and SQS subscribers): the finding list as JSON, schema
 * `driftwatch.digest/v1` (docs/notifications.md). Field names are a contract: extend, never rename.
 * Strings are data with terminal controls and bidi controls shown as U+FFFD and line breaks as
 * spaces (a consumer that prints them stays safe), at most DOCUMENT_MAX_TEXT long; the publisher
 * also `\u`-escapes what JSON.stringify leaves raw.
 */
export const DIGEST_DOCUMENT_SCHEMA = 'driftwatch.digest/v1';

export interface DigestDocumentItem {
  id: string;
  shortId: string;
  section: DigestItem['section'];
  severity: Severity;
  kind: string;
  ruleId: string;
  title: string;
  resource: string;
  workspace: string;
  environment?: string;
  what: string;
  whatInWords: string;
  openDays: number;
  advice: Advice;
  /** Shell commands, complete: `driftwatch findings show <id> --store …`, `driftwatch remediate <id> --revert --store …`. */
  commands: string[];
}

export interface DigestDocument {
  schema: typeof DIGEST_DOCUMENT_SCHEMA;
  digestId: string;
  owner: string;
  scanId: string;
  /** The most severe reported finding's (info when only resolved ones). */
  severity: Severity;
  counts: DigestContent['counts'];
  items: DigestDocumentItem[];
  resolved: Array<{ id: string; shortId: string; resource: string; workspace: string }>;
  /** Resolved findings not in `resolved` (`counts.resolved` counts them all). */
  resolvedNotListed?: number;
  /** Findings reported but not in `items`, and the command that lists them all. */
  more?: { count: number; command: string; exact: boolean };
  reportUrl?: string;
}

/**
 * Under SNS's 256 KiB per message with room for the envelope: items past it are counted in
 * `more` instead (a digest holds `maxFindingsPerDigest` items, far below this unless set very high),
 * and resolved findings past what is left in `resolvedNotListed`.
 */
export const DOCUMENT_MAX_BYTES = 200 * 1024;
/**
 * One string's length (UTF-16 code units), cut with `…` past it: a finding's title, address or
 * remediation can be as long as its data (a 1 MB tag value), and one such item alone would leave
 * no room for any other in the list.
 */
export const DOCUMENT_MAX_TEXT = 2000;

const clean = (text: string) => limitText(stripForTerminal(text), DOCUMENT_MAX_TEXT);

export function digestDocument(content: DigestContent): DigestDocument {
  const items = content.items.map(documentItem);
  const resolved = content.resolved.map((entry) => ({
    id: clean(entry.id),
    shortId: clean(entry.shortId),
    resource: clean(entry.resource),
    workspace: clean(entry.workspace),
  }));
  const build = (listed: DigestDocumentItem[], resolvedListed = resolved.length): DigestDocument => {
    const count = content.counts.notListed + content.items.length - listed.length;
    return {
      schema: DIGEST_DOCUMENT_SCHEMA,
      digestId: clean(content.digestId),
      owner: clean(content.owner),
      scanId: clean(content.scanId),
      severity: content.severity,
      counts: content.counts,
      items: listed,
      resolved: resolved.slice(0, resolvedListed),
      ...(resolvedListed < resolved.length ? { resolvedNotListed: resolved.length - resolvedListed } : {}),
      ...(count > 0
        ? { more: { count, command: clean(content.moreCommand), exact: content.moreCommandExact } }
        : {}),
      ...(content.reportUrl ? { reportUrl: clean(content.reportUrl) } : {}),
    };
  };
  const fits = (document: DigestDocument) =>
    Buffer.byteLength(JSON.stringify(document)) <= DOCUMENT_MAX_BYTES;
  // The reported findings first; resolved ones (thousands when a workspace's drift was fixed) in
  // the room left.
  const listed = items.slice(
    0,
    largestFitting(items.length, (count) => fits(build(items.slice(0, count), 0))),
  );
  return build(
    listed,
    largestFitting(resolved.length, (count) => fits(build(listed, count))),
  );
}

function documentItem(item: DigestItem): DigestDocumentItem {
  return {
    id: clean(item.id),
    shortId: clean(item.shortId),
    section: item.section,
    severity: item.severity,
    kind: clean(item.kind),
    ruleId: clean(item.ruleId),
    title: clean(item.title),
    resource: clean(item.resource),
    workspace: clean(item.workspace),
    ...(item.environment ? { environment: clean(item.environment) } : {}),
    what: clean(item.what),
    whatInWords: clean(item.whatInWords),
    openDays: item.openDays,
    advice: {
      source: item.advice.source,
      text: clean(item.advice.text),
      commands: item.advice.commands.map(clean),
    },
    commands: item.commands.map(clean),
  };
}
