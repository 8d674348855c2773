import { describe, expect, it } from 'vitest';
import {
  adhocTarget,
  inPrefix,
  listingPrefixes,
  registryTargetForBucket,
  registryTargets,
  splitWorkspaceKey,
  stateOwnerOf,
  targetScopes,
  UnknownStateBucketError,
} from '../../../../functions/core/backend/target.js';
import { backendRegistry } from '../../../helpers/backend.js';

const registry = backendRegistry(
  '  - id: pay-prod',
  '    owner: payments',
  '    environment: prod',
  '    source: { dir: a }',
  '    backend: { bucket: tfstate, key: pay.tfstate, region: eu-west-1, requireKms: true }',
  '    roleArn: arn:aws:iam::111111111111:role/driftwatch-read',
  '    locks: { staleAfter: { apply: 3h } }',
  '  - id: pay-blue',
  '    owner: payments',
  '    environment: staging',
  '    source: { dir: a }',
  '    backend: { bucket: tfstate, key: pay.tfstate, region: eu-west-1, workspace: blue, workspaceKeyPrefix: ws, lockTable: tf-locks }',
  '  - { id: net, owner: platform, environment: staging, source: { dir: b }, backend: { bucket: tfstate-net, key: net.tfstate, region: us-east-1 } }',
  'locks: { staleAfter: { plan: 45m }, confirmAfter: 5m }',
);

describe('backend targets from the registry', () => {
  it('one per bucket of the selected workspaces, with owners, thresholds, tables, KMS and the role to use', () => {
    const [tfstate, net] = registryTargets(registry, registry.workspaces);
    expect(tfstate).toMatchObject({
      bucket: 'tfstate',
      region: 'eu-west-1',
      prefix: '',
      workspaceKeyPrefixes: ['env:', 'ws'],
      contentKeys: ['pay.tfstate', 'ws/blue/pay.tfstate'],
      lockTables: [{ table: 'tf-locks', configuredBy: ['pay-blue'] }],
      expectKms: true,
      confirmAfterMs: 5 * 60_000,
      bucketPlacement: { workspace: 's3.tfstate', owner: 'payments', environment: 'prod' },
      access: { id: 'pay-prod' },
    });
    expect(
      tfstate?.owners.map((owner) => [owner.placement.workspace, owner.stateKey, owner.cliWorkspace]),
    ).toEqual([
      ['pay-prod', 'pay.tfstate', undefined],
      ['pay-blue', 'ws/blue/pay.tfstate', 'blue'],
    ]);
    // Per-workspace thresholds override the registry's, which override the defaults.
    expect(tfstate?.owners[0]?.staleAfterMs).toEqual({
      plan: 45 * 60_000,
      apply: 3 * 3_600_000,
      default: 30 * 60_000,
    });
    expect(net).toMatchObject({ bucket: 'tfstate-net', expectKms: false, lockTables: [] });
    expect(net?.access).toBeUndefined();
  });

  it('a run of some workspaces checks only their states and records only their scopes', () => {
    const [target] = registryTargets(
      registry,
      registry.workspaces.filter((workspace) => workspace.id === 'pay-blue'),
    );
    expect(target?.contentKeys).toEqual(['ws/blue/pay.tfstate']);
    expect(targetScopes(target!).map((placement) => placement.workspace)).toEqual(['s3.tfstate', 'pay-blue']);
  });

  it('a bucket of no workspace is an error for the bucket handlers', () => {
    expect(() => registryTargetForBucket(registry, 'elsewhere')).toThrow(UnknownStateBucketError);
    expect(registryTargetForBucket(registry, 'tfstate-net').owners).toHaveLength(1);
  });
});

describe('ad hoc targets (the CLI)', () => {
  it('without a registry: defaults, the bucket scope, no owner', () => {
    const target = adhocTarget({
      bucket: 'tfstate',
      keys: ['a.tfstate'],
      lockTables: ['locks'],
      staleAfterMs: 5_000,
    });
    expect(target).toMatchObject({
      bucketPlacement: { workspace: 's3.tfstate' },
      contentKeys: ['a.tfstate'],
      lockTables: [{ table: 'locks', configuredBy: ['--lock-table'] }],
      staleAfterMs: { plan: 5_000, apply: 5_000, default: 5_000 },
      confirmAfterMs: 10 * 60_000,
      owners: [],
    });
    expect(target.region).toBeUndefined();
  });

  it('--stale-after overrides per-workspace thresholds too', () => {
    const target = adhocTarget({ bucket: 'tfstate', staleAfterMs: 2_000 }, registry);
    expect(target.owners.map((owner) => owner.staleAfterMs.apply)).toEqual([2_000, 2_000]);
    expect(target.region).toBe('eu-west-1');
  });
});

describe('keys, prefixes and CLI workspaces', () => {
  const target = adhocTarget({ bucket: 'tfstate', prefix: 'pay' }, registry);

  it('a prefix covers the key and the same key under a workspace key prefix', () => {
    expect(listingPrefixes(target)).toEqual(['pay', 'env:/', 'ws/']);
    expect(inPrefix(target, 'pay.tfstate')).toBe(true);
    expect(inPrefix(target, 'env:/blue/pay.tfstate')).toBe(true);
    expect(inPrefix(target, 'ws/green/pay.tfstate.tflock')).toBe(true);
    expect(inPrefix(target, 'net.tfstate')).toBe(false);
    expect(inPrefix(target, 'env:/blue/net.tfstate')).toBe(false);
    expect(listingPrefixes({ prefix: '', workspaceKeyPrefixes: ['env:'] })).toEqual(['']);
  });

  it('splits CLI workspace state keys', () => {
    expect(splitWorkspaceKey(['env:'], 'env:/blue/a/b.tfstate')).toEqual({
      cliWorkspace: 'blue',
      key: 'a/b.tfstate',
    });
    expect(splitWorkspaceKey(['env:'], 'a/b.tfstate')).toBeUndefined();
  });

  it('places a state in its workspace, else in the bucket scope (with its CLI workspace)', () => {
    expect(stateOwnerOf(target, 'ws/blue/pay.tfstate').placement.workspace).toBe('pay-blue');
    const unowned = stateOwnerOf(target, 'env:/green/pay.tfstate');
    expect(unowned.placement).toEqual({ workspace: 's3.tfstate', owner: 'payments', environment: 'prod' });
    expect(unowned.cliWorkspace).toBe('green');
  });
});
