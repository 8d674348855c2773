import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { directCluster, expectProblem } from './helpers.js';

describe('clusters[].kubernetes.manifests: helm and enableHelm; render tool paths', () => {
  it('reads a Helm chart source with its values files in order', () => {
    const kubernetes = parseRegistry(
      directCluster(
        '      manifests:',
        '        helm: { chart: charts/shop, release: shop, namespace: shop, values: [values.yaml, prod.yaml] }',
      ),
    ).clusters[0]!.kubernetes!;
    expect(kubernetes.manifests).toEqual({
      helm: {
        chart: 'charts/shop',
        release: 'shop',
        namespace: 'shop',
        values: ['values.yaml', 'prod.yaml'],
      },
    });
  });

  it('reads kustomize with enableHelm and the binaries to run', () => {
    const kubernetes = parseRegistry(
      directCluster(
        '      manifests: { kustomize: overlays/prod, enableHelm: true }',
        '      render: { helm: /opt/helm/bin/helm, kustomize: /usr/local/bin/kustomize }',
      ),
    ).clusters[0]!.kubernetes!;
    expect(kubernetes.manifests).toEqual({ kustomize: 'overlays/prod', enableHelm: true });
    expect(kubernetes.render).toEqual({ helm: '/opt/helm/bin/helm', kustomize: '/usr/local/bin/kustomize' });
  });

  it('a plain kustomize source stays as it was (no enableHelm key)', () => {
    const kubernetes = parseRegistry(directCluster('      manifests: { kustomize: overlays/prod }'))
      .clusters[0]!.kubernetes!;
    expect(kubernetes.manifests).toEqual({ kustomize: 'overlays/prod' });
    expect(kubernetes).not.toHaveProperty('render');
  });

  it('reads a directory of plain manifests, recurse only when set (Argo CD: a directory source)', () => {
    const plain = parseRegistry(directCluster('      manifests: { directory: manifests/prod }')).clusters[0]!
      .kubernetes!;
    expect(plain.manifests).toEqual({ directory: 'manifests/prod' });
    const recursive = parseRegistry(directCluster('      manifests: { directory: manifests, recurse: true }'))
      .clusters[0]!.kubernetes!;
    expect(recursive.manifests).toEqual({ directory: 'manifests', recurse: true });
  });

  it('rejects recurse on another source', () => {
    expectProblem(directCluster('      manifests: { kustomize: overlays/prod, recurse: true }'), {
      path: 'clusters[0].kubernetes.manifests',
      line: 19,
      message: "'recurse' applies to 'directory' only",
    });
  });

  it('rejects two sources at once', () => {
    expectProblem(directCluster('      manifests: { kustomize: o, helm: { chart: c, release: r } }'), {
      path: 'clusters[0].kubernetes.manifests',
      line: 19,
      message: "give only one of 'kustomize', 'helm'",
    });
  });

  it('rejects enableHelm on a helm source', () => {
    expectProblem(directCluster('      manifests: { helm: { chart: c, release: r }, enableHelm: true }'), {
      path: 'clusters[0].kubernetes.manifests',
      line: 19,
      message: "'enableHelm' applies to 'kustomize' only",
    });
  });

  it('rejects a helm source without a release', () => {
    expectProblem(directCluster('      manifests: { helm: { chart: charts/shop } }'), {
      path: 'clusters[0].kubernetes.manifests.helm.release',
      line: 19,
      message: '',
    });
  });

  it('rejects an absolute chart path (paths are relative to the registry file)', () => {
    expectProblem(directCluster('      manifests: { helm: { chart: /charts/shop, release: shop } }'), {
      path: 'clusters[0].kubernetes.manifests.helm.chart',
      line: 19,
      message: '',
    });
  });
});
