import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { expectProblem, HEADER, WORKSPACE, yaml } from './helpers.js';

/** Lines 1-6 HEADER, 7 `workspaces:`, 8-12 WORKSPACE, 13 `clusters:`, the cluster from line 14. */
function directCluster(...kubernetesRows: string[]): string {
  return yaml(
    ...HEADER,
    'workspaces:',
    ...WORKSPACE,
    'clusters:',
    '  - id: shop', // 14
    '    owner: platform', // 15
    '    environment: prod', // 16
    '    kubernetes:', // 17
    '      context: shop', // 18
    '      manifests: { kustomize: overlays/prod }', // 19
    ...kubernetesRows, // from 20
  );
}

describe('clusters[].kubernetes.comparison and fieldManager', () => {
  it('are optional: the scan defaults to a server-side dry-run as kubectl', () => {
    const kubernetes = parseRegistry(directCluster()).clusters[0]!.kubernetes!;
    expect(kubernetes).not.toHaveProperty('comparison');
    expect(kubernetes).not.toHaveProperty('fieldManager');
  });

  it.each(['server-dry-run', 'openapi', 'declared'] as const)('reads comparison: %s', (comparison) => {
    const kubernetes = parseRegistry(
      directCluster(`      comparison: ${comparison}`, '      fieldManager: argocd-controller'),
    ).clusters[0]!.kubernetes!;
    expect(kubernetes).toMatchObject({ comparison, fieldManager: 'argocd-controller' });
  });

  it('rejects an unknown comparison with the choices', () => {
    expectProblem(directCluster('      comparison: dry-run'), {
      path: 'clusters[0].kubernetes.comparison',
      line: 20,
      message: 'expected server-dry-run or openapi or declared',
    });
  });

  it('rejects a field manager with spaces', () => {
    expectProblem(directCluster('      fieldManager: "my applier"'), {
      path: 'clusters[0].kubernetes.fieldManager',
      line: 20,
      message: 'is not a field manager name such as kubectl or argocd-controller',
    });
  });
});
