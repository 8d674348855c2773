import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../functions/handlers/env.js';
import type { InvalidEventError } from '../../functions/handlers/middleware.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 900_000 } as never;

async function loadHandler() {
  return (await import('../../functions/handlers/scan-terraform.js')).handler;
}

describe('scan-terraform handler', () => {
  it('fails its cold start naming the missing variable', async () => {
    vi.stubEnv('FINDINGS_BUCKET', '');
    vi.stubEnv('DRIFTWATCH_STORE', '');
    vi.stubEnv('DRIFTWATCH_HASH_SALT', 'handler-test-salt-000001');
    await expect(loadHandler()).rejects.toThrow(
      new ConfigurationError('environment variable FINDINGS_BUCKET is required'),
    );
    vi.resetModules();
    vi.stubEnv('FINDINGS_BUCKET', 'findings');
    vi.stubEnv('DRIFTWATCH_HASH_SALT', '');
    await expect(loadHandler()).rejects.toThrow(/DRIFTWATCH_HASH_SALT/);
  });

  it('rejects an event that is not a workspace scan request, naming each field', async () => {
    vi.stubEnv('FINDINGS_BUCKET', 'findings');
    vi.stubEnv('DRIFTWATCH_HASH_SALT', 'handler-test-salt-000001');
    const handler = await loadHandler();
    const error = await handler(
      { scanId: 'has spaces', startedAt: 'yesterday', registry: '', workspace: '../x' } as never,
      context,
    ).catch((caught: unknown) => caught);
    // resetModules gives the handler its own copy of the class: compare by name.
    expect((error as Error).name).toBe('InvalidEventError');
    expect((error as InvalidEventError).problems).toEqual([
      'scanId: letters, digits, - _ . (at most 80)',
      'startedAt: an ISO 8601 timestamp, e.g. 2026-11-29T02:00:00Z',
      'registry: s3://bucket/driftwatch.yaml or a file path',
      'workspace: a workspace id of the registry',
    ]);
  });
});
