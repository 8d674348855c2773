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
        fields: { labels: ['team'] },
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
    expect(() => kubernetesObjectsInState('x', 'infra')).toThrow(UnreadableStateError);
    expect(() => kubernetesObjectsInState({ version: '4', resources: [] }, 'infra')).toThrow(
      'not a Terraform state: state format version a JSON string, expected 4',
    );
    expect(() => kubernetesObjectsInState({ resources: [] }, 'infra')).toThrow(
      'not a Terraform state: state format version missing, expected 4',
    );
  });

  it("says a format 1-3 state is an old Terraform's state, and a later format a newer one's", () => {
    // Terraform 0.11's layout: resources under modules, attributes flattened.
    const legacy = { version: 3, terraform_version: '0.11.14', serial: 7, lineage: 'a1', modules: [] };
    for (const version of [1, 2, 3])
      expect(() => kubernetesObjectsInState({ ...legacy, version }, 'infra')).toThrow(
        new RegExp(
          `^the state is in format ${version}, written by Terraform 0.11 or older, .*next apply with Terraform 0.12 or later writes format 4$`,
        ),
      );
    expect(() => kubernetesObjectsInState({ version: 5, resources: [] }, 'infra')).toThrow(
      /^the state is in format 5, newer than the format 4 driftwatch reads: update driftwatch/,
    );
  });

  it('says an OpenTofu-encrypted state is encrypted, not "not a Terraform state"', () => {
    // opentofu v1.7+ internal/encryption: the envelope that replaces the state document.
    const encrypted = {
      meta: { 'key_provider.pbkdf2.main': 'e30=' },
      encrypted_data: 'AAAA',
      encryption_version: 'v0',
    };
    expect(() => kubernetesObjectsInState(encrypted, 'infra')).toThrow(
      /^the state is encrypted \(OpenTofu state encryption\), so driftwatch cannot read which Kubernetes objects it manages: /,
    );
  });

  it('reads states whose instances carry resource identity (Terraform and OpenTofu 1.12+)', () => {
    // terraform v1.12 statefile version4.go instanceObjectStateV4: identity_schema_version and
    // identity beside attributes; check_results at the top level.
    const withIdentity = {
      ...state,
      terraform_version: '1.14.9',
      resources: state.resources.map((resource) => ({
        ...resource,
        instances: resource.instances.map((instance) => ({
          ...instance,
          identity_schema_version: 0,
          identity: { name: 'from-identity', namespace: 'elsewhere', api_version: 'v1', kind: 'Secret' },
        })),
      })),
      check_results: null,
    };
    expect(kubernetesObjectsInState(withIdentity, 'infra')).toEqual(kubernetesObjectsInState(state, 'infra'));
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

  it('matches objects of a Helm release by the meta.helm.sh annotations Helm 3 sets, never by the instance label alone', () => {
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
    ).toEqual(['Deployment/controller']);
    expect(findings[0]!.evidence.terraform).toEqual([
      expect.objectContaining({ via: 'helm-release', address: 'helm_release.ingress' }),
    ]);
  });

  it('a field manager (kubernetes_labels) conflicts only where git declares the same label; cluster-scoped objects match without a namespace', () => {
    const namespace = (labels: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'payments', labels },
    });
    const findings = ownershipConflicts(
      [
        tracked(
          { group: '', kind: 'Namespace', name: 'payments' },
          { declared: namespace({ team: 'payments' }) },
        ),
        tracked({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' }),
      ],
      terraform,
      builder,
    );
    expect(findings.map((finding) => finding.evidence.terraform)).toEqual([
      [expect.objectContaining({ manages: 'fields', via: 'fields', fields: ['metadata.labels.team'] })],
      [expect.objectContaining({ manages: 'object' })],
    ]);
    expect(findings[0]!.detail).toContain('Both write metadata.labels.team');
    // Git declares other labels only: one writer per field holds, no finding.
    expect(
      ownershipConflicts(
        [
          tracked(
            { group: '', kind: 'Namespace', name: 'payments' },
            { declared: namespace({ tier: 'prod' }) },
          ),
        ],
        terraform,
        builder,
      ),
    ).toEqual([]);
  });
});

