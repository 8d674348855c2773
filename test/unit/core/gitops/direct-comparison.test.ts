import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FindingDraft, JsonValue } from '../../../../functions/core/findings/model.js';
import { identityOf, type KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { parseManifests } from '../../../../functions/core/gitops/manifests.js';
import { normalizeObject } from '../../../../functions/core/gitops/normalize.js';
import { diffKubeObjects } from '../../../../functions/core/gitops/object-diff.js';
import { createSchemaView } from '../../../../functions/core/gitops/openapi-normalizer.js';
import type {
  DryRunResult,
  KubernetesApi,
  LiveObjectRequest,
} from '../../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../../functions/core/gitops/scan-cluster.js';
import { comparisonChanges } from '../../../../functions/core/gitops/server-side-diff.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import type { ClusterComparison, ClusterConfig } from '../../../../functions/core/registry/model.js';
import { registryOfCluster } from '../../../helpers/registry.js';

/**
 * Direct mode's three comparison methods against recorded API answers
 * (test/fixtures/kubernetes/README.md): a server-side dry-run, the cluster's OpenAPI v3 schema, and
 * declared fields. Every case names what `kubectl diff --server-side` answers for it; each method
 * must reach the same verdicts.
 */

const FIXTURES = join(import.meta.dirname, '../../../fixtures/kubernetes');
const hashSensitive = createSensitiveHasher('direct-comparison-salt-01');
const TOKEN = 'fixture-token-not-a-real-secret';

interface ClusterFixture {
  live: KubeObject[];
  dryRun: Record<string, { status: number; body: KubeObject; kubectlDiffServerSide: string }>;
  refusals: Record<'webhookWithoutDryRun' | 'forbidden', { status: number; body: { message: string } }>;
}

function fixture(): ClusterFixture {
  return JSON.parse(readFileSync(join(FIXTURES, 'server-side-diff/cluster.json'), 'utf8')) as ClusterFixture;
}

function openApi(path: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, 'openapi-v3', path), 'utf8'));
}

const OPENAPI: Record<string, unknown> = {
  'apps/v1': openApi('apis__apps__v1.json'),
  v1: openApi('api__v1.json'),
};

/** The fixture's manifests as `kubectl kustomize` renders them (namespace shop set on each). */
function manifests(): string {
  const dir = join(FIXTURES, 'server-side-diff/manifests');
  return ['api.yaml', 'worker.yaml', 'secret.yaml', 'configmap.yaml']
    .flatMap((file) => parseManifests(readFileSync(join(dir, file), 'utf8')))
    .map((object) =>
      JSON.stringify({ ...object, metadata: { ...(object.metadata as object), namespace: 'shop' } }),
    )
    .join('\n---\n');
}

const RESOURCE: Record<string, string> = {
  Deployment: 'deployments',
  Service: 'services',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
};

function keyOf(request: LiveObjectRequest): string {
  return `${request.apiVersion}/${RESOURCE[request.kind]}/${request.namespace ?? ''}/${request.name}`;
}

interface Scenario {
  comparison?: ClusterComparison;
  fieldManager?: string;
  live?: KubeObject[];
  /** Replaces the recorded dry-run answer of some objects (by key) or of all ('*'). */
  dryRun?: Record<string, DryRunResult>;
  openapi?: boolean;
}

async function scan(scenario: Scenario = {}) {
  const data = fixture();
  const live = scenario.live ?? data.live;
  const calls = { dryRun: [] as Array<{ key: string; fieldManager: string }>, openapi: [] as string[] };
  const api: KubernetesApi = {
    server: 'https://kube.example.com',
    desiredManifests: async () => ({ text: manifests(), source: 'the fixture overlay' }),
    async readLive(request) {
      const object = live.find((candidate) => {
        const identity = identityOf(candidate)!;
        return (
          candidate.apiVersion === request.apiVersion &&
          identity.kind === request.kind &&
          identity.name === request.name &&
          identity.namespace === request.namespace
        );
      });
      return object ? { found: true, object } : { found: false, reason: 'not-found' };
    },
    async dryRunApply(request, _manifest, fieldManager) {
      const key = keyOf(request);
      calls.dryRun.push({ key, fieldManager });
      const replaced = scenario.dryRun?.[key] ?? scenario.dryRun?.['*'];
      if (replaced) return replaced;
      const recorded = data.dryRun[key];
      if (!recorded) throw new Error(`no recorded dry-run for ${key}`);
      return { outcome: 'applied', object: recorded.body, created: recorded.status === 201 };
    },
    async openApiDocument(apiVersion) {
      calls.openapi.push(apiVersion);
      return scenario.openapi === false ? undefined : OPENAPI[apiVersion];
    },
  };
  const cluster: ClusterConfig = {
    id: 'shop-prod',
    owner: 'platform',
    environment: 'prod',
    kubernetes: {
      context: 'shop',
      manifests: { kustomize: 'overlays/prod' },
      ...(scenario.comparison ? { comparison: scenario.comparison } : {}),
      ...(scenario.fieldManager ? { fieldManager: scenario.fieldManager } : {}),
    },
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
  };
  const registry = registryOfCluster(cluster);
  const result = await scanCluster(cluster, {
    registry,
    ports: {
      argocd: () => {
        throw new Error('direct mode reads no Argo CD');
      },
      kubernetes: () => api,
      terraformObjects: async () => [],
    },
    hashSensitive,
    now: new Date('2026-12-02T03:00:00Z'),
  });
  return { result, calls };
}

