import { reportKey } from '../findings/layout.js';
import type { ObjectStore, PutOptions } from '../findings/object-store.js';
import { renderReport, reportOwners } from './render-report.js';
import { readReportSource, reportDataOf } from './report-data.js';

export interface NightlyReports {
  /** The report for everybody. */
  everyone: string;
  /** Owner id → key of the report with only that owner's findings. */
  owners: Record<string, string>;
  /** Owners whose report could not be written, and why (the others are still written). */
  failed: Array<{ owner: string; reason: string }>;
}

/**
 * WriteReports: after RecordFindings, the HTML report of the store as it now is, for everybody and
 * for each owner, under `reports/scan=<scanId>/`. The digests of the same scan link to these keys,
 * so a report is never overwritten by a later night. One owner's failure (a render error, an owner id
 * that cannot be a key) does not cost the others their report.
 */
export async function writeNightlyReports(objects: ObjectStore, scanId: string): Promise<NightlyReports> {
  // Every report is made from the same current documents and history: read and parse them once.
  const source = await readReportSource(objects);
  const everyone = reportKey(scanId);
  const all = reportDataOf(source);
  await objects.put(everyone, renderReport(all), HTML);
  const result: NightlyReports = { everyone, owners: {}, failed: [] };
  for (const owner of reportOwners(all)) {
    try {
      const key = reportKey(scanId, owner);
      await objects.put(key, renderReport(reportDataOf(source, owner)), HTML);
      result.owners[owner] = key;
    } catch (error) {
      result.failed.push({ owner, reason: (error as Error).message });
    }
  }
  return result;
}

const HTML: PutOptions = { contentType: 'text/html; charset=utf-8' };

/**
 * Each owner's link to their report of this scan, for the digests; owners without a report (or
 * whose id cannot name one) get none, and a link that cannot be made never stops a digest.
 */
export async function reportUrlsOf(
  scanId: string,
  owners: Iterable<string>,
  link: (key: string) => Promise<{ url: string } | undefined>,
): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const owner of new Set(owners)) {
    let key: string;
    try {
      key = reportKey(scanId, owner);
    } catch {
      continue;
    }
    const found = await link(key).catch(() => undefined);
    if (found) urls[owner] = found.url;
  }
  return urls;
}
