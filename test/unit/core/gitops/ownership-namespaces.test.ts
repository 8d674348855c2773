import { describe, expect, it } from 'vitest';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { ownershipConflicts } from '../../../../functions/core/gitops/conflicts.js';
import { kubernetesObjectsInState } from '../../../../functions/core/gitops/terraform-objects.js';
import type { TrackedObject } from '../../../../functions/core/gitops/tracked-object.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';

/**
 * A `kubectl_manifest` whose YAML names no namespace. gavinbunney/kubectl (and alekc/kubectl) keep
 * `namespace` as the YAML has it, "" here, and apply the object as `kubectl apply` does: a namespaced
 * kind lands in the default namespace. Its identity had no namespace, which matches any, so Argo CD's
 * ConfigMap `shop/app-config` was an ownership conflict with Terraform's `default/app-config`, two
 * different objects. A cluster-scoped custom resource (a cert-manager ClusterIssuer) still matches
 * without one. The attributes are those the provider keeps in state (api_version, kind, name,
 * namespace, yaml_body, uid), and older states with the YAML only.
 */
const cluster: ClusterConfig = {
  id: 'prod-eu',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'T' } },
  applications: [],
  workspaces: ['bootstrap'],
  policies: { outOfSyncAfterMs: 3_600_000 },
};

const provider = 'provider["registry.terraform.io/gavinbunney/kubectl"]';
const manifest = (name: string, attributes: Record<string, unknown>) => ({
  mode: 'managed',
  type: 'kubectl_manifest',
  name,
  provider,
  instances: [{ schema_version: 1, attributes: { uid: `uid-${name}`, ...attributes } }],
});

const state = {
  version: 4,
  terraform_version: '1.11.4',
  resources: [
    manifest('app_config', {
      api_version: 'v1',
      kind: 'ConfigMap',
      name: 'app-config',
      namespace: '',
      yaml_body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: bootstrap\n',
    }),
    // An older state: the identity only in the YAML.
    manifest('reader', {
      yaml_body:
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\nrules: []\n',
    }),
    // override_namespace puts the object there, whatever the YAML (or the state's namespace) says.
    manifest('overridden', {
      api_version: 'v1',
      kind: 'ConfigMap',
      name: 'feature-flags',
      namespace: 'default',
      override_namespace: 'shop',
      yaml_body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: feature-flags\n  namespace: default\n',
    }),
    manifest('overridden_yaml_only', {
      override_namespace: 'shop',
      yaml_body: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls-bundle\n',
    }),
    manifest('issuer', {
      api_version: 'cert-manager.io/v1',
      kind: 'ClusterIssuer',
      name: 'letsencrypt',
      namespace: '',
      yaml_body: 'apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: letsencrypt\n',
    }),
  ],
};

const terraform = kubernetesObjectsInState(state, 'bootstrap').map((object) => ({
  ...object,
  owner: 'platform',
}));

const tracked = (identity: TrackedObject['identity']): TrackedObject => ({
  app: 'shop',
  identity,
  labels: {},
  annotations: {},
  source: 'argocd',
});

const conflicts = (identity: TrackedObject['identity']) =>
  ownershipConflicts(
    [tracked(identity)],
    terraform,
    createClusterFindingBuilder(cluster, DEFAULT_POLICIES),
  ).map((finding) =>
    (finding.evidence.terraform as Array<{ address: string }>).map((claim) => claim.address),
  );

describe('a kubectl_manifest without a namespace', () => {
  it('of a namespaced kind is the object in the default namespace, not one of that name anywhere', () => {
    expect(conflicts({ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'app-config' })).toEqual([]);
    expect(conflicts({ group: '', kind: 'ConfigMap', namespace: 'default', name: 'app-config' })).toEqual([
      ['kubectl_manifest.app_config'],
    ]);
    expect(
      conflicts({ group: 'rbac.authorization.k8s.io', kind: 'Role', namespace: 'shop', name: 'reader' }),
    ).toEqual([]);
    expect(
      conflicts({ group: 'rbac.authorization.k8s.io', kind: 'Role', namespace: 'default', name: 'reader' }),
    ).toEqual([['kubectl_manifest.reader']]);
  });

  it('with override_namespace is the object in that namespace', () => {
    expect(conflicts({ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'feature-flags' })).toEqual([
      ['kubectl_manifest.overridden'],
    ]);
    expect(conflicts({ group: '', kind: 'ConfigMap', namespace: 'default', name: 'feature-flags' })).toEqual(
      [],
    );
    expect(conflicts({ group: '', kind: 'Secret', namespace: 'shop', name: 'tls-bundle' })).toEqual([
      ['kubectl_manifest.overridden_yaml_only'],
    ]);
    expect(conflicts({ group: '', kind: 'Secret', namespace: 'default', name: 'tls-bundle' })).toEqual([]);
  });

  it('of a custom kind still matches without one (it may be cluster-scoped)', () => {
    expect(conflicts({ group: 'cert-manager.io', kind: 'ClusterIssuer', name: 'letsencrypt' })).toEqual([
      ['kubectl_manifest.issuer'],
    ]);
  });
});
