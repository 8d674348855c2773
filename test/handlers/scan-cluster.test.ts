import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InvalidEventError } from '../../functions/handlers/middleware.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 900_000 } as never;

describe('scan-cluster handler', () => {
  it('rejects an event that is not a cluster scan request, naming each field', async () => {
    vi.stubEnv('FINDINGS_BUCKET', 'findings');
    vi.stubEnv('DRIFTWATCH_HASH_SALT', 'handler-test-salt-000001');
    const { handler } = await import('../../functions/handlers/scan-cluster.js');
    const error = await handler(
      { scanId: 'has spaces', startedAt: 'yesterday', registry: '', cluster: '../x' } as never,
      context,
    ).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('InvalidEventError');
    expect((error as InvalidEventError).problems).toEqual([
      'scanId: letters, digits, - _ . (at most 80)',
      'startedAt: an ISO 8601 timestamp, e.g. 2026-11-29T02:00:00Z',
      'registry: s3://bucket/driftwatch.yaml or a file path',
      'cluster: a cluster id of the registry',
    ]);
  });
});
