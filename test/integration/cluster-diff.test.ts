import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../functions/core/findings/model.js';
import { argoScenario, conflictingState } from '../helpers/argo-scenario.js';
import { type FakeArgoCd, startFakeArgoCd } from '../helpers/fake-argocd.js';
import {
  EKS_VERSION_INFO,
  type FakeKubernetes,
  startFakeKubernetes,
  writeKubeconfig,
} from '../helpers/fake-kubernetes.js';
import { helmBinary } from '../helpers/helm-binary.js';
import {
  allFileText,
  canary,
  REPO_ROOT,
  runCli,
  TEST_REGISTRY_OWNERS,
  useTempDir,
} from '../helpers/integration.js';

/**
 * `driftwatch cluster-diff` end to end, as a user runs it: against a local server speaking Argo CD's
 * API (built from our objects in test/fixtures/argo-cd, shaped like Argo CD's own test data), and in direct mode against
 * a fake Kubernetes API with a real `kubectl kustomize` render of examples/gitops/overlays/prod and
 * real `helm template` renders (Helm 3 from the dev dependencies: test/helpers/helm-binary.ts).
 */
const temp = useTempDir('driftwatch-cluster-');
const salt = { DRIFTWATCH_HASH_SALT: 'cluster-test-salt-0000001' };
const token = canary('argocd-token');
const lastApplied = canary('last-applied');
const envSecret = canary('env-secret');
const stateSecret = canary('state-secret');

function findingsOf(stdout: string): Finding[] {
  return JSON.parse(stdout) as Finding[];
}

function expectNoSecrets(text: string): void {
  for (const secret of [token, lastApplied, envSecret, stateSecret]) expect(text).not.toContain(secret);
}

