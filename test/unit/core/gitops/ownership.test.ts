import { describe, expect, it } from 'vitest';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { ownershipConflicts } from '../../../../functions/core/gitops/conflicts.js';
import {
  kubernetesObjectsInState,
  UnreadableStateError,
} from '../../../../functions/core/gitops/terraform-objects.js';
import type { TrackedObject } from '../../../../functions/core/gitops/tracked-object.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';

const cluster: ClusterConfig = {
  id: 'prod-eu',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'T' } },
  applications: [{ name: 'payments', owner: 'payments' }],
  workspaces: ['infra'],
  policies: { outOfSyncAfterMs: 3_600_000 },
};

const k8s = 'provider["registry.terraform.io/hashicorp/kubernetes"]';
const state = {
  version: 4,
  terraform_version: '1.11.4',
  resources: [
    {
      mode: 'managed',
      type: 'kubernetes_deployment_v1',
      name: 'api',
      provider: k8s,
      module: 'module.apps',
      instances: [{ index_key: 'eu', attributes: { metadata: [{ name: 'api', namespace: 'payments' }] } }],
    },
    {
      mode: 'managed',
      type: 'kubernetes_cluster_role',
      name: 'reader',
      provider: k8s,
      instances: [{ attributes: { metadata: [{ name: 'reader', namespace: '' }] } }],
    },
    {
      mode: 'managed',
      type: 'kubernetes_manifest',
      name: 'monitor',
      provider: k8s,
      instances: [
        {
          attributes: {
            manifest: {
              value: {
                apiVersion: 'monitoring.coreos.com/v1',
                kind: 'ServiceMonitor',
                metadata: { name: 'api', namespace: 'payments' },
              },
              type: ['object', {}],
            },
          },
        },
      ],
    },
    {
      mode: 'managed',
      type: 'kubernetes_labels',
      name: 'team',
      provider: k8s,
      instances: [
        {
          attributes: {
            api_version: 'v1',
            kind: 'Namespace',
            metadata: [{ name: 'payments' }],
            labels: { team: 'payments' },
          },
        },
      ],
    },
    {
      mode: 'managed',
      type: 'helm_release',
      name: 'ingress',
      provider: 'provider["registry.terraform.io/hashicorp/helm"]',
      instances: [
        { attributes: { name: 'ingress-nginx', namespace: 'ingress', values: ['password: hunter2'] } },
      ],
    },
    {
      mode: 'data',
      type: 'kubernetes_secret_v1',
      name: 'read',
      provider: k8s,
      instances: [{ attributes: { metadata: [{ name: 'read-only', namespace: 'x' }] } }],
    },
  ],
};

describe('Kubernetes objects in Terraform state', () => {
  it('derives identities from kubernetes_*, kubernetes_manifest, field managers and helm_release; data sources manage nothing', () => {
    const objects = kubernetesObjectsInState(state, 'infra');
    expect(objects).toEqual([
      {
        workspace: 'infra',
        address: 'module.apps.kubernetes_deployment_v1.api["eu"]',
        manages: 'object',
        identity: { group: 'apps', kind: 'Deployment', name: 'api', namespace: 'payments' },
      },
      {
        workspace: 'infra',
        address: 'kubernetes_cluster_role.reader',
        manages: 'object',
        identity: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
      },
      {
        workspace: 'infra',
        address: 'kubernetes_manifest.monitor',
        manages: 'object',
        identity: {
          group: 'monitoring.coreos.com',
          kind: 'ServiceMonitor',
          name: 'api',
          namespace: 'payments',
        },
      },
      {
        workspace: 'infra',
        address: 'kubernetes_labels.team',
        manages: 'fields',
        identity: { group: '', kind: 'Namespace', name: 'payments' },
      },
      {
        workspace: 'infra',
        address: 'helm_release.ingress',
        manages: 'object',
        helmRelease: { name: 'ingress-nginx', namespace: 'ingress' },
      },
    ]);
    // Only identities leave: nothing of the attribute values.
    expect(JSON.stringify(objects)).not.toContain('hunter2');
  });

  it('rejects what is not a v4 state', () => {
    expect(() => kubernetesObjectsInState({ version: 3 }, 'infra')).toThrow(UnreadableStateError);
    expect(() => kubernetesObjectsInState('x', 'infra')).toThrow(UnreadableStateError);
  });
});

describe('ownership conflicts', () => {
  const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
  const terraform = kubernetesObjectsInState(state, 'infra').map((object) => ({
    ...object,
    owner: 'platform',
  }));
  const tracked = (
    identity: TrackedObject['identity'],
    extra: Partial<TrackedObject> = {},
  ): TrackedObject => ({
    app: 'payments',
    identity,
    labels: {},
    annotations: {},
    source: 'argocd',
    ...extra,
  });

  it('names both owners, routes to the application owner and proposes the one-writer fix', () => {
    const [finding, ...rest] = ownershipConflicts(
      [tracked({ group: 'apps', kind: 'Deployment', namespace: 'payments', name: 'api' })],
      terraform,
      builder,
    );
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      kind: 'ownership-conflict',
      ruleId: 'ownership.conflict',
      severity: 'high',
      workspace: 'prod-eu',
      owner: 'payments',
      resource: { app: 'payments', group: 'apps', kind: 'Deployment', namespace: 'payments', name: 'api' },
      evidence: { owners: ['platform', 'payments'] },
    });
    expect(finding!.detail).toContain('owned by platform');
    expect(finding!.detail).toContain('owned by payments');
  });

  it('matches objects of a Helm release by its annotations, or by the instance label in its namespace', () => {
    const byAnnotation = tracked(
      { group: 'apps', kind: 'Deployment', namespace: 'ingress', name: 'controller' },
      {
        annotations: {
          'meta.helm.sh/release-name': 'ingress-nginx',
          'meta.helm.sh/release-namespace': 'ingress',
        },
      },
    );
    const byLabel = tracked(
      { group: '', kind: 'Service', namespace: 'ingress', name: 'controller' },
      { labels: { 'app.kubernetes.io/instance': 'ingress-nginx' } },
    );
    const elsewhere = tracked(
      { group: '', kind: 'Service', namespace: 'other', name: 'x' },
      { labels: { 'app.kubernetes.io/instance': 'ingress-nginx' } },
    );
    const otherRelease = tracked(
      { group: '', kind: 'ConfigMap', namespace: 'ingress', name: 'y' },
      {
        annotations: {
          'meta.helm.sh/release-name': 'ingress-nginx',
          'meta.helm.sh/release-namespace': 'other',
        },
      },
    );
    const findings = ownershipConflicts([byAnnotation, byLabel, elsewhere, otherRelease], terraform, builder);
    expect(
      findings.map(
        (finding) =>
          `${(finding.resource as { kind: string }).kind}/${(finding.resource as { name: string }).name}`,
      ),
    ).toEqual(['Deployment/controller', 'Service/controller']);
    expect(findings[0]!.evidence.terraform).toEqual([
      expect.objectContaining({ via: 'helm-release', address: 'helm_release.ingress' }),
    ]);
  });

  it('counts field managers (kubernetes_labels) as a second writer and matches cluster-scoped objects without a namespace', () => {
    const findings = ownershipConflicts(
      [
        tracked({ group: '', kind: 'Namespace', name: 'payments' }),
        tracked({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' }),
      ],
      terraform,
      builder,
    );
    expect(findings.map((finding) => finding.evidence.terraform)).toEqual([
      [expect.objectContaining({ manages: 'fields' })],
      [expect.objectContaining({ manages: 'object' })],
    ]);
  });
});
