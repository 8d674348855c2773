import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  extraneousObjects,
  listTargets,
  managedListTargets,
  withResolvedNamespaces,
} from '../../../../functions/core/gitops/extraneous.js';
import { identityOf, type KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { DEFAULT_TRACKING, registryTracking } from '../../../../functions/core/gitops/tracking.js';

/**
 * Live objects an application tracks that its render no longer has (issue 14 §2), against a LIST
 * answer shaped as a real API server returns it (test/fixtures/kubernetes/README.md,
 * `extraneous/`); `argoCdVerdicts` records what Argo CD shows for each object.
 */

const FIXTURE = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../fixtures/kubernetes/extraneous/list.json'), 'utf8'),
) as { items: KubeObject[]; argoCdVerdicts: Record<string, string> };

const rendered: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings-b8m4t6', namespace: 'shop' } },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'shop' } },
];
const renderedIdentities = rendered.map((object) => identityOf(object)!);

function names(list: { identity: { name: string } }[]): string[] {
  return list.map((entry) => entry.identity.name).sort();
}

describe('extraneous objects', () => {
  it('annotation tracking: only the renamed ConfigMap is extraneous (Argo CD: requiresPruning; IgnoreExtraneous, another app, a Helm label and a copied id are not)', () => {
    const found = extraneousObjects(FIXTURE.items, renderedIdentities, new Set(['shop']), DEFAULT_TRACKING);
    expect(names(found)).toEqual(['settings-7h2k9d']);
    expect(found[0]!.app).toBe('shop');
    expect(FIXTURE.argoCdVerdicts['ConfigMap/shop/settings-7h2k9d']).toMatch(/requiresPruning/);
  });

  it('label tracking: the instance label is the proof, so the Helm-labelled ConfigMap counts too (Argo CD with application.resourceTrackingMethod: label)', () => {
    const found = extraneousObjects(
      FIXTURE.items,
      renderedIdentities,
      new Set(['shop']),
      registryTracking('label'),
    );
    expect(names(found)).toEqual(['helm-only', 'settings-7h2k9d']);
  });

  it('an object with an owner is its controller’s, not Git’s', () => {
    const owned = structuredClone(FIXTURE.items[0]!) as KubeObject;
    (owned.metadata as KubeObject).ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: 'u-1', controller: true },
    ];
    expect(extraneousObjects([owned], renderedIdentities, new Set(['shop']), DEFAULT_TRACKING)).toEqual([]);
  });

  it('no application in the render: nothing is extraneous', () => {
    expect(extraneousObjects(FIXTURE.items, renderedIdentities, new Set(), DEFAULT_TRACKING)).toEqual([]);
  });

  it('lists the render’s kinds and the default kinds in the render’s namespaces, once each', () => {
    const targets = listTargets(rendered).map(
      (target) => `${target.apiVersion} ${target.kind} ${target.namespace ?? ''}`,
    );
    expect(targets).toEqual([
      'v1 ConfigMap shop',
      'apps/v1 Deployment shop',
      'v1 Secret shop',
      'v1 Service shop',
      'networking.k8s.io/v1 Ingress shop',
    ]);
  });
});

describe('namespaces of a render that leaves them unset (kubeconfig context default namespace)', () => {
  const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } };
  const config: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' } };
  const role: KubeObject = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'web' },
  };
  const elsewhere: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'edge' },
  };

  it("take the namespace the server put them in: each object's live one, else the one the others were found in; cluster-scoped objects stay without", () => {
    const live = new Map<KubeObject, ReturnType<typeof identityOf>>([
      [deployment, { group: 'apps', kind: 'Deployment', name: 'web', namespace: 'team-a' }],
      [role, { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'web' }],
    ]);
    // The ConfigMap is missing (not read live): it would be created in the same default namespace.
    const resolved = withResolvedNamespaces([deployment, config, role, elsewhere], (object) =>
      live.get(object),
    );
    expect(resolved.map((object) => identityOf(object)!.namespace)).toEqual([
      'team-a',
      'team-a',
      undefined,
      'edge',
    ]);
    const targets = listTargets(resolved).map(
      (target) => `${target.kind} ${target.namespace ?? '(cluster)'}`,
    );
    // Listed in team-a with the default kinds, never cluster-wide for a namespaced kind.
    expect(targets).toContain('Deployment team-a');
    expect(targets).toContain('ConfigMap team-a');
    expect(targets).toContain('Secret team-a');
    expect(targets).toContain('ClusterRole (cluster)');
    expect(targets).not.toContain('Deployment (cluster)');
    // Without the resolution the namespaced Deployment would be listed cluster-wide.
    expect(listTargets([deployment]).map((target) => target.namespace)).toEqual([undefined]);
  });

  it('leave an object as rendered when no object shows the default namespace', () => {
    expect(withResolvedNamespaces([config], () => undefined)).toEqual([config]);
  });
});

describe('the kinds an Application manages (its status.resources, argo-cd ResourceStatus)', () => {
  // Entries as Argo CD writes them: `group` left out for the core group, `namespace` for a
  // cluster-scoped object, every field omitempty.
  const application = {
    metadata: { name: 'shop' },
    status: {
      resources: [
        {
          group: 'batch',
          version: 'v1',
          kind: 'CronJob',
          namespace: 'shop',
          name: 'nightly-report',
          requiresPruning: true,
        },
        { version: 'v1', kind: 'ConfigMap', namespace: 'jobs', name: 'report-config' },
        { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', name: 'shop-reader' },
        { group: 'example.com', kind: 'Widget', namespace: 'shop', name: 'no-version' },
      ],
    },
  };

  it('lists each kind in its namespace (cluster-wide for a cluster-scoped one); an entry without a version is left out', () => {
    expect(managedListTargets(application)).toEqual([
      { apiVersion: 'batch/v1', kind: 'CronJob', namespace: 'shop' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'jobs' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
    ]);
    expect(managedListTargets(undefined)).toEqual([]);
  });

  it("adds them to the render's targets once each", () => {
    const targets = listTargets(rendered, [
      ...managedListTargets(application),
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop' },
    ]);
    const keys = targets.map((target) => `${target.apiVersion} ${target.kind} ${target.namespace ?? '*'}`);
    expect(keys).toContain('batch/v1 CronJob shop');
    expect(keys).toContain('v1 ConfigMap jobs');
    expect(keys).toContain('rbac.authorization.k8s.io/v1 ClusterRole *');
    expect(keys.filter((key) => key === 'v1 ConfigMap shop')).toHaveLength(1);
  });
});