describe('cluster-diff against Argo CD', () => {
  let argo: FakeArgoCd;
  let statePath: string;
  beforeAll(async () => {
    argo = await startFakeArgoCd({ token, applications: argoScenario({ lastApplied, envSecret }) });
    statePath = join(temp.path, 'platform.tfstate');
    writeFileSync(statePath, JSON.stringify(conflictingState(stateSecret)));
  });
  afterAll(async () => {
    await argo?.close();
  });

  it('reports drift, health, pruning and conflicts per object; failures of single applications do not stop the rest', async () => {
    const store = join(temp.path, 'argo-store');
    const run = await runCli(
      [
        'cluster-diff',
        '--argocd',
        argo.url,
        '--terraform-state',
        statePath,
        '--store',
        store,
        '--format',
        'json',
      ],
      { env: { ...salt, ARGOCD_AUTH_TOKEN: token } },
    );
    expect(run.stderr).toContain('cluster diffed');
    // scan-failed findings (a vanished, a garbled and an uncomparable application) make it exit 1.
    expect(run.code, run.stderr).toBe(1);
    const findings = findingsOf(run.stdout);
    const summary = findings.map(
      (finding) =>
        `${finding.ruleId} ${finding.resource && 'kind' in finding.resource ? `${finding.resource.kind}/${finding.resource.name}` : '-'}`,
    );
    expect(summary.sort()).toEqual(
      [
        'cluster.drift Deployment/payments-api',
        'cluster.drift Secret/payments-db',
        'cluster.drift Service/httpbin-svc',
        'cluster.health-degraded Application/argo-workflows',
        'cluster.missing Deployment/payments-worker',
        'cluster.orphaned ConfigMap/payments-legacy',
        'ownership.conflict Secret/payments-db',
        'ownership.conflict Service/httpbin-svc',
        'scan.cluster-application Application/gone',
        'scan.cluster-comparison Application/uncomparable',
        'scan.cluster-invalid-response Application/garbled',
      ].sort(),
    );
    const byRule = (ruleId: string, name: string) =>
      findings.find(
        (finding) => finding.ruleId === ruleId && (finding.resource as { name: string }).name === name,
      )!;

    // The Service trio (gitops-engine's shape): the live Service carries the instance label git does not predict,
    // and misses the label a mutating webhook adds; server-populated fields are not drift.
    expect(
      byRule('cluster.drift', 'httpbin-svc')
        .drift?.changes.map((change) => change.path)
        .sort(),
    ).toEqual(['metadata.labels.event', 'metadata.labels["app.kubernetes.io/instance"]']);
    // The Argo CD 3.x application (resourceHealthSource: appTree) names the resource its API marked Degraded.
    expect(byRule('cluster.health-degraded', 'argo-workflows').evidence).toMatchObject({
      unhealthyResources: [{ kind: 'Deployment', name: 'argo-workflows-server', health: 'Degraded' }],
    });
    const image = byRule('cluster.drift', 'payments-api').drift!.changes;
    expect(image).toContainEqual({
      path: 'spec.template.spec.containers[0].image',
      before: 'registry.example.com/payments-api:1.4.2',
      after: 'registry.example.com/payments-api:1.4.2-hotfix',
      sensitive: false,
    });
    const password = image.find((change) => change.path === 'spec.template.spec.containers[0].env[1].value')!;
    expect(password.sensitive).toBe(true);
    expect(password.before).toMatch(/^\(sensitive:[0-9a-f]{8}\)$/);
    // Masked Secret values stay hashed; the last-applied annotation (plaintext Secret) is dropped.
    const secret = byRule('cluster.drift', 'payments-db');
    expect(secret.drift?.changes).toEqual([
      {
        path: 'data.password',
        before: expect.stringMatching(/^\(sensitive:/),
        after: expect.stringMatching(/^\(sensitive:/),
        sensitive: true,
      },
    ]);
    expect(secret.severity).toBe('high');

    const gone = byRule('scan.cluster-application', 'gone');
    expect(gone.kind).toBe('scan-failed');
    expect(gone.detail).toMatch(/deleted between the list and the read/);
    expect(byRule('scan.cluster-invalid-response', 'garbled').detail).toMatch(/not JSON/);
    expect(byRule('scan.cluster-comparison', 'uncomparable').detail).toMatch(/ComparisonError: rpc error/);

    const conflict = byRule('ownership.conflict', 'httpbin-svc');
    expect(conflict).toMatchObject({
      kind: 'ownership-conflict',
      severity: 'high',
      resource: { app: 'httpbin' },
    });
    expect(conflict.title).toBe(
      'Service httpbin/httpbin-svc in cluster adhoc is managed by both Terraform (platform) and Argo CD application httpbin',
    );
    expect(conflict.evidence.terraform).toEqual([
      expect.objectContaining({
        workspace: 'platform',
        address: 'kubernetes_service_v1.httpbin',
        via: 'identity',
      }),
    ]);
    expect(conflict.remediation.steps.join(' ')).toMatch(/removed` block/);

    expectNoSecrets(run.stdout + run.stderr);
    expectNoSecrets(allFileText(store));
    // Read-only: only GETs, and the API was asked for each application.
    expect(argo.requests.every((request) => request.method === 'GET')).toBe(true);
  });

  it('routes findings to the application owner, keeps them across runs, and flags production applications that stay OutOfSync', async () => {
    const store = join(temp.path, 'registry-store');
    const registry = join(temp.path, 'driftwatch.yaml');
    writeFileSync(
      registry,
      [
        ...TEST_REGISTRY_OWNERS,
        'clusters:',
        '  - id: prod-eu',
        '    owner: platform',
        '    environment: prod',
        `    argocd: { url: "${argo.url}", token: { env: TEST_ARGO_TOKEN } }`,
        '    applications: [{ name: payments-api, owner: payments }]',
        '    policies: { outOfSyncAfter: 1s }',
        '',
      ].join('\n'),
    );
    const args = [
      'cluster-diff',
      '--registry',
      registry,
      '--cluster',
      'prod-eu',
      '--store',
      store,
      '--format',
      'json',
    ];
    const env = { ...salt, TEST_ARGO_TOKEN: token };
    const first = findingsOf((await runCli(args, { env })).stdout);
    const owners = new Map(
      first.map((finding) => [(finding.resource as { app?: string })?.app, finding.owner]),
    );
    expect(owners.get('payments-api')).toBe('payments');
    expect(owners.get('httpbin')).toBe('platform');
    expect(first.some((finding) => finding.ruleId === 'cluster.sync-policy')).toBe(false);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = findingsOf((await runCli(args, { env })).stdout);
    const drift = second.find(
      (finding) =>
        finding.ruleId === 'cluster.drift' &&
        finding.resource &&
        'app' in finding.resource &&
        finding.resource.app === 'httpbin',
    );
    expect(drift?.status).toBe('ongoing');
    const policy = second.filter((finding) => finding.ruleId === 'cluster.sync-policy');
    expect(policy.map((finding) => (finding.resource as { name: string }).name).sort()).toEqual([
      'httpbin',
      'payments-api',
    ]);
    expect(
      policy.find((finding) => (finding.resource as { name: string }).name === 'payments-api'),
    ).toMatchObject({
      owner: 'payments',
      title: 'Production application payments-api stays OutOfSync without automated sync',
    });
    const current = JSON.parse(readFileSync(join(store, 'current/prod-eu.json'), 'utf8'));
    // A run with failed applications resolves nothing: it did not see everything.
    expect(current.checks.cluster.status).toBe('failed');
  });

  it('a rejected token is one scan-failed finding naming the 401, without the token', async () => {
    const run = await runCli(
      ['cluster-diff', '--argocd', argo.url, '--store', join(temp.path, 's401'), '--format', 'json'],
      {
        env: { ...salt, ARGOCD_AUTH_TOKEN: 'not-the-token' },
      },
    );
    expect(run.code).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.cluster-unauthorized' });
    expect(findings[0]!.detail).toMatch(/401.*token signature is invalid/);
    expect(run.stdout + run.stderr).not.toContain('not-the-token');
  });
});

describe('cluster-diff failures', () => {
  it('an unreachable Argo CD is one scan-failed finding', async () => {
    const closed = await closedPort();
    const run = await runCli(
      [
        'cluster-diff',
        '--argocd',
        `http://127.0.0.1:${closed}`,
        '--store',
        join(temp.path, 'down'),
        '--format',
        'json',
      ],
      {
        env: { ...salt, ARGOCD_AUTH_TOKEN: token },
      },
    );
    expect(run.code).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(findings).toEqual([
      expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.cluster-unreachable' }),
    ]);
    expect(findings[0]!.detail).toContain(`cannot reach http://127.0.0.1:${closed} (ECONNREFUSED)`);
    expectNoSecrets(run.stdout + run.stderr);
  });

  it('a missing token variable is a scan-failed finding that names the variable', async () => {
    const run = await runCli(
      [
        'cluster-diff',
        '--argocd',
        'http://127.0.0.1:1',
        '--token-env',
        'NOPE_TOKEN',
        '--store',
        join(temp.path, 'notoken'),
        '--format',
        'json',
      ],
      {
        env: { ...salt, NOPE_TOKEN: '' },
      },
    );
    expect(run.code).toBe(1);
    expect(findingsOf(run.stdout)[0]).toMatchObject({ ruleId: 'scan.cluster-credentials' });
    expect(findingsOf(run.stdout)[0]!.detail).toContain('NOPE_TOKEN');
  });

  it('rejects an Argo CD URL over plain http to another host', async () => {
    const run = await runCli(['cluster-diff', '--argocd', 'http://argocd.example.com'], { env: salt });
    // A usage error (test/unit/cli/cluster-diff-cli.test.ts has the others).
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('plain http would send the API token in clear text: use https://');
  });
});

describe('cluster-diff in direct mode (kustomize overlay versus the Kubernetes API)', () => {
  const liveSecret = canary('live-secret');
  let kube: FakeKubernetes;
  let kubeconfig: string;
  beforeAll(async () => {
    kube = await startFakeKubernetes({
      objects: liveObjects(liveSecret),
      authorize: (header) => header === 'Bearer kube-token',
    });
    kubeconfig = writeKubeconfig(join(temp.path, 'kubeconfig'), kube.server, 'kube-token', 'shop');
  });
  afterAll(async () => {
    await kube?.close();
  });

  it('compares only what the manifests declare: drift, a missing object and a changed Secret, no server defaults', async () => {
    const store = join(temp.path, 'direct-store');
    const run = await runCli(
      [
        'cluster-diff',
        '--kustomize',
        'examples/gitops/overlays/prod',
        '--context',
        'shop',
        '--id',
        'shop-local',
        '--store',
        store,
        '--format',
        'json',
      ],
      { env: { ...salt, KUBECONFIG: kubeconfig } },
    );
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);
    const byName = new Map(
      findings.map((finding) => [
        `${finding.ruleId} ${(finding.resource as { name: string }).name}`,
        finding,
      ]),
    );
    expect([...byName.keys()].sort()).toEqual([
      'cluster.drift web',
      'cluster.drift web-secrets',
      'cluster.missing web-config',
    ]);
    // 0.5 CPU is 500m and 1024Mi is 1Gi: quantities the API server rewrote are not drift.
    expect(byName.get('cluster.drift web')!.drift!.changes).toEqual([
      {
        path: 'spec.template.spec.containers[0].image',
        before: 'nginx:1.27.3',
        after: 'nginx:1.27.0',
        sensitive: false,
      },
    ]);
    expect(byName.get('cluster.drift web')!.resource).toEqual({
      group: 'apps',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
    });
    const secret = byName.get('cluster.drift web-secrets')!;
    expect(secret.drift!.changes).toEqual([
      {
        path: 'data.api-key',
        before: expect.stringMatching(/^\(sensitive:/),
        after: expect.stringMatching(/^\(sensitive:/),
        sensitive: true,
      },
    ]);
    // Neither the overlay's secret nor the live one, in plain text or base64, is anywhere.
    const secrets = ['example-value-not-a-real-secret', liveSecret];
    const output = run.stdout + run.stderr + allFileText(store);
    for (const value of secrets) {
      expect(output).not.toContain(value);
      expect(output).not.toContain(Buffer.from(value).toString('base64'));
    }
    expect(kube.requests.filter((request) => request.authorization !== 'Bearer kube-token')).toEqual([]);
  });

  it('an API server that rejects the credentials is one scan-failed finding, not one per object', async () => {
    const other = writeKubeconfig(join(temp.path, 'kubeconfig-bad'), kube.server, 'wrong-token', 'shop');
    const run = await runCli(
      [
        'cluster-diff',
        '--kustomize',
        'examples/gitops/overlays/prod',
        '--context',
        'shop',
        '--store',
        join(temp.path, 'direct-401'),
        '--format',
        'json',
      ],
      { env: { ...salt, KUBECONFIG: other } },
    );
    expect(run.code).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(findings).toEqual([expect.objectContaining({ ruleId: 'scan.cluster-unauthorized' })]);
    expect(findings[0]!.detail).toMatch(/401/);
  });
});

describe('cluster-diff in direct mode with server-side dry-run (recorded API answers, test/fixtures/kubernetes)', () => {
  const fixtures = join(REPO_ROOT, 'test/fixtures/kubernetes');
  const recorded = JSON.parse(readFileSync(join(fixtures, 'server-side-diff/cluster.json'), 'utf8')) as {
    live: Array<Record<string, unknown>>;
    dryRun: Record<string, { status: number; body: unknown }>;
    refusals: Record<
      'forbidden' | 'webhookWithoutDryRun' | 'unsupportedMediaType',
      { status: number; body: unknown }
    >;
  };
  const openapiFile = (name: string) => JSON.parse(readFileSync(join(fixtures, 'openapi-v3', name), 'utf8'));
  const openapi = {
    index: openapiFile('index.json'),
    documents: {
      '/openapi/v3/apis/apps/v1': openapiFile('apis__apps__v1.json'),
      '/openapi/v3/api/v1': openapiFile('api__v1.json'),
    },
  };
  const token = 'fixture-token-not-a-real-secret';

  async function diffWith(
    dryRun: (key: string) => { status: number; body: unknown } | undefined,
    name: string,
    objects: Array<Record<string, unknown>> = recorded.live,
  ) {
    const kube = await startFakeKubernetes({
      objects,
      authorize: (header) => header === 'Bearer ssd-token',
      dryRun,
      openapi,
    });
    try {
      const kubeconfig = writeKubeconfig(
        join(temp.path, `kubeconfig-${name}`),
        kube.server,
        'ssd-token',
        'shop',
      );
      const run = await runCli(
        [
          'cluster-diff',
          '--kustomize',
          'test/fixtures/kubernetes/server-side-diff/manifests',
          '--context',
          'shop',
          '--store',
          join(temp.path, `ssd-${name}`),
          '--format',
          'json',
        ],
        { env: { ...salt, KUBECONFIG: kubeconfig } },
      );
      return { run, kube };
    } finally {
      await kube.close();
    }
  }

  function verdicts(findings: Finding[]) {
    return findings
      .map((finding) => {
        const resource = finding.resource as { kind: string; name: string };
        return `${finding.ruleId} ${resource.kind}/${resource.name} ${(finding.evidence as { comparison?: string }).comparison}`;
      })
      .sort();
  }

  const imageDrift = [
    {
      path: 'spec.template.spec.containers[0].image',
      before: 'registry.example.com/shop/api:1.4.2',
      after: 'registry.example.com/shop/api:1.4.1',
      sensitive: false,
    },
  ];

  it('sends dry-run apply patches only, and finds what kubectl diff --server-side finds: the image, a missing ConfigMap', async () => {
    // The worker's namespace has an admission webhook without `sideEffects: None`: the API server
    // refuses its dry-run (400), and that one object is compared through the OpenAPI schema.
    const { run, kube } = await diffWith(
      (key) =>
        key === 'apps/v1/deployments/shop/worker'
          ? recorded.refusals.webhookWithoutDryRun
          : recorded.dryRun[key],
      'dry-run',
    );
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);
    expect(verdicts(findings)).toEqual([
      'cluster.drift Deployment/api server-side-dry-run',
      'cluster.missing ConfigMap/api-config undefined',
    ]);
    expect(findings.find((finding) => finding.ruleId === 'cluster.drift')!.drift!.changes).toEqual(
      imageDrift,
    );
    const patches = kube.requests.filter((request) => request.method === 'PATCH');
    expect(patches.map((request) => request.path).sort()).toEqual([
      '/api/v1/namespaces/shop/secrets/api-secrets',
      '/api/v1/namespaces/shop/services/api',
      '/apis/apps/v1/namespaces/shop/deployments/api',
      '/apis/apps/v1/namespaces/shop/deployments/worker',
    ]);
    for (const patch of patches) {
      expect(patch.query).toEqual({ dryRun: 'All', fieldManager: 'kubectl', force: 'true' });
      expect(patch.contentType).toBe('application/apply-patch+yaml');
    }
    expect(
      kube.requests.filter((request) => request.path.startsWith('/openapi/v3/')).map((r) => r.path),
    ).toEqual(['/openapi/v3/apis/apps/v1']);
    // The stand-in refuses and records every request that could change the cluster.
    expect(kube.writes).toEqual([]);
    const output = run.stdout + run.stderr + allFileText(join(temp.path, 'ssd-dry-run'));
    expect(output).not.toContain(token);
    expect(output).not.toContain(Buffer.from(token).toString('base64'));
  });

  it('a manifest the server rejects (422) fails that object only; the others are still compared', async () => {
    const invalid = {
      status: 422,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message:
          'Secret "api-secrets" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters',
        reason: 'Invalid',
        code: 422,
      },
    };
    const { run, kube } = await diffWith(
      (key) => (key === 'v1/secrets/shop/api-secrets' ? invalid : recorded.dryRun[key]),
      'invalid',
    );
    expect(run.code, run.stderr).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(verdicts(findings)).toEqual([
      'cluster.drift Deployment/api server-side-dry-run',
      'cluster.missing ConfigMap/api-config undefined',
      'scan.cluster-object Secret/api-secrets undefined',
    ]);
    const failure = findings.find((finding) => finding.ruleId === 'scan.cluster-object')!;
    expect(failure.detail).toContain('422');
    expect(kube.writes).toEqual([]);
  });

  it('the stand-in lists by label selector as the API server does', async () => {
    const kube = await startFakeKubernetes({
      objects: recorded.live,
      authorize: (header) => header === 'Bearer ssd-token',
    });
    try {
      const list = async (path: string) => {
        const response = await fetch(`${kube.server}${path}`, {
          headers: { authorization: 'Bearer ssd-token' },
        });
        const body = (await response.json()) as {
          kind: string;
          items: Array<{ metadata: { name: string } }>;
        };
        return { kind: body.kind, names: body.items.map((item) => item.metadata.name) };
      };
      expect(await list('/apis/apps/v1/namespaces/shop/deployments?labelSelector=app%3Dapi')).toEqual({
        kind: 'DeploymentList',
        names: ['api'],
      });
      expect(await list('/apis/apps/v1/namespaces/shop/deployments')).toEqual({
        kind: 'DeploymentList',
        names: ['api', 'worker'],
      });
      expect(await list('/api/v1/namespaces/shop/services?labelSelector=app%3Dworker')).toEqual({
        kind: 'ServiceList',
        names: [],
      });
    } finally {
      await kube.close();
    }
  });

  it('a forbidden dry-run (403 on every object) reads the OpenAPI v3 schema instead: same verdicts, and the finding says why', async () => {
    const { run, kube } = await diffWith(() => recorded.refusals.forbidden, 'forbidden');
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);
    expect(verdicts(findings)).toEqual([
      'cluster.drift Deployment/api openapi-normalised',
      'cluster.missing ConfigMap/api-config undefined',
    ]);
    const drift = findings.find((finding) => finding.ruleId === 'cluster.drift')!;
    expect(drift.drift!.changes).toEqual(imageDrift);
    expect(drift.evidence).toMatchObject({ comparisonFallback: expect.stringContaining('refused (403)') });
    // The index once, then each group version's document once (cached per scan).
    const openapiReads = kube.requests.filter((request) => request.path.startsWith('/openapi/v3'));
    expect(openapiReads.map((request) => request.path).sort()).toEqual([
      '/openapi/v3',
      '/openapi/v3/api/v1',
      '/openapi/v3/apis/apps/v1',
    ]);
    expect(kube.writes).toEqual([]);
  });

  it('a server that cannot take apply patches (415, older than server-side apply) is compared through its OpenAPI schema: same verdicts', async () => {
    const { run, kube } = await diffWith(
      () => recorded.refusals.unsupportedMediaType,
      'unsupported-media-type',
    );
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);
    expect(verdicts(findings)).toEqual([
      'cluster.drift Deployment/api openapi-normalised',
      'cluster.missing ConfigMap/api-config undefined',
    ]);
    const drift = findings.find((finding) => finding.ruleId === 'cluster.drift')!;
    expect(drift.drift!.changes).toEqual(imageDrift);
    expect(drift.evidence).toMatchObject({
      comparisonFallback: expect.stringContaining(
        'refused (415): the body of the request was in an unknown format',
      ),
    });
    expect(kube.writes).toEqual([]);
  });

  it('a live object the application tracks but Git no longer renders is cluster.extraneous (Argo CD: requiresPruning); IgnoreExtraneous, Helm labels and other apps are not', async () => {
    // Argo CD (annotation tracking, its 3.x default) applied the overlay as application `shop`: every
    // live object carries a tracking id naming itself. The extra ConfigMaps come from
    // test/fixtures/kubernetes/extraneous/list.json, with Argo CD's verdict for each.
    const extra = JSON.parse(readFileSync(join(fixtures, 'extraneous/list.json'), 'utf8')) as {
      items: Array<Record<string, unknown>>;
    };
    const tracked = recorded.live.map((object) => {
      const copy = structuredClone(object) as {
        apiVersion: string;
        kind: string;
        metadata: Record<string, unknown>;
      };
      const group = copy.apiVersion.includes('/') ? copy.apiVersion.split('/')[0] : '';
      copy.metadata.annotations = {
        ...(copy.metadata.annotations as Record<string, string> | undefined),
        'argocd.argoproj.io/tracking-id': `shop:${group}/${copy.kind}:shop/${String(copy.metadata.name)}`,
      };
      return copy;
    });
    // The recorded dry-run answers predate the tracking ids: compare through the schema instead.
    const { run, kube } = await diffWith(() => recorded.refusals.forbidden, 'extraneous', [
      ...tracked,
      ...extra.items.filter((item) => (item.metadata as { name: string }).name !== 'settings-b8m4t6'),
    ]);
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);
    expect(verdicts(findings)).toEqual([
      'cluster.drift Deployment/api openapi-normalised',
      'cluster.extraneous ConfigMap/settings-7h2k9d undefined',
      'cluster.missing ConfigMap/api-config undefined',
    ]);
    const extraneous = findings.find((finding) => finding.ruleId === 'cluster.extraneous')!;
    expect(extraneous.resource).toMatchObject({ app: 'shop', namespace: 'shop' });
    expect(extraneous.severity).toBeDefined();
    // One LIST per kind and namespace (annotations cannot be selected on, so no label selector).
    const lists = kube.requests.filter(
      (request) =>
        request.method === 'GET' && /\/(configmaps|secrets|services|deployments)$/.test(request.path),
    );
    expect(lists.map((request) => request.path).sort()).toEqual([
      '/api/v1/namespaces/shop/configmaps',
      '/api/v1/namespaces/shop/secrets',
      '/api/v1/namespaces/shop/services',
      '/apis/apps/v1/namespaces/shop/deployments',
    ]);
    expect(kube.writes).toEqual([]);
  });
});

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What the API server would hold after the overlay was applied, then edited by hand. */
function liveObjects(secretValue: string): Array<Record<string, unknown>> {
  const serverMetadata = {
    uid: '6f1c8a2e-0d1b-4a7e-9b1e-1d2c3b4a5f60',
    resourceVersion: '48213',
    creationTimestamp: '2026-11-20T09:00:00Z',
    generation: 4,
  };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'shop',
        labels: { 'app.kubernetes.io/name': 'web' },
        annotations: { 'deployment.kubernetes.io/revision': '4' },
        ...serverMetadata,
      },
      spec: {
        replicas: 3,
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.27.0',
                imagePullPolicy: 'IfNotPresent',
                ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
                env: [{ name: 'LOG_LEVEL', value: 'info' }],
                resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '1Gi' } },
                terminationMessagePath: '/dev/termination-log',
              },
            ],
            restartPolicy: 'Always',
            dnsPolicy: 'ClusterFirst',
          },
        },
      },
      status: { replicas: 3, readyReplicas: 3, observedGeneration: 4 },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web',
        namespace: 'shop',
        labels: { 'app.kubernetes.io/name': 'web' },
        ...serverMetadata,
      },
      spec: {
        clusterIP: '10.96.12.34',
        clusterIPs: ['10.96.12.34'],
        type: 'ClusterIP',
        sessionAffinity: 'None',
        ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }],
        selector: { 'app.kubernetes.io/name': 'web' },
      },
      status: { loadBalancer: {} },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'web-secrets', namespace: 'shop', ...serverMetadata },
      type: 'Opaque',
      data: { 'api-key': Buffer.from(secretValue).toString('base64') },
    },
  ];
}

