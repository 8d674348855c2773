import { describe, expect, it } from 'vitest';
import { SAFE_ID } from '../../../../functions/core/registry/model.js';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { bucketOwnership, bucketScope, stateBuckets } from '../../../../functions/core/routing/scopes.js';

const registry = parseRegistry(`
version: 1
owners:
  fallback: platform
  teams:
    - { id: platform, destinations: [{ type: email, address: p@example.com }] }
    - { id: payments, destinations: [{ type: email, address: q@example.com }] }
workspaces:
  - { id: pay-prod, owner: payments, environment: prod, source: { dir: a }, backend: { bucket: tfstate, key: pay.tfstate, region: eu-west-1 } }
  - { id: pay-blue, owner: payments, environment: staging, source: { dir: a }, backend: { bucket: tfstate, key: pay.tfstate, region: eu-west-1, workspace: blue, lockTable: locks } }
  - { id: net, owner: platform, environment: staging, source: { dir: b }, backend: { bucket: tfstate-net, key: net.tfstate, region: us-east-1 } }
`);

describe('scopes', () => {
  it('names a bucket scope that is a safe key part, even for the longest bucket names', () => {
    expect(bucketScope('tfstate')).toBe('s3.tfstate');
    const long = bucketScope('a'.repeat(63));
    expect(long).toMatch(SAFE_ID);
    expect(long).not.toBe(bucketScope(`${'a'.repeat(62)}b`));
  });

  it('gives a bucket the owner its workspaces agree on, else the fallback, and its most production environment', () => {
    expect(bucketOwnership(registry, 'tfstate')).toEqual({
      owner: 'payments',
      environment: 'prod',
      workspaces: ['pay-prod', 'pay-blue'],
    });
    expect(bucketOwnership(registry, 'tfstate-net')).toEqual({
      owner: 'platform',
      environment: 'staging',
      workspaces: ['net'],
    });
    expect(bucketOwnership(registry, 'unknown')).toEqual({
      owner: 'platform',
      environment: undefined,
      workspaces: [],
    });
  });

  it('lists each state bucket once with its lock tables', () => {
    expect(stateBuckets(registry)).toEqual([
      { bucket: 'tfstate', region: 'eu-west-1', lockTables: ['locks'] },
      { bucket: 'tfstate-net', region: 'us-east-1', lockTables: [] },
    ]);
  });
});