describe('Terraform identities of every Kubernetes-provider type', () => {
  const resource = (type: string, name: string, attributes: Record<string, unknown>, provider = k8s) => ({
    mode: 'managed',
    type,
    name,
    provider,
    instances: [{ schema_version: 0, attributes }],
  });
  const secretCanary = 'CANARY-tf-state-value-q8w7e6';
  const objects = kubernetesObjectsInState(
    {
      version: 4,
      terraform_version: '1.11.4',
      resources: [
        // Patch resources of hashicorp/kubernetes: they write fields into objects someone else created.
        resource('kubernetes_config_map_v1_data', 'flags', {
          metadata: [{ name: 'app-settings', namespace: 'payments' }],
          data: { FEATURE_X: 'on', API_KEY: secretCanary },
          field_manager: 'Terraform',
          force: true,
        }),
        resource('kubernetes_annotations', 'restart', {
          api_version: 'apps/v1',
          kind: 'Deployment',
          metadata: [{ name: 'api', namespace: 'payments' }],
          annotations: { 'owner.example.com/team': 'payments' },
          template_annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-01T00:00:00Z' },
        }),
        resource('kubernetes_env', 'db', {
          api_version: 'apps/v1',
          kind: 'Deployment',
          metadata: [{ name: 'api', namespace: 'payments' }],
          container: 'api',
          env: [{ name: 'DB_HOST', value: 'db.internal', value_from: [] }],
        }),
        resource('kubernetes_node_taint', 'gpu', {
          metadata: [{ name: 'ip-10-0-1-12.ec2.internal' }],
          taint: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
        }),
        // kubernetes_manifest keeps `manifest` (declared) and `object` (read back), both dynamic.
        resource('kubernetes_manifest', 'from_object', {
          object: {
            value: {
              apiVersion: 'cert-manager.io/v1',
              kind: 'Certificate',
              metadata: { name: 'api-tls', namespace: 'payments' },
            },
            type: ['object', {}],
          },
        }),
        // gavinbunney/kubectl and alekc/kubectl: identity attributes in state…
        resource(
          'kubectl_manifest',
          'monitor',
          {
            api_version: 'monitoring.coreos.com/v1',
            kind: 'ServiceMonitor',
            name: 'api',
            namespace: 'payments',
            yaml_body: `apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: api\n`,
          },
          'provider["registry.terraform.io/gavinbunney/kubectl"]',
        ),
        // …or only the body (an older state): read for the identity, never kept.
        resource(
          'kubectl_manifest',
          'secret',
          {
            yaml_body_parsed: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-token\n  namespace: payments\nstringData:\n  token: ${secretCanary}\n`,
          },
          'provider["registry.terraform.io/alekc/kubectl"]',
        ),
        // helm_release: the release from its metadata block (what Helm reported).
        resource(
          'helm_release',
          'ingress',
          {
            name: 'ingress-nginx',
            namespace: 'ingress',
            metadata: [{ name: 'ingress-nginx', namespace: 'ingress', revision: 3, chart: 'ingress-nginx' }],
            values: [`controller:\n  adminPassword: ${secretCanary}\n`],
          },
          'provider["registry.terraform.io/hashicorp/helm"]',
        ),
        resource('kubernetes_horizontal_pod_autoscaler_v2', 'api', {
          metadata: [{ name: 'api', namespace: 'payments' }],
        }),
        // Beta-versioned types of hashicorp/kubernetes (its provider.go still registers them).
        resource('kubernetes_horizontal_pod_autoscaler_v2beta2', 'worker', {
          metadata: [{ name: 'worker', namespace: 'payments' }],
        }),
        resource('kubernetes_pod_security_policy_v1beta1', 'restricted', {
          metadata: [{ name: 'restricted' }],
        }),
      ],
    },
    'infra',
  );

  it('claims fields for the patch resources, objects for the rest, releases for helm_release', () => {
    const byAddress = Object.fromEntries(objects.map((object) => [object.address, object]));
    expect(byAddress['kubernetes_config_map_v1_data.flags']).toMatchObject({
      manages: 'fields',
      identity: { group: '', kind: 'ConfigMap', name: 'app-settings', namespace: 'payments' },
      fields: { data: ['FEATURE_X', 'API_KEY'] },
    });
    expect(byAddress['kubernetes_annotations.restart']).toMatchObject({
      manages: 'fields',
      identity: { group: 'apps', kind: 'Deployment', name: 'api', namespace: 'payments' },
      fields: {
        annotations: ['owner.example.com/team'],
        templateAnnotations: ['kubectl.kubernetes.io/restartedAt'],
      },
    });
    expect(byAddress['kubernetes_env.db']).toMatchObject({
      manages: 'fields',
      fields: { env: { container: 'api', names: ['DB_HOST'] } },
    });
    expect(byAddress['kubernetes_node_taint.gpu']).toMatchObject({
      manages: 'fields',
      identity: { group: '', kind: 'Node', name: 'ip-10-0-1-12.ec2.internal' },
      fields: { taints: ['nvidia.com/gpu'] },
    });
    expect(byAddress['kubernetes_manifest.from_object']!.identity).toEqual({
      group: 'cert-manager.io',
      kind: 'Certificate',
      name: 'api-tls',
      namespace: 'payments',
    });
    expect(byAddress['kubectl_manifest.monitor']).toMatchObject({
      manages: 'object',
      identity: {
        group: 'monitoring.coreos.com',
        kind: 'ServiceMonitor',
        name: 'api',
        namespace: 'payments',
      },
    });
    expect(byAddress['kubectl_manifest.secret']!.identity).toEqual({
      group: '',
      kind: 'Secret',
      name: 'api-token',
      namespace: 'payments',
    });
    expect(byAddress['helm_release.ingress']).toMatchObject({
      helmRelease: { name: 'ingress-nginx', namespace: 'ingress' },
    });
    expect(byAddress['kubernetes_horizontal_pod_autoscaler_v2.api']!.identity).toMatchObject({
      group: 'autoscaling',
      kind: 'HorizontalPodAutoscaler',
    });
    expect(byAddress['kubernetes_horizontal_pod_autoscaler_v2beta2.worker']).toMatchObject({
      manages: 'object',
      identity: {
        group: 'autoscaling',
        kind: 'HorizontalPodAutoscaler',
        name: 'worker',
        namespace: 'payments',
      },
    });
    expect(byAddress['kubernetes_pod_security_policy_v1beta1.restricted']!.identity).toEqual({
      group: 'policy',
      kind: 'PodSecurityPolicy',
      name: 'restricted',
    });
    // Names of fields leave the state; their values never do.
    expect(JSON.stringify(objects)).not.toContain(secretCanary);
  });

  it('kubernetes_config_map_v1_data conflicts with git only on the data keys both write; kubernetes_env on the same variable of the same container', () => {
    const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
    const claims = objects.map((object) => ({ ...object, owner: 'platform' }));
    const settings = (data: Record<string, string>): TrackedObject => ({
      app: 'payments',
      identity: { group: '', kind: 'ConfigMap', name: 'app-settings', namespace: 'payments' },
      labels: {},
      annotations: {},
      source: 'argocd',
      declared: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-settings' }, data },
    });
    const api = (env: string[], container = 'api'): TrackedObject => ({
      app: 'payments',
      identity: { group: 'apps', kind: 'Deployment', name: 'api', namespace: 'payments' },
      labels: {},
      annotations: {},
      source: 'argocd',
      declared: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'api' },
        spec: {
          template: {
            spec: { containers: [{ name: container, env: env.map((name) => ({ name, value: 'x' })) }] },
          },
        },
      },
    });
    expect(ownershipConflicts([settings({ LOG_LEVEL: 'info' })], claims, builder)).toEqual([]);
    const [overlap] = ownershipConflicts(
      [settings({ FEATURE_X: 'off', LOG_LEVEL: 'info' })],
      claims,
      builder,
    );
    expect(overlap!.evidence.terraform).toEqual([
      expect.objectContaining({ via: 'fields', fields: ['data.FEATURE_X'] }),
    ]);
    expect(ownershipConflicts([api(['LOG_LEVEL'])], claims, builder)).toEqual([]);
    expect(ownershipConflicts([api(['DB_HOST'], 'sidecar')], claims, builder)).toEqual([]);
    const [env] = ownershipConflicts([api(['LOG_LEVEL', 'DB_HOST'])], claims, builder);
    expect(env!.evidence.terraform).toEqual([
      expect.objectContaining({
        address: 'kubernetes_env.db',
        fields: ['spec.template.spec.containers[0].env[1]'],
      }),
    ]);
  });
});