function byObject(findings: FindingDraft[]): Map<string, FindingDraft> {
  return new Map(
    findings.map((finding) => [
      `${finding.ruleId} ${(finding.resource as { kind: string }).kind}/${(finding.resource as { name: string }).name}`,
      finding,
    ]),
  );
}

/** What all three methods must conclude about the fixture cluster. */
const VERDICTS = ['cluster.drift Deployment/api', 'cluster.missing ConfigMap/api-config'];
/** The one real change: the image set by hand (`kubectl set image`), and nothing the server filled in. */
const IMAGE_DRIFT = [
  {
    path: 'spec.template.spec.containers[0].image',
    before: 'registry.example.com/shop/api:1.4.2',
    after: 'registry.example.com/shop/api:1.4.1',
    sensitive: false,
  },
];

const forbidden: DryRunResult = {
  outcome: 'refused',
  status: 403,
  reason: fixture().refusals.forbidden.body.message,
};

describe('direct mode: what the server would make of Git, versus the live object', () => {
  it('server-side dry-run (kubectl diff --server-side: only the image differs; worker, Service and Secret show nothing)', async () => {
    const { result, calls } = await scan();
    expect(result.outcome).toBe('ok');
    const findings = byObject(result.findings);
    expect([...findings.keys()].sort()).toEqual(VERDICTS);
    const drift = findings.get('cluster.drift Deployment/api')!;
    // Defaults (strategy, progressDeadlineSeconds, imagePullPolicy, terminationMessagePath), 500m
    // for 0.5, the injected port merged by containerPort+protocol, and generation/managedFields are
    // not drift.
    expect(drift.drift!.changes).toEqual(IMAGE_DRIFT);
    expect(drift.evidence).toMatchObject({ comparison: 'server-side-dry-run' });
    expect(drift.evidence).not.toHaveProperty('comparisonFallback');
    // Exactly the objects kubectl diff --server-side exits 1 for (recorded next to each answer).
    const kubectlDiffers = Object.entries(fixture().dryRun)
      .filter(([, answer]) => answer.kubectlDiffServerSide.startsWith('exit 1'))
      .map(([key]) => key);
    const drifted = result.findings
      .filter((finding) => finding.ruleId === 'cluster.drift')
      .map((finding) => {
        const resource = finding.resource as { group: string; kind: string; namespace: string; name: string };
        const apiVersion = resource.group === '' ? 'v1' : `${resource.group}/v1`;
        return keyOf({ apiVersion, kind: resource.kind, namespace: resource.namespace, name: resource.name });
      });
    expect(drifted).toEqual(kubectlDiffers);
    // The missing ConfigMap is found by the live read: it is never dry-run (that would "create" it).
    expect(calls.dryRun.map((call) => call.key).sort()).toEqual([
      'apps/v1/deployments/shop/api',
      'apps/v1/deployments/shop/worker',
      'v1/secrets/shop/api-secrets',
      'v1/services/shop/api',
    ]);
    expect(new Set(calls.dryRun.map((call) => call.fieldManager))).toEqual(new Set(['kubectl']));
    expect(calls.openapi).toEqual([]);
    expect(JSON.stringify(result.findings)).not.toContain(TOKEN);
    expect(JSON.stringify(result.findings)).not.toContain(Buffer.from(TOKEN).toString('base64'));
  });

  it("dry-runs as the registry's field manager (Argo CD's argocd-controller)", async () => {
    const { calls } = await scan({ fieldManager: 'argocd-controller' });
    expect(calls.dryRun.length).toBe(4);
    expect(new Set(calls.dryRun.map((call) => call.fieldManager))).toEqual(new Set(['argocd-controller']));
  });

  it('a forbidden dry-run (403) falls back to the OpenAPI schema with the same verdicts, and says so', async () => {
    const { result, calls } = await scan({ dryRun: { '*': forbidden } });
    const findings = byObject(result.findings);
    expect([...findings.keys()].sort()).toEqual(VERDICTS);
    const drift = findings.get('cluster.drift Deployment/api')!;
    expect(drift.drift!.changes).toEqual(IMAGE_DRIFT);
    expect(drift.evidence).toMatchObject({
      comparison: 'openapi-normalised',
      comparisonFallback: expect.stringContaining('server-side dry-run refused (403)'),
    });
    expect(calls.openapi).toContain('apps/v1');
  });

  it('an admission webhook without dry-run support is a per-object fallback; the other objects keep the dry-run', async () => {
    const webhook = fixture().refusals.webhookWithoutDryRun;
    const { result } = await scan({
      dryRun: {
        'apps/v1/deployments/shop/api': { outcome: 'refused', status: 400, reason: webhook.body.message },
      },
    });
    const findings = byObject(result.findings);
    expect([...findings.keys()].sort()).toEqual(VERDICTS);
    expect(findings.get('cluster.drift Deployment/api')!.evidence).toMatchObject({
      comparison: 'openapi-normalised',
      comparisonFallback: expect.stringContaining('does not support dry run'),
    });
  });

  it('comparison: openapi sends no dry-run; comparison: declared reads no schema either; verdicts agree', async () => {
    const openapi = await scan({ comparison: 'openapi' });
    expect(openapi.calls.dryRun).toEqual([]);
    expect([...byObject(openapi.result.findings).keys()].sort()).toEqual(VERDICTS);
    expect(byObject(openapi.result.findings).get('cluster.drift Deployment/api')!.evidence).toMatchObject({
      comparison: 'openapi-normalised',
    });

    const declared = await scan({ comparison: 'declared' });
    expect(declared.calls).toEqual({ dryRun: [], openapi: [] });
    const findings = byObject(declared.result.findings);
    expect([...findings.keys()].sort()).toEqual(VERDICTS);
    expect(findings.get('cluster.drift Deployment/api')!.drift!.changes).toEqual(IMAGE_DRIFT);
    expect(findings.get('cluster.drift Deployment/api')!.evidence).toMatchObject({
      comparison: 'declared-fields',
    });
  });

  it('a server without OpenAPI v3 falls back to declared fields, with both reasons', async () => {
    const { result } = await scan({ dryRun: { '*': forbidden }, openapi: false });
    expect(byObject(result.findings).get('cluster.drift Deployment/api')!.evidence).toMatchObject({
      comparison: 'declared-fields',
      comparisonFallback: expect.stringMatching(/refused \(403\).*publishes no OpenAPI v3 document/),
    });
  });

  it('a dry-run that would create the object (201: deleted after the read) is a missing object', async () => {
    const manifest = fixture().dryRun['v1/services/shop/api']!.body;
    const { result } = await scan({
      dryRun: { 'v1/services/shop/api': { outcome: 'applied', object: manifest, created: true } },
    });
    const missing = byObject(result.findings).get('cluster.missing Service/api')!;
    expect(missing.evidence).toMatchObject({ comparison: 'server-side-dry-run', reason: 'not-found' });
  });

  it('a label Git no longer declares is drift with the dry-run and with declared fields (kubectl diff --server-side: the label is removed)', async () => {
    // Live carries `tier: web` under the kubectl manager; the manifest dropped it, so the server's
    // dry-run answer drops it too. Declared fields see it through the applier's managedFields entry.
    const data = fixture();
    const live = data.live.map((object) => structuredClone(object));
    const service = live.find((object) => object.kind === 'Service')!;
    const metadata = service.metadata as KubeObject;
    (metadata.labels as KubeObject).tier = 'web';
    const applied = (metadata.managedFields as KubeObject[])[0]!.fieldsV1 as KubeObject;
    ((applied['f:metadata'] as KubeObject)['f:labels'] as KubeObject)['f:tier'] = {};
    const predicted = data.dryRun['v1/services/shop/api']!.body;
    const withDryRun = await scan({
      live,
      dryRun: { 'v1/services/shop/api': { outcome: 'applied', object: predicted, created: false } },
    });
    expect(byObject(withDryRun.result.findings).get('cluster.drift Service/api')!.drift!.changes).toEqual([
      { path: 'metadata.labels.tier', before: null, after: 'web', sensitive: false },
    ]);
    const declared = await scan({ live, comparison: 'declared' });
    expect(byObject(declared.result.findings).get('cluster.drift Service/api')!.drift!.changes).toEqual([
      { path: 'metadata.labels.tier', before: null, after: 'web', sensitive: false },
    ]);
  });

  it('a real change the server kept is drift in every method (kubectl diff --server-side: cpu 500m -> 750m)', async () => {
    const live = fixture().live;
    const worker = live.find((object) => identityOf(object)!.name === 'worker')!;
    const container = (((worker.spec as KubeObject).template as KubeObject).spec as KubeObject)
      .containers as KubeObject[];
    ((container[0]!.resources as KubeObject).requests as KubeObject).cpu = '750m';
    for (const comparison of ['openapi', 'declared'] as const) {
      const { result } = await scan({ comparison, live });
      const drift = byObject(result.findings).get('cluster.drift Deployment/worker')!;
      expect(drift.drift!.changes).toEqual([
        {
          path: 'spec.template.spec.containers[0].resources.requests.cpu',
          before: 0.25,
          after: '750m',
          sensitive: false,
        },
      ]);
    }
  });
});

