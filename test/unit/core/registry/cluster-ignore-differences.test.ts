import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { directCluster, expectProblem } from './helpers.js';

/** The direct cluster with a kustomize source (line 19); `ignoreDifferences:` on line 20, entries from 21. */
const withIgnoreDifferences = (...rows: string[]) =>
  directCluster('      manifests: { kustomize: overlays/prod }', '      ignoreDifferences:', ...rows);

describe('clusters[].kubernetes.ignoreDifferences (Argo CD shape, for clusters without Argo CD)', () => {
  it("reads Argo CD's docs examples: pointers, a jq expression, managers, the core group and globs", () => {
    const kubernetes = parseRegistry(
      withIgnoreDifferences(
        '        - { group: apps, kind: Deployment, name: api, namespace: shop, jsonPointers: [/spec/replicas] }',
        '        - group: apps',
        '          kind: Deployment',
        '          jqPathExpressions: [\'.spec.template.spec.initContainers[] | select(.name == "injected-init-container")\']',
        '        - { group: "*", kind: "*", managedFieldsManagers: [kube-controller-manager] }',
        '        - { group: "", kind: Service, jsonPointers: [/metadata/annotations/example.com~1owner] }',
        '      argocdNamespace: openshift-gitops',
      ),
    ).clusters[0]!.kubernetes!;
    expect(kubernetes.ignoreDifferences).toEqual([
      { group: 'apps', kind: 'Deployment', name: 'api', namespace: 'shop', jsonPointers: ['/spec/replicas'] },
      {
        group: 'apps',
        kind: 'Deployment',
        jqPathExpressions: [
          '.spec.template.spec.initContainers[] | select(.name == "injected-init-container")',
        ],
      },
      { group: '*', kind: '*', managedFieldsManagers: ['kube-controller-manager'] },
      { group: '', kind: 'Service', jsonPointers: ['/metadata/annotations/example.com~1owner'] },
    ]);
    expect(kubernetes.argocdNamespace).toBe('openshift-gitops');
  });

  it('names a misspelt key with its line and the keys it knows', () => {
    expectProblem(withIgnoreDifferences('        - { kind: Deployment, jsonPointer: [/spec/replicas] }'), {
      path: 'clusters[0].kubernetes.ignoreDifferences[0].jsonPointer',
      line: 21,
      message: 'unknown key',
    });
  });

  it('a jq expression jq cannot compile is an error naming the field and the expression', () => {
    expectProblem(
      withIgnoreDifferences(
        '        - kind: Deployment',
        '          group: apps',
        '          jqPathExpressions:',
        '            - ".spec.template.spec.containers[] | select(.name == "',
      ),
      {
        path: 'clusters[0].kubernetes.ignoreDifferences[0].jqPathExpressions[0]',
        line: 24,
        message: 'jq cannot compile ".spec.template.spec.containers[] | select(.name == "',
      },
    );
  });

  it('a pointer without the leading slash, a rule without kind, and a rule that ignores nothing are errors', () => {
    expectProblem(withIgnoreDifferences('        - { kind: Deployment, jsonPointers: [spec/replicas] }'), {
      path: 'clusters[0].kubernetes.ignoreDifferences[0].jsonPointers[0]',
      line: 21,
      message: "is not a JSON pointer: start it with '/'",
    });
    expectProblem(withIgnoreDifferences('        - { group: apps, jsonPointers: [/spec/replicas] }'), {
      path: 'clusters[0].kubernetes.ignoreDifferences[0].kind',
      line: 21,
      message: 'required',
    });
    expectProblem(withIgnoreDifferences('        - { group: apps, kind: Deployment }'), {
      path: 'clusters[0].kubernetes.ignoreDifferences[0]',
      line: 21,
      message: "says what to ignore with one of 'jsonPointers', 'jqPathExpressions', 'managedFieldsManagers'",
    });
  });
});
