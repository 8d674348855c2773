import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { InvalidEventError } from '../../functions/handlers/middleware.js';

const store = mkdtempSync(join(tmpdir(), 'driftwatch-bucket-handlers-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 900_000 } as never;
const LOADERS = {
  'check-backend': () => import('../../functions/handlers/check-backend.js'),
  'observe-locks': () => import('../../functions/handlers/observe-locks.js'),
  'confirm-locks': () => import('../../functions/handlers/confirm-locks.js'),
};
const HANDLERS = Object.keys(LOADERS) as Array<keyof typeof LOADERS>;

async function loadHandler(name: keyof typeof LOADERS) {
  return (await LOADERS[name]()).handler as unknown as (event: unknown, context: never) => Promise<unknown>;
}

describe.each(HANDLERS)('%s handler', (name) => {
  it('fails its cold start without a findings store', async () => {
    vi.stubEnv('FINDINGS_BUCKET', '');
    vi.stubEnv('DRIFTWATCH_STORE', '');
    await expect(loadHandler(name)).rejects.toThrow(/FINDINGS_BUCKET/);
  });

  it('rejects an event that is not a bucket request, naming each field', async () => {
    vi.stubEnv('DRIFTWATCH_STORE', store);
    const handler = await loadHandler(name);
    const error = await handler(
      { scanId: 'has spaces', startedAt: 'yesterday', registry: '', bucket: 'Not_A_Bucket' },
      context,
    ).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('InvalidEventError');
    expect((error as InvalidEventError).problems).toEqual([
      'scanId: letters, digits, - _ . (at most 80)',
      'startedAt: an ISO 8601 timestamp, e.g. 2026-11-29T02:00:00Z',
      'registry: s3://bucket/driftwatch.yaml or a file path',
      'bucket: an S3 bucket name of the registry',
    ]);
  });

  it('refuses a bucket that holds no state of the registry, before reading anything', async () => {
    vi.stubEnv('DRIFTWATCH_STORE', store);
    const handler = await loadHandler(name);
    const event = {
      scanId: 'scan-1',
      startedAt: '2026-11-29T02:00:00Z',
      registry: 'examples/estate/driftwatch.yaml',
      bucket: 'somebody-elses-bucket',
    };
    await expect(handler(event, context)).rejects.toThrow(
      'bucket somebody-elses-bucket holds the state of no workspace in the registry',
    );
  });
});