describe('the OpenAPI v3 normaliser (recorded schema shapes)', () => {
  const apps = createSchemaView(OPENAPI['apps/v1'], 'apps/v1', 'Deployment')!;
  const core = (kind: string) => createSchemaView(OPENAPI.v1, 'v1', kind)!;
  const compare = (schema: ReturnType<typeof core>, desired: KubeObject, live: KubeObject) =>
    diffKubeObjects(normalizeObject(schema.prepareDesired(desired)), normalizeObject(live), {
      mode: 'declared',
      hashSensitive,
      schema,
    });
  const deployment = (container: KubeObject): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'shop' },
    spec: { template: { spec: { containers: [container] } } },
  });

  it('finds a kind by x-kubernetes-group-version-kind, and nothing for a kind the document lacks', () => {
    expect(apps.name).toBe('io.k8s.api.apps.v1.Deployment');
    expect(createSchemaView(OPENAPI['apps/v1'], 'apps/v1', 'StatefulSet')).toBeUndefined();
    expect(createSchemaView({ paths: {} }, 'apps/v1', 'Deployment')).toBeUndefined();
  });

  it('merges ports by containerPort+protocol with the schema default TCP; another protocol is drift', () => {
    const desired = deployment({ name: 'api', ports: [{ name: 'dns', containerPort: 53 }] });
    const tcp = deployment({
      name: 'api',
      ports: [
        { name: 'sidecar', containerPort: 15090, protocol: 'TCP' },
        { name: 'dns', containerPort: 53, protocol: 'TCP' },
      ],
    });
    // kubectl diff --server-side: no difference (the injected port is another manager's).
    expect(compare(apps, desired, tcp)).toEqual([]);
    const udp = deployment({ name: 'api', ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] });
    // kubectl diff --server-side: the TCP port is added (53/UDP is a different element).
    expect(compare(apps, desired, udp).map((change) => change.path)).toEqual([
      'spec.template.spec.containers[0].ports[0]',
    ]);
  });

  it('without a schema, a key two elements share does not pair them (53/TCP and 53/UDP)', () => {
    const ports = (protocols: string[]) =>
      deployment({
        name: 'api',
        ports: protocols.map((protocol) => ({ containerPort: 53, protocol })),
      });
    const changes = diffKubeObjects(ports(['TCP', 'UDP']), ports(['UDP', 'TCP']), {
      mode: 'full',
      hashSensitive,
    });
    // Compared by position (no unique key): both elements differ, neither is silently paired away.
    expect(changes.map((change) => change.path)).toEqual([
      'spec.template.spec.containers[0].ports[0].protocol',
      'spec.template.spec.containers[0].ports[1].protocol',
    ]);
    // With the schema's composite key, the same lists are equal.
    expect(compare(apps, ports(['TCP', 'UDP']), ports(['UDP', 'TCP']))).toEqual([]);
  });

  it('compares quantities by value where the schema says Quantity, and int-or-string by type', () => {
    const desired = deployment({ name: 'api', resources: { limits: { cpu: 0.5, memory: '1024Mi' } } });
    const live = deployment({ name: 'api', resources: { limits: { cpu: '500m', memory: '1Gi' } } });
    expect(compare(apps, desired, live)).toEqual([]);
    const service = core('Service');
    const port = (targetPort: JsonValue): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api' },
      spec: { ports: [{ port: 80, protocol: 'TCP', targetPort }] },
    });
    // The server keeps an IntOrString's type: 8080 and "8080" are different values.
    expect(compare(service, port(8080), port('8080')).map((change) => change.path)).toEqual([
      'spec.ports[0].targetPort',
    ]);
    expect(compare(service, port('http'), port('http'))).toEqual([]);
  });

  it('Secret data: "" stays "", a null entry is stored as "", a removed key is drift', () => {
    const secret = core('Secret');
    const object = (data: KubeObject | undefined): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      ...(data ? { data } : {}),
    });
    // kubectl diff --server-side: no difference for "" against "", nor for null (decoded as "").
    expect(compare(secret, object({ k: '' }), object({ k: '' }))).toEqual([]);
    expect(compare(secret, object({ k: null }), object({ k: '' }))).toEqual([]);
    // The server keeps map entries: a key that is gone was removed by someone.
    expect(
      compare(secret, object({ k: '' }), object({ other: 'eA==' })).map((change) => change.path),
    ).toEqual(['data.k']);
    expect(compare(secret, object({ k: '' }), object(undefined)).map((change) => change.path)).toEqual([
      'data',
    ]);
  });

  it('finalizers are a set (listType=set): one a controller added, or another order, is not drift; a missing one is', () => {
    // An Argo CD Application of an app-of-apps declares its resources finalizer; a controller adds its
    // own (server-side apply merges a set's values from every manager, and reordering is allowed).
    const object = (finalizers: string[]): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'shop', finalizers },
      spec: { template: { spec: { containers: [{ name: 'api', image: 'api:1' }] } } },
    });
    const git = object(['example.com/cleanup', 'resources-finalizer.argocd.argoproj.io']);
    const live = object([
      'resources-finalizer.argocd.argoproj.io',
      'example.com/cleanup',
      'foregroundDeletion',
    ]);
    expect(compare(apps, git, live)).toEqual([]);
    const declaredOnly = diffKubeObjects(normalizeObject(git), normalizeObject(live), {
      mode: 'declared',
      hashSensitive,
    });
    expect(declaredOnly).toEqual([]);
    // A finalizer Git declares that the object lacks is drift (an apply would add it back).
    const without = object(['example.com/cleanup', 'foregroundDeletion']);
    expect(compare(apps, git, without)).toEqual([
      {
        path: 'metadata.finalizers',
        before: ['example.com/cleanup', 'resources-finalizer.argocd.argoproj.io'],
        after: ['example.com/cleanup', 'foregroundDeletion'],
        sensitive: false,
      },
    ]);
    // A server whose schema marks finalizers only `x-kubernetes-patch-strategy: merge` (no list type):
    // ObjectMeta declares them a set whatever the published schema says.
    const unmarked = JSON.parse(JSON.stringify(OPENAPI['apps/v1']), (key, value) =>
      key === 'finalizers' && value?.['x-kubernetes-list-type'] === 'set'
        ? { ...value, 'x-kubernetes-list-type': undefined }
        : value,
    );
    const appsWithoutMarker = createSchemaView(unmarked, 'apps/v1', 'Deployment')!;
    expect(JSON.stringify(unmarked)).not.toContain('"x-kubernetes-list-type":"set"');
    expect(compare(appsWithoutMarker, git, live)).toEqual([]);
    // An atomic list is still compared whole, in order.
    const args = (list: string[]) => deployment({ name: 'api', image: 'api:1', args: list });
    expect(compare(apps, args(['--a', '--b']), args(['--b', '--a']))).toHaveLength(1);
  });

  it('a built-in field set to "" is what the server omits: not drift', () => {
    const desired = deployment({ name: 'api', image: 'api:1', terminationMessagePath: '' });
    const live = deployment({ name: 'api', image: 'api:1' });
    expect(compare(apps, desired, live)).toEqual([]);
    const changed = deployment({ name: 'api', image: 'api:2' });
    expect(compare(apps, desired, changed).map((change) => change.path)).toEqual([
      'spec.template.spec.containers[0].image',
    ]);
  });
});

