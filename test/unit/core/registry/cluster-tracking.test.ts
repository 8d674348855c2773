import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { expectProblem, HEADER, WORKSPACE, yaml } from './helpers.js';

/** Lines 1-6 HEADER, 7 `workspaces:`, 8-12 WORKSPACE, 13 `clusters:`, the cluster from line 14. */
function cluster(...rows: string[]): string {
  return yaml(
    ...HEADER,
    'workspaces:',
    ...WORKSPACE,
    'clusters:',
    '  - id: edge', // 14
    '    owner: platform', // 15
    '    environment: prod', // 16
    '    kubernetes: { context: edge, manifests: { kustomize: overlays/edge } }', // 17
    ...rows, // from 18
  );
}

describe('clusters[].trackingMethod', () => {
  it('is optional (argocd-cm, else annotation, decides at scan time)', () => {
    expect(parseRegistry(cluster()).clusters[0]).not.toHaveProperty('trackingMethod');
  });

  it.each(['annotation', 'label', 'annotation+label'] as const)('reads %s (argocd-cm’s names)', (method) => {
    expect(parseRegistry(cluster(`    trackingMethod: ${method}`)).clusters[0]!.trackingMethod).toBe(method);
  });

  it('rejects another value with the choices', () => {
    expectProblem(cluster('    trackingMethod: labels'), {
      path: 'clusters[0].trackingMethod',
      line: 18,
      message: 'expected annotation or label or annotation+label',
    });
  });
});
