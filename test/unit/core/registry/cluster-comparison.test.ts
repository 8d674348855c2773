import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { directCluster, expectProblem } from './helpers.js';

/** The direct cluster with a kustomize source (line 19); the rows under test from line 20. */
const kustomizeCluster = (...rows: string[]) =>
  directCluster('      manifests: { kustomize: overlays/prod }', ...rows);

describe('clusters[].kubernetes.comparison and fieldManager', () => {
  it('are optional: the scan defaults to a server-side dry-run as kubectl', () => {
    const kubernetes = parseRegistry(kustomizeCluster()).clusters[0]!.kubernetes!;
    expect(kubernetes).not.toHaveProperty('comparison');
    expect(kubernetes).not.toHaveProperty('fieldManager');
  });

  it.each(['server-dry-run', 'openapi', 'declared'] as const)('reads comparison: %s', (comparison) => {
    const kubernetes = parseRegistry(
      kustomizeCluster(`      comparison: ${comparison}`, '      fieldManager: argocd-controller'),
    ).clusters[0]!.kubernetes!;
    expect(kubernetes).toMatchObject({ comparison, fieldManager: 'argocd-controller' });
  });

  it('rejects an unknown comparison with the choices', () => {
    expectProblem(kustomizeCluster('      comparison: dry-run'), {
      path: 'clusters[0].kubernetes.comparison',
      line: 20,
      message: 'expected server-dry-run or openapi or declared',
    });
  });

  it('rejects a field manager with spaces', () => {
    expectProblem(kustomizeCluster('      fieldManager: "my applier"'), {
      path: 'clusters[0].kubernetes.fieldManager',
      line: 20,
      message: 'is not a field manager name such as kubectl or argocd-controller',
    });
  });
});
