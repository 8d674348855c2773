import type { Finding, Severity } from '../findings/model.js';
import type { Advice } from './advice.js';

/** What a digest is made of, before it is rendered for chat, e-mail and machines (digest.ts). */

export interface DigestCounts {
  new: number;
  changed: number;
  regressed: number;
  resolved: number;
  reminders: number;
  /** Reported findings beyond `maxFindingsPerDigest` (a body may list fewer still). */
  notListed: number;
}

/**
 * One finding as every body of a digest lists it: the facts, the rule's advice and the commands
 * to go further. Plain data: each body escapes it for its reader.
 */
export interface DigestItem {
  id: string;
  /** The id as `driftwatch findings` shows it (12 characters, more when ids of the scan collide). */
  shortId: string;
  /** Why it is in the digest: new, changed, regressed, or a reminder of an ongoing one. */
  section: 'new' | 'changed' | 'regressed' | 'reminder';
  severity: Severity;
  kind: Finding['kind'];
  ruleId: string;
  title: string;
  /** The resource as tables show it: a Terraform address, s3://bucket/key, Kind/namespace/name. */
  resource: string;
  workspace: string;
  environment?: string;
  /** What changed, short (values are redacted in findings already). */
  what: string;
  /** The same in words: scalar values as they are, a structured value (JSON) by its path alone. */
  whatInWords: string;
  openDays: number;
  advice: Advice;
  /** `driftwatch findings show <id>`, and `driftwatch remediate <id>` where there is a revert or adopt. */
  commands: string[];
}

/** What every body is rendered from. */
export interface DigestContent {
  owner: string;
  scanId: string;
  digestId: string;
  severity: Severity;
  /** Counts by section; `notListed` by the digest's item limit (a body may list fewer still). */
  counts: DigestCounts;
  /** Reported findings, most severe first within each section, at most `maxFindingsPerDigest`. */
  items: DigestItem[];
  resolved: Array<Pick<DigestItem, 'id' | 'shortId' | 'resource' | 'workspace'>>;
  /** Lists everything reported, for the "+N more" line: runs as printed. */
  moreCommand: string;
  /** How many findings `moreCommand` lists, when it lists exactly the reported ones. */
  moreCommandExact: boolean;
  reportUrl?: string;
}

/**
 * The most items (0…count) a body can list within its size limit, `fits` being true for a prefix
 * of the items when it is for any shorter one: a binary search, so a digest allowed thousands of
 * items renders each body a dozen times, not thousands.
 */
export function largestFitting(count: number, fits: (count: number) => boolean): number {
  if (fits(count)) return count;
  let low = 0;
  let high = count;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return low;
}

export const SECTION_HEADINGS: Readonly<Record<DigestItem['section'], string>> = {
  new: 'New',
  changed: 'Changed',
  regressed: 'Regressed (resolved before, back now)',
  reminder: 'Still open',
};
