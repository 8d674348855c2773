import type { Severity } from '../findings/model.js';
import { stripForTerminal } from '../text/sanitize.js';
import type { Advice } from './advice.js';
import { type DigestContent, type DigestItem, largestFitting } from './digest-content.js';

/**
 * The digest for machines (HTTPS and SQS subscribers): the finding list as JSON, schema
 * `driftwatch.digest/v1` (docs/notifications.md). Field names are a contract: extend, never rename.
 * Strings are data with terminal controls and bidi controls shown as U+FFFD and line breaks as
 * spaces (a consumer that prints them stays safe); the publisher also `\u`-escapes what
 * JSON.stringify leaves raw.
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
  /** Shell commands, complete: `driftwatch findings show <id> --store …`, `driftwatch remediate <id> --store …`. */
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
  /** Findings reported but not in `items`, and the command that lists them all. */
  more?: { count: number; command: string; exact: boolean };
  reportUrl?: string;
}

/**
 * Under SNS's 256 KiB per message with room for the envelope: items past it are counted in
 * `more` instead (a digest holds `maxFindingsPerDigest` items, far below this unless set very high).
 */
export const DOCUMENT_MAX_BYTES = 200 * 1024;

const clean = (text: string) => stripForTerminal(text);

export function digestDocument(content: DigestContent): DigestDocument {
  const items = content.items.map(documentItem);
  const resolved = content.resolved.map((entry) => ({
    id: clean(entry.id),
    shortId: clean(entry.shortId),
    resource: clean(entry.resource),
    workspace: clean(entry.workspace),
  }));
  const build = (listed: DigestDocumentItem[]): DigestDocument => {
    const count = content.counts.notListed + content.items.length - listed.length;
    return {
      schema: DIGEST_DOCUMENT_SCHEMA,
      digestId: clean(content.digestId),
      owner: clean(content.owner),
      scanId: clean(content.scanId),
      severity: content.severity,
      counts: content.counts,
      items: listed,
      resolved,
      ...(count > 0
        ? { more: { count, command: clean(content.moreCommand), exact: content.moreCommandExact } }
        : {}),
      ...(content.reportUrl ? { reportUrl: clean(content.reportUrl) } : {}),
    };
  };
  const fits = (count: number) =>
    Buffer.byteLength(JSON.stringify(build(items.slice(0, count)))) <= DOCUMENT_MAX_BYTES;
  return build(items.slice(0, largestFitting(items.length, fits)));
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
