import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReportLinker,
  DEFAULT_LINK_HOURS,
  MAX_LINK_HOURS,
  reportLinkerAt,
  reportLinkHours,
} from '../../../functions/adapters/report-links.js';
import { reportUrlsOf } from '../../../functions/core/report/nightly-reports.js';

const s3 = new S3Client({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret-key-0000000000' },
});
const s3Mock = mockClient(s3);
afterEach(() => s3Mock.reset());

const KEY = 'reports/scan=20261129T020000Z-sample/owners/payments.html';
const NOW = new Date('2026-11-29T02:30:00Z');
const serviceError = (name: string, status: number) =>
  new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status } });

describe('report links (a presigned GET of one report)', () => {
  it('signs a GET of exactly that object, shown inline as HTML, for the hours asked', async () => {
    s3Mock.on(HeadObjectCommand, { Bucket: 'findings', Key: KEY }).resolves({});
    const link = await createReportLinker(s3, { bucket: 'findings', hours: 12, now: () => NOW })(KEY);
    expect(link).toBeDefined();
    const url = new URL(link!.url);
    expect(url.protocol).toBe('https:');
    expect(`${url.hostname}${decodeURIComponent(url.pathname)}`).toContain(`findings`);
    expect(decodeURIComponent(url.pathname)).toContain(KEY);
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(12 * 3600));
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('response-content-type')).toBe('text/html; charset=utf-8');
    expect(url.searchParams.get('response-content-disposition')).toBe('inline');
    // Only reading is signed: a GET, no other method or object.
    expect(url.searchParams.get('x-id')).toBe('GetObject');
    expect(link!.expiresAt?.toISOString()).toBe('2026-11-29T14:30:00.000Z');
  });

  it('gives no link when the report is not there (404, or 403 without s3:ListBucket)', async () => {
    const linker = createReportLinker(s3, { bucket: 'findings', now: () => NOW });
    s3Mock
      .on(HeadObjectCommand)
      .rejectsOnce(serviceError('NotFound', 404))
      .rejectsOnce(serviceError('Forbidden', 403));
    expect(await linker(KEY)).toBeUndefined();
    expect(await linker(KEY)).toBeUndefined();
    expect(s3Mock.commandCalls(HeadObjectCommand)).toHaveLength(2);
  });

  it('lets other errors through (a throttled or failing S3 is not "no report")', async () => {
    s3Mock.on(HeadObjectCommand).rejects(serviceError('InternalError', 500));
    await expect(createReportLinker(s3, { bucket: 'findings' })(KEY)).rejects.toThrow();
  });

  it('refuses a validity SigV4 cannot sign', () => {
    expect(() => createReportLinker(s3, { bucket: 'findings', hours: MAX_LINK_HOURS + 1 })).toThrow(
      /between 1 second and 168 hours/,
    );
    expect(() => createReportLinker(s3, { bucket: 'findings', hours: 0 })).toThrow(RangeError);
  });
});

describe('report links by store location', () => {
  it('a local store links to the report file when it is there, and to nothing otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch links '));
    try {
      mkdirSync(join(dir, 'reports/scan=s1/owners'), { recursive: true });
      writeFileSync(join(dir, KEY.replace('20261129T020000Z-sample', 's1')), '<!doctype html>');
      const link = reportLinkerAt(dir, () => s3);
      const found = await link('reports/scan=s1/owners/payments.html');
      expect(found?.url).toMatch(/^file:\/\//);
      expect(fileURLToPath(found!.url)).toBe(join(dir, 'reports/scan=s1/owners/payments.html'));
      expect(await link('reports/scan=s1/owners/platform.html')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bucket store presigns', async () => {
    s3Mock.on(HeadObjectCommand).resolves({});
    const found = await reportLinkerAt('s3://findings/', () => s3)(KEY);
    expect(new URL(found!.url).searchParams.get('X-Amz-Expires')).toBe(String(DEFAULT_LINK_HOURS * 3600));
  });

  it('each owner of the scan gets the link to their own report; owners without one get none', async () => {
    const asked: string[] = [];
    const urls = await reportUrlsOf(
      's1',
      ['payments', 'platform', 'payments', 'Not An Id', 'broken'],
      async (key) => {
        asked.push(key);
        if (key.endsWith('/broken.html')) throw new Error('SlowDown');
        return key.endsWith('/platform.html') ? undefined : { url: `https://example.test/${key}` };
      },
    );
    expect(urls).toEqual({ payments: 'https://example.test/reports/scan=s1/owners/payments.html' });
    // Each owner once; an id that cannot name a key is not asked for.
    expect(asked).toEqual([
      'reports/scan=s1/owners/payments.html',
      'reports/scan=s1/owners/platform.html',
      'reports/scan=s1/owners/broken.html',
    ]);
  });

  it('REPORT_LINK_HOURS: the default when unset, a clear error when out of range', () => {
    expect(reportLinkHours(undefined)).toBe(DEFAULT_LINK_HOURS);
    expect(reportLinkHours('24')).toBe(24);
    expect(() => reportLinkHours('0')).toThrow(/REPORT_LINK_HOURS takes hours between 1 and 168, not 0/);
    expect(() => reportLinkHours('a week')).toThrow(/not a week/);
  });
});
