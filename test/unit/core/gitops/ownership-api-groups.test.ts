import { describe, expect, it } from 'vitest';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { ownershipConflicts } from '../../../../functions/core/gitops/conflicts.js';
import { kubernetesObjectsInState } from '../../../../functions/core/gitops/terraform-objects.js';
import type { TrackedObject } from '../../../../functions/core/gitops/tracked-object.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';

/**
 * An object claimed through a kind's old `extensions` group. Kubernetes served Ingress,
 * NetworkPolicy, Deployment, DaemonSet, ReplicaSet and PodSecurityPolicy under `extensions/v1beta1`
 * before their own groups, the same stored object through both. A `kubectl_manifest` applied years
 * ago keeps `api_version = "extensions/v1beta1"` in its state (the provider refreshes the object, not
 * the apiVersion it was written with) while git moved to `networking.k8s.io/v1`; Argo CD reports the
 * group of git's manifest. The identities compared the group literally, so Terraform and Argo CD
 * both writing the one Ingress was no finding. The state's attributes are those gavinbunney/kubectl
 * keeps for a `kubectl_manifest` (api_version, kind, name, namespace, yaml_body, uid, id as the
 * object's API path).
 */
const cluster: ClusterConfig = {
  id: 'prod-eu',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'T' } },
  applications: [{ name: 'shop', owner: 'shop-team' }],
  workspaces: ['edge'],
  policies: { outOfSyncAfterMs: 3_600_000 },
};

const legacyIngress = {
  mode: 'managed',
  type: 'kubectl_manifest',
  name: 'shop_ingress',
  provider: 'provider["registry.terraform.io/gavinbunney/kubectl"]',
  instances: [
    {
      schema_version: 1,
      attributes: {
        id: '/apis/extensions/v1beta1/namespaces/shop/ingresses/shop',
        api_version: 'extensions/v1beta1',
        kind: 'Ingress',
        name: 'shop',
        namespace: 'shop',
        uid: '6f1c2b9e-8a43-4d1e-9a59-2f0d7c1e5b33',
        yaml_body:
          'apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: shop\n  namespace: shop\nspec:\n  backend:\n    serviceName: shop\n    servicePort: 80\n',
      },
    },
  ],
};

const currentDeployment = {
  mode: 'managed',
  type: 'kubernetes_deployment_v1',
  name: 'worker',
  provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
  instances: [{ attributes: { metadata: [{ name: 'worker', namespace: 'shop' }] } }],
};

const terraform = kubernetesObjectsInState(
  { version: 4, terraform_version: '1.11.4', resources: [legacyIngress, currentDeployment] },
  'edge',
).map((object) => ({ ...object, owner: 'platform' }));

const tracked = (identity: TrackedObject['identity']): TrackedObject => ({
  app: 'shop',
  identity,
  labels: {},
  annotations: {},
  source: 'argocd',
});

describe("ownership across a kind's old extensions group", () => {
  const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);

  it('a kubectl_manifest Ingress of extensions/v1beta1 and the networking.k8s.io Ingress Argo CD tracks are one object', () => {
    const findings = ownershipConflicts(
      [tracked({ group: 'networking.k8s.io', kind: 'Ingress', namespace: 'shop', name: 'shop' })],
      terraform,
      builder,
    );
    expect(findings.map((finding) => [finding.ruleId, finding.evidence.terraform])).toEqual([
      ['ownership.conflict', [expect.objectContaining({ address: 'kubectl_manifest.shop_ingress' })]],
    ]);
  });

  it('an Argo CD application still declaring extensions/v1beta1 matches a kubernetes_deployment_v1', () => {
    const findings = ownershipConflicts(
      [tracked({ group: 'extensions', kind: 'Deployment', namespace: 'shop', name: 'worker' })],
      terraform,
      builder,
    );
    expect(findings.map((finding) => finding.evidence.terraform)).toEqual([
      [expect.objectContaining({ address: 'kubernetes_deployment_v1.worker' })],
    ]);
  });

  it('the same name in another namespace, or another kind, is still another object', () => {
    expect(
      ownershipConflicts(
        [
          tracked({ group: 'networking.k8s.io', kind: 'Ingress', namespace: 'other', name: 'shop' }),
          tracked({ group: 'networking.k8s.io', kind: 'NetworkPolicy', namespace: 'shop', name: 'shop' }),
          tracked({ group: 'apps', kind: 'StatefulSet', namespace: 'shop', name: 'worker' }),
        ],
        terraform,
        builder,
      ),
    ).toEqual([]);
  });
});