it('the example overlay renders with a real kubectl kustomize', async () => {
  const { execFileSync } = await import('node:child_process');
  const rendered = execFileSync('kubectl', ['kustomize', join(REPO_ROOT, 'examples/gitops/overlays/prod')], {
    encoding: 'utf8',
  });
  expect(rendered).toContain('image: nginx:1.27.3');
  expect(rendered).toContain('namespace: shop');
});

describe('cluster-diff renders Helm charts from the registry with a real Helm 3 (helm template)', () => {
  const serverMetadata = {
    uid: '5b0f3a57-0c54-4d0e-9a3c-3e9e6b1f0c11',
    resourceVersion: '812',
    creationTimestamp: '2026-11-30T08:00:00Z',
  };
  const chartLabels = {
    'helm.sh/chart': 'shop-0.1.0',
    'app.kubernetes.io/name': 'shop',
    'app.kubernetes.io/instance': 'shop',
    'app.kubernetes.io/managed-by': 'Helm',
  };
  const selector = { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': 'shop' };
  /** The chart as the server holds it after `helm install -f values-prod.yaml -f values-override.yaml`. */
  const liveShop = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shop-config', namespace: 'shop', labels: chartLabels, ...serverMetadata },
      data: { LOG_LEVEL: 'debug' },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop', namespace: 'shop', labels: chartLabels, generation: 2, ...serverMetadata },
      spec: {
        replicas: 3,
        revisionHistoryLimit: 10,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: selector },
          spec: {
            containers: [
              {
                name: 'shop',
                image: 'nginx:1.27.0',
                imagePullPolicy: 'IfNotPresent',
                envFrom: [{ configMapRef: { name: 'shop-config' } }],
                ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              },
            ],
            restartPolicy: 'Always',
          },
        },
      },
      status: { replicas: 3, readyReplicas: 3 },
    },
  ];
  const policyV1 = {
    'policy/v1': [{ name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true }],
  };
  /** A 1.28 cluster: the capabilities chart renders `sidecars: emulated` for it, and its PodDisruptionBudget. */
  const version128 = { ...EKS_VERSION_INFO, minor: '28+', gitVersion: 'v1.28.15-eks-7f9249a' };
  const liveGated = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'gated-cluster', namespace: 'shop', ...serverMetadata },
      data: { kubeVersion: 'v1.28.15-eks-7f9249a', sidecars: 'emulated' },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'gated', namespace: 'shop', generation: 1, ...serverMetadata },
      spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/instance': 'gated' } } },
    },
  ];

  let helm: string;
  let kube: FakeKubernetes;
  let kubeconfig: string;
  beforeAll(async () => {
    helm = await helmBinary();
    kube = await startFakeKubernetes({
      objects: [...liveShop, ...liveGated],
      authorize: (header) => header === 'Bearer helm-token',
      resources: policyV1,
      version: version128,
    });
    kubeconfig = writeKubeconfig(join(temp.path, 'kubeconfig-helm'), kube.server, 'helm-token', 'shop');
    // Charts and values resolve relative to the registry: copy the fixtures next to it.
    cpSync(join(REPO_ROOT, 'test/fixtures/gitops-render/helm'), join(temp.path, 'helm'), { recursive: true });
  });
  afterAll(async () => {
    await kube?.close();
  });

  function registryWith(name: string, chart: string, helmPath = helm): string {
    const registry = join(temp.path, `helm-${name}.yaml`);
    writeFileSync(
      registry,
      [
        ...TEST_REGISTRY_OWNERS,
        'clusters:',
        '  - id: shop-helm',
        '    owner: platform',
        '    environment: staging',
        '    kubernetes:',
        '      context: shop',
        '      comparison: declared',
        `      manifests: { helm: ${chart} }`,
        `      render: { helm: "${helmPath}" }`,
        '',
      ].join('\n'),
    );
    return registry;
  }

  async function clusterDiff(registry: string, env: NodeJS.ProcessEnv = { KUBECONFIG: kubeconfig }) {
    const store = join(temp.path, `store-${registry.split('/').pop()}`);
    return runCli(
      [
        'cluster-diff',
        '--registry',
        registry,
        '--cluster',
        'shop-helm',
        '--store',
        store,
        '--format',
        'json',
      ],
      { env: { ...salt, ...env } },
    );
  }

  function summary(stdout: string): string[] {
    return findingsOf(stdout).map((finding) => {
      const resource = finding.resource as { kind?: string; name?: string } | undefined;
      return `${finding.ruleId} ${resource?.kind}/${resource?.name}`;
    });
  }

  it('renders the chart with the values files in registry order, compares it and sets its hook and generateName Job apart', async () => {
    const values = '[helm/values-prod.yaml, helm/values-override.yaml]';
    const before = kube.requests.length;
    const run = await clusterDiff(
      registryWith('shop', `{ chart: helm/chart, release: shop, namespace: shop, values: ${values} }`),
    );
    // The ConfigMap (LOG_LEVEL from values-override.yaml, the last file) and the Deployment
    // (replicas from values-prod.yaml) match; the Service was never installed.
    expect(run.code, run.stderr).toBe(2);
    expect(summary(run.stdout)).toEqual(['cluster.missing Service/shop']);
    // The hook and the generateName Job: no finding, no read, no failure; listed in the log.
    expect(run.stderr).toContain('Job shop-migrate: Helm hook (helm.sh/hook: pre-install)');
    expect(run.stderr).toContain('Job shop-smoke-*: generateName without a name');
    const requests = kube.requests.slice(before).map((request) => `${request.method} ${request.path}`);
    expect(requests.some((request) => request.includes('/jobs'))).toBe(false);
    // The cluster's capabilities are read once per scan (GET only).
    expect(requests.filter((request) => request === 'GET /version')).toHaveLength(1);
    expect(requests).toEqual(expect.arrayContaining(['GET /api', 'GET /apis']));
    expect(kube.writes).toEqual([]);
  });

  it('the same values files in the other order: the other logLevel wins, and the ConfigMap drifts', async () => {
    const values = '[helm/values-override.yaml, helm/values-prod.yaml]';
    const run = await clusterDiff(
      registryWith(
        'shop-reversed',
        `{ chart: helm/chart, release: shop, namespace: shop, values: ${values} }`,
      ),
    );
    expect(run.code, run.stderr).toBe(2);
    expect(summary(run.stdout).sort()).toEqual([
      'cluster.drift ConfigMap/shop-config',
      'cluster.missing Service/shop',
    ]);
    // before: the render (values-prod.yaml, now last); after: the cluster (installed with debug).
    const drift = findingsOf(run.stdout).find((finding) => finding.ruleId === 'cluster.drift');
    expect(drift?.drift?.changes).toEqual([
      { path: 'data.LOG_LEVEL', before: 'warn', after: 'debug', sensitive: false },
    ]);
  });

  it('.Capabilities are the cluster’s: --kube-version and --api-versions from /version and discovery', async () => {
    const run = await clusterDiff(
      registryWith('gated', '{ chart: helm/capabilities-chart, release: gated, namespace: shop }'),
    );
    // Rendered for a 1.28 server that serves policy/v1 PodDisruptionBudget: both match the live objects.
    expect(run.code, run.stderr).toBe(0);
    expect(summary(run.stdout)).toEqual([]);
    // The PodDisruptionBudget was rendered (the chart saw policy/v1/PodDisruptionBudget) and read.
    expect(kube.requests.map((request) => request.path)).toContain(
      '/apis/policy/v1/namespaces/shop/poddisruptionbudgets/gated',
    );
    expect(run.stderr).not.toMatch(/ran without|leave out group versions/);
  });

  it('discovery that fails renders with Helm’s defaults and says why in the log; the scan does not fail', async () => {
    const refusing = await startFakeKubernetes({
      objects: liveGated,
      authorize: (header) => header === 'Bearer helm-token',
      resources: policyV1,
      failures: {
        'GET /version': {
          status: 403,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: 'forbidden: User "driftwatch" cannot get path "/version"',
            reason: 'Forbidden',
            code: 403,
          },
        },
      },
    });
    try {
      const config = writeKubeconfig(
        join(temp.path, 'kubeconfig-refusing'),
        refusing.server,
        'helm-token',
        'shop',
      );
      const run = await clusterDiff(
        registryWith('gated-refused', '{ chart: helm/capabilities-chart, release: gated, namespace: shop }'),
        { KUBECONFIG: config },
      );
      // Helm's defaults: Kubernetes v1.32.0 (so `sidecars: native`) and no PodDisruptionBudget kind.
      expect(run.code, run.stderr).toBe(2);
      expect(summary(run.stdout)).toEqual(['cluster.drift ConfigMap/gated-cluster']);
      expect(findingsOf(run.stdout)[0]?.drift?.changes.map((change) => [change.path, change.before])).toEqual(
        [
          ['data.kubeVersion', 'v1.32.0'],
          ['data.sidecars', 'native'],
        ],
      );
      expect(run.stderr).toContain(
        "helm template ran without --kube-version/--api-versions (.Capabilities are Helm's defaults, not the cluster's): discovery failed: GET /version: 403",
      );
    } finally {
      await refusing.close();
    }
  });

  it('a chart whose template fails is one scan-failed finding with Helm’s reason, not a crash', async () => {
    const run = await clusterDiff(registryWith('failing', '{ chart: helm/failing-chart, release: billing }'));
    expect(run.code).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-manifests']);
    expect(findings[0]!.detail).toContain(
      "helm/failing-chart failed: execution error at (billing/templates/configmap.yaml:6:11): database.host is required: set it in the release's values: fix the chart's template or the values it reads",
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a helm binary that is missing is one scan-failed finding naming the fix', async () => {
    const run = await clusterDiff(
      registryWith(
        'missing',
        '{ chart: helm/chart, release: shop, namespace: shop }',
        '/nonexistent/bin/helm',
      ),
    );
    expect(run.code).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-manifests']);
    expect(findings[0]!.detail).toContain(
      '/nonexistent/bin/helm is not installed or not on PATH: install helm or set clusters[].kubernetes.render.helm to its path',
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
