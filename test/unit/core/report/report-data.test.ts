import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import { SEVERITIES } from '../../../../functions/core/findings/model.js';
import {
  EmptyStoreError,
  loadReportData,
  type ReportData,
  summarizeReport,
} from '../../../../functions/core/report/report-data.js';
import { type BuiltReportStore, buildReportStore } from './report-store.js';

const root = mkdtempSync(join(tmpdir(), 'driftwatch-report-data-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let built: BuiltReportStore;
let everyone: ReportData;

beforeAll(async () => {
  built = await buildReportStore(join(root, 'store'));
  everyone = await loadReportData(createFsObjectStore(built.dir), {});
});

describe('loadReportData', () => {
  it('reads as of the latest scan: its id and time, never the clock', () => {
    expect(everyone.latestScan?.scanId).toBe(built.latestScanId);
    expect(everyone.latestScan?.startedAt).toBe(built.latestStartedAt);
    // The summary's finish (20 min of scanning + 1 min for the summary after the start).
    expect(everyone.generatedAt).toBe(
      new Date(Date.parse(built.latestStartedAt) + 21 * 60_000).toISOString(),
    );
  });

  it('headline numbers equal those counted from the store itself', async () => {
    const store = createFindingsStore(createFsObjectStore(built.dir), { readOnly: true });
    const open = await store.openFindings();
    const counted = Object.fromEntries(
      SEVERITIES.map((severity) => [
        severity,
        open.filter((finding) => finding.severity === severity && finding.status !== 'suppressed').length,
      ]),
    );
    const lastScan = await store.scanHistory({
      scanId: built.latestScanId,
      startedAt: new Date(built.latestStartedAt),
    });
    const summary = summarizeReport(everyone);
    expect(summary.open).toEqual(counted);
    expect(summary.openTotal).toBe(open.filter((finding) => finding.status !== 'suppressed').length);
    expect(summary.suppressed).toBe(1);
    expect(summary.newTonight).toBe(
      lastScan.filter((finding) => finding.status === 'new' || finding.status === 'regressed').length,
    );
    expect(summary.resolvedTonight).toBe(lastScan.filter((finding) => finding.status === 'resolved').length);
    // The scenario, by hand: a critical deletion-protection change and platform-prod's failure are
    // new tonight; the SQS drift resolved; platform-prod's plan failed.
    expect(summary.newTonight).toBe(2);
    expect(summary.resolvedTonight).toBe(1);
    expect(summary.scanFailures).toBe(1);
    expect(everyone.failures).toEqual([
      expect.objectContaining({
        workspace: 'platform-prod',
        owner: 'platform',
        reason: expect.stringContaining('AccessDenied'),
      }),
    ]);
    // The oldest open drift is the security group opened on night 2 (backend findings are older, not drift).
    expect(summary.oldest?.title).toContain('aws_security_group.api');
    expect(summary.oldest?.ageDays).toBe(built.nights - 1 - 2);
    expect(summary.health.map((finding) => finding.kind).sort()).toEqual(['backend-policy', 'stale-lock']);
  });

  it('trend: the last 30 nights, oldest first, a gap where no scan ran, counts per night by severity', () => {
    expect(everyone.trend).toHaveLength(30);
    expect(everyone.trend.at(-1)?.night).toBe(built.latestStartedAt.slice(0, 10));
    expect(everyone.trend[0]?.night).toBe(
      new Date(Date.parse(built.latestStartedAt) - 29 * 86_400_000).toISOString().slice(0, 10),
    );
    const gap = everyone.trend.filter((night) => !night.scanned).map((night) => night.night);
    expect(gap).toEqual(['2026-11-01']); // night 12 of the store has no scan
    // Last night: the critical change, the high scan failure, the security group, the bucket
    // versioning, the stale lock; medium: the ledger tag and data-dev's grown drift. platform-prod's
    // IAM drift was not seen (its plan failed), as in the scan summary.
    expect(everyone.trend.at(-1)?.bySeverity).toEqual({ critical: 1, high: 4, medium: 2, low: 0, info: 0 });
    // Two nights before: the SQS drift (low) still open, data-dev low.
    expect(everyone.trend.at(-4)?.bySeverity).toEqual({ critical: 0, high: 2, medium: 2, low: 2, info: 0 });
  });

  it('orders findings most severe first, then workspace, then id, and shows the resolved-tonight one', () => {
    const keys = everyone.findings.map((finding) => [
      SEVERITIES.indexOf(finding.severity),
      finding.workspace,
      finding.id,
    ]);
    const sorted = [...keys].sort((a, b) =>
      a[0] !== b[0]
        ? Number(a[0]) - Number(b[0])
        : a[1] !== b[1]
          ? a[1]! < b[1]!
            ? -1
            : 1
          : a[2]! < b[2]!
            ? -1
            : 1,
    );
    expect(keys).toEqual(sorted);
    expect(
      everyone.findings.filter((finding) => finding.status === 'resolved').map((finding) => finding.title),
    ).toEqual([expect.stringContaining('aws_sqs_queue.jobs')]);
  });

  it('history per finding keeps the first night, every change, and the latest', () => {
    const grown = everyone.findings.find((finding) => finding.workspace === 'data-dev')!;
    const history = everyone.history[grown.id]!;
    expect(history.map((entry) => [entry.status, entry.severity])).toEqual([
      ['new', 'low'],
      ['ongoing', 'low'],
      ['changed', 'medium'],
      ['ongoing', 'medium'],
      ['ongoing', 'medium'],
    ]);
    expect(history.at(-1)?.scanId).toBe(built.latestScanId);
    expect(history[0]?.night).toBe(everyone.trend.at(-6)?.night);
  });

  it("an owner's report has only that owner's findings, failures and trend, and still lists every owner", async () => {
    const payments = await loadReportData(createFsObjectStore(built.dir), { owner: 'payments' });
    expect(payments.owner).toBe('payments');
    expect(payments.findings.length).toBeGreaterThan(0);
    expect(payments.findings.every((finding) => finding.owner === 'payments')).toBe(true);
    expect(
      Object.keys(payments.history).every((id) => payments.findings.some((finding) => finding.id === id)),
    ).toBe(true);
    expect(payments.failures).toEqual([]);
    expect(payments.owners).toEqual(['data', 'payments', 'platform']);
    expect(payments.trend.at(-1)?.bySeverity).toEqual({ critical: 1, high: 1, medium: 1, low: 0, info: 0 });
    const platform = await loadReportData(createFsObjectStore(built.dir), { owner: 'platform' });
    expect(platform.failures.map((failure) => failure.workspace)).toEqual(['platform-prod']);
    expect(platform.findings.every((finding) => finding.owner === 'platform')).toBe(true);
  });

  it('the same store reads the same data', async () => {
    expect(await loadReportData(createFsObjectStore(built.dir), {})).toEqual(everyone);
  });

  it('an empty store is an error, never an empty report', async () => {
    mkdirSync(join(root, 'empty'));
    await expect(loadReportData(createFsObjectStore(join(root, 'empty')), {})).rejects.toBeInstanceOf(
      EmptyStoreError,
    );
  });

  it('lists a corrupt current document as unreadable and leaves it where it is (read-only)', async () => {
    const dir = join(root, 'corrupt');
    await buildReportStore(dir, { nights: 3 });
    writeFileSync(join(dir, 'current', 'zz-broken.json'), '{"workspace": "zz-broken", trunc');
    const data = await loadReportData(createFsObjectStore(dir), {});
    expect(data.unreadable).toEqual([
      expect.objectContaining({ key: 'current/zz-broken.json', what: 'current document' }),
    ]);
    expect(data.findings.length).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'current', 'zz-broken.json'))).toBe(true);
    expect(existsSync(join(dir, 'quarantine'))).toBe(false);
  });
});
