import { describe, expect, it } from 'vitest';
import { parseStoreLocation } from '../../../functions/adapters/object-store/location.js';
import { ConfigurationError, findingsStoreLocation } from '../../../functions/handlers/env.js';

describe('findings store locations (CLI --store and the handlers share the rule)', () => {
  it('is a bucket without a key prefix, or a directory', () => {
    expect(parseStoreLocation('s3://findings')).toEqual({ bucket: 'findings' });
    expect(parseStoreLocation('s3://findings/')).toEqual({ bucket: 'findings' });
    expect(parseStoreLocation('.driftwatch/store')).toEqual({ dir: '.driftwatch/store' });
    expect(parseStoreLocation('s3://findings/prefix')).toBeUndefined();
    // Another URL is no directory: a scan would have written under ./https:/… and said it had.
    for (const url of [
      'https://findings.example.com/store',
      'S3://findings',
      'gs://findings',
      'file:///tmp/x',
    ])
      expect(parseStoreLocation(url), url).toBeUndefined();
    expect(parseStoreLocation('C:\\driftwatch\\store')).toEqual({ dir: 'C:\\driftwatch\\store' });
  });

  it('handlers take FINDINGS_BUCKET first, then DRIFTWATCH_STORE, and name a bad one', () => {
    expect(findingsStoreLocation({ FINDINGS_BUCKET: 'b', DRIFTWATCH_STORE: '/tmp/x' })).toEqual({
      bucket: 'b',
    });
    expect(findingsStoreLocation({ DRIFTWATCH_STORE: 's3://b/' })).toEqual({ bucket: 'b' });
    expect(findingsStoreLocation({ DRIFTWATCH_STORE: '/tmp/x' })).toEqual({ dir: '/tmp/x' });
    expect(() => findingsStoreLocation({ DRIFTWATCH_STORE: 's3://b/x' })).toThrow(
      /DRIFTWATCH_STORE takes s3:\/\/bucket/,
    );
    expect(() => findingsStoreLocation({})).toThrow(ConfigurationError);
  });
});
