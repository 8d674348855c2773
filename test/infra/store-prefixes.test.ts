import { describe, expect, it } from 'vitest';
import { STORE_TOP_LEVEL_PREFIXES } from '../../functions/core/findings/layout.js';
import { FINDINGS_PREFIXES } from '../../infra/constructs/findings-storage.js';

describe('the findings store layout', () => {
  // `findings --store s3://…` takes a bucket holding objects outside these prefixes (and no scan) for
  // another bucket (cli/recorded-store.ts): a prefix the stack adds must be known there too.
  it('knows every top-level prefix the deployed findings bucket writes under', () => {
    expect([...STORE_TOP_LEVEL_PREFIXES].sort()).toEqual(Object.values(FINDINGS_PREFIXES).sort());
  });
});