describe('null in a manifest (an empty key a chart renders: `annotations:` with nothing under it)', () => {
  // `kubectl diff --server-side` shows nothing here: server-side apply drops a null the applier sends
  // for a field it does not own (structured-merge-diff), and Argo CD's diff re-marshals the manifest
  // through the typed object, which drops it too. What other managers wrote stays theirs.
  const [desired] = parseManifests(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
  annotations:
spec:
  template:
    metadata:
      annotations:
    spec:
      nodeSelector:
      containers:
        - name: api
          image: api:1
          resources:
`);
  const live = (image: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'shop', annotations: { 'reloader.stakater.com/auto': 'true' } },
    spec: {
      template: {
        // `kubectl rollout restart` writes this (manager kubectl-rollout); a webhook the node pool.
        metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-30T08:00:00Z' } },
        spec: {
          nodeSelector: { pool: 'general' },
          containers: [{ name: 'api', image, resources: { requests: { cpu: '100m' } } }],
        },
      },
    },
  });
  const apps = createSchemaView(OPENAPI['apps/v1'], 'apps/v1', 'Deployment')!;
  const methods = [
    { method: 'declared-fields' as const },
    { method: 'openapi-normalised' as const, schema: apps },
  ];

  it('is not a declaration: what the live object holds there is not drift, in either compared-field method', () => {
    for (const comparison of methods) {
      expect(comparisonChanges(comparison, desired!, live('api:1'), hashSensitive)).toEqual([]);
      const changed = comparisonChanges(comparison, desired!, live('api:2'), hashSensitive);
      expect(changed.map((change) => change.path)).toEqual(['spec.template.spec.containers[0].image']);
    }
  });

  it('a field the applier owned that Git now leaves null is still a removal', () => {
    const applied = live('api:1');
    (applied.metadata as KubeObject).annotations = { 'reloader.stakater.com/auto': 'true', team: 'payments' };
    (applied.metadata as KubeObject).managedFields = [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:team': {} } } },
      },
    ];
    for (const comparison of methods) {
      const changes = comparisonChanges(
        { ...comparison, fieldManager: 'kubectl' },
        desired!,
        applied,
        hashSensitive,
      );
      expect(changes).toEqual([
        { path: 'metadata.annotations.team', before: null, after: 'payments', sensitive: false },
      ]);
    }
  });
});

describe('cluster-scoped objects in a render', () => {
  // A Helm chart's ClusterRole as `helm template -n billing` leaves it once driftwatch writes the
  // release namespace in (as for every object without one), or as a chart writes it itself.
  const clusterRole = (namespace: string | undefined, verbs: string[]): KubeObject => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'billing-reader', ...(namespace ? { namespace } : {}) },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
  });
  // `GET /apis/rbac.authorization.k8s.io/v1/clusterroles/billing-reader`: no namespace, ever.
  const live = {
    ...clusterRole(undefined, ['get', 'list']),
    metadata: { name: 'billing-reader', uid: 'c0ffee00-0000-4000-8000-000000000001', resourceVersion: '42' },
  };
  // The rbac/v1 document, reduced to the kind (shape of api/openapi-spec/v3/apis__rbac.authorization.k8s.io__v1_openapi.json).
  const rbac = createSchemaView(
    {
      components: {
        schemas: {
          'io.k8s.api.rbac.v1.ClusterRole': {
            type: 'object',
            properties: {
              rules: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
            },
            'x-kubernetes-group-version-kind': [
              { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', version: 'v1' },
            ],
          },
        },
      },
    },
    'rbac.authorization.k8s.io/v1',
    'ClusterRole',
  )!;

  it('a namespace the manifest sets on a cluster-scoped object is what the server ignores: not drift', () => {
    for (const comparison of [
      { method: 'declared-fields' as const },
      { method: 'openapi-normalised' as const, schema: rbac },
    ]) {
      const desired = clusterRole('billing', ['get', 'list']);
      expect(comparisonChanges(comparison, desired, live, hashSensitive)).toEqual([]);
      // What the object holds is still compared.
      const changed = comparisonChanges(comparison, clusterRole('billing', ['get']), live, hashSensitive);
      expect(changed.map((change) => change.path)).toEqual([expect.stringMatching(/^rules/)]);
    }
  });
});
