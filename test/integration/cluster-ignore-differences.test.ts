import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKubernetesReader, kubeConfigForEks } from '../../functions/adapters/kubernetes-client.js';
import type { FindingDraft } from '../../functions/core/findings/model.js';
import { scanCluster } from '../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import type { ClusterComparison, IgnoreDifferencesRule } from '../../functions/core/registry/model.js';
import { eksDirectCluster } from '../helpers/direct-scan.js';
import {
  type FakeKubernetes,
  type RecordedResponse,
  startFakeKubernetes,
  writeKubeconfig,
} from '../helpers/fake-kubernetes.js';
import { runCli, TEST_REGISTRY_OWNERS, useTempDir } from '../helpers/integration.js';
import { registryOfCluster } from '../helpers/registry.js';

/**
 * Issue 14 §2: direct mode applies the ignoreDifferences Argo CD would apply, read through the
 * Kubernetes API stand-in with recorded API shapes (test/fixtures/kubernetes/README.md,
 * `ignore-differences/`): the tracking Application's (jsonPointers, a jqPathExpression,
 * managedFieldsManagers), argocd-cm's (`.all`, `apps_Deployment`), and the registry's own rules,
 * in every comparison method. The real Kubernetes adapter reads them.
 */
const FIXTURES = join(import.meta.dirname, '../fixtures/kubernetes');
const recorded = JSON.parse(readFileSync(join(FIXTURES, 'ignore-differences/cluster.json'), 'utf8')) as {
  application: Record<string, unknown>;
  argocdCm: Record<string, unknown>;
  live: Array<Record<string, unknown>>;
  dryRun: Record<string, RecordedResponse>;
  applicationForbidden: RecordedResponse;
};
const rendered = readFileSync(join(FIXTURES, 'ignore-differences/rendered.yaml'), 'utf8');
const openapiFile = (name: string) => JSON.parse(readFileSync(join(FIXTURES, 'openapi-v3', name), 'utf8'));
const OPENAPI = {
  index: openapiFile('index.json'),
  documents: {
    '/openapi/v3/apis/apps/v1': openapiFile('apis__apps__v1.json'),
    '/openapi/v3/api/v1': openapiFile('api__v1.json'),
  },
};
const APPLICATION_PATH = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/shop';
const TOKEN = 'ignore-differences-token';

/** The registry's rule for the ConfigMap a person edits by hand (a flag, and a key Git removed). */
const REGISTRY_RULE: IgnoreDifferencesRule = {
  group: '',
  kind: 'ConfigMap',
  name: 'api-flags',
  jsonPointers: ['/data/feature.beta', '/data/legacy.endpoint'],
};

let kube: FakeKubernetes | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

async function scan(options: {
  comparison: ClusterComparison;
  failures?: Record<string, RecordedResponse>;
  ignoreDifferences?: IgnoreDifferencesRule[];
  objects?: Array<Record<string, unknown>>;
  text?: string;
  resources?: Parameters<typeof startFakeKubernetes>[0]['resources'];
}) {
  kube = await startFakeKubernetes({
    objects: options.objects ?? [...recorded.live, recorded.application, recorded.argocdCm],
    authorize: (header) => header === `Bearer ${TOKEN}`,
    dryRun: (key) => recorded.dryRun[key],
    openapi: OPENAPI,
    ...(options.failures ? { failures: options.failures } : {}),
    ...(options.resources ? { resources: options.resources } : {}),
  });
  const server = kube.server;
  const cluster = eksDirectCluster(server, {
    manifests: { s3: 's3://ci/shop.yaml' },
    comparison: options.comparison,
    // Argo CD applies with server-side apply: its manager owns what Git set.
    fieldManager: 'argocd-controller',
    ...(options.ignoreDifferences ? { ignoreDifferences: options.ignoreDifferences } : {}),
  });
  const reader = createKubernetesReader({
    config: async () => kubeConfigForEks({ cluster: 'shop', server }, TOKEN),
  });
  return scanCluster(cluster, {
    registry: registryOfCluster(cluster),
    ports: {
      argocd: () => {
        throw new Error('direct mode reads no Argo CD API');
      },
      kubernetes: () => ({
        server,
        desiredManifests: async () => ({ text: options.text ?? rendered, source: 's3://ci/shop.yaml' }),
        ...reader,
      }),
      terraformObjects: async () => [],
    },
    hashSensitive: createSensitiveHasher('ignore-differences-salt-01'),
    now: new Date('2026-12-02T03:00:00Z'),
  });
}

function verdicts(findings: FindingDraft[]): string[] {
  return findings
    .map((finding) => {
      const resource = finding.resource as { kind?: string; namespace?: string; name?: string } | undefined;
      return `${finding.ruleId} ${resource?.kind}/${resource?.namespace ? `${resource.namespace}/` : ''}${resource?.name}`;
    })
    .sort();
}

function driftOf(findings: FindingDraft[], name: string) {
  const finding = findings.find(
    (entry) => entry.ruleId === 'cluster.drift' && (entry.resource as { name: string }).name === name,
  );
  expect(finding, `no drift finding for ${name}`).toBeDefined();
  return finding!;
}

const paths = (finding: FindingDraft) => finding.drift!.changes.map((change) => change.path).sort();
const ignoredOf = (finding: FindingDraft) =>
  [...((finding.evidence as { ignored?: Array<{ path: string; reason: string }> }).ignored ?? [])].sort(
    (a, b) => a.path.localeCompare(b.path),
  );

const IMAGE = 'spec.template.spec.containers[0].image';
const APPLICATION_RULES = [
  {
    path: 'metadata.annotations["example.com/config-hash"]',
    reason: 'Application argocd/shop ignoreDifferences: managedFieldsManagers config-reloader',
  },
  {
    path: 'spec.replicas',
    reason: 'Application argocd/shop ignoreDifferences: jsonPointers /spec/replicas',
  },
  {
    path: 'spec.template.spec.initContainers[0].image',
    reason:
      'Application argocd/shop ignoreDifferences: jqPathExpressions .spec.template.spec.initContainers[] | select(.name == "injected-init-container")',
  },
];
const ARGOCD_CM_RULES = [
  {
    path: 'metadata.labels["example.com/cost-center"]',
    reason:
      'argocd-cm resource.customizations.ignoreDifferences.all: jsonPointers /metadata/labels/example.com~1cost-center',
  },
  {
    path: 'spec.template.spec.containers[0].resources.requests.cpu',
    reason:
      'argocd-cm resource.customizations.ignoreDifferences.apps_Deployment: managedFieldsManagers vpa-updater',
  },
];

describe("direct mode applies Argo CD's ignoreDifferences and the registry's", () => {
  it.each(['server-dry-run', 'openapi', 'declared'] as const)(
    '%s: only the image is drift; what each rule hid is listed with the rule; the ConfigMap the registry rule covers has no finding',
    async (comparison) => {
      const result = await scan({ comparison, ignoreDifferences: [REGISTRY_RULE] });
      expect(verdicts(result.findings)).toEqual(['cluster.drift Deployment/shop/api']);
      const drift = driftOf(result.findings, 'api');
      expect(drift.drift!.changes).toEqual([
        {
          path: IMAGE,
          before: 'registry.example.com/shop/api:1.4.2',
          after: 'registry.example.com/shop/api:1.4.1',
          sensitive: false,
        },
      ]);
      expect(ignoredOf(drift)).toEqual(
        [...APPLICATION_RULES, ...ARGOCD_CM_RULES].sort((a, b) => a.path.localeCompare(b.path)),
      );
      expect(drift.evidence).not.toHaveProperty('ignoreDifferencesUnread');
      expect(result).not.toHaveProperty('ignoreRulesUnread');
      expect(result.outcome).toBe('ok');
      // The Application is read once for the scan, though it tracks two objects; nothing is written.
      expect(kube!.requests.filter((request) => request.path === APPLICATION_PATH)).toHaveLength(1);
      expect(kube!.writes).toEqual([]);
    },
  );

  it('without the registry rule the ConfigMap is drift: a changed flag and a key Git removed (so the rule is what hides both)', async () => {
    for (const comparison of ['server-dry-run', 'declared'] as const) {
      const result = await scan({ comparison });
      const flags = driftOf(result.findings, 'api-flags');
      expect(paths(flags)).toEqual(['data["legacy.endpoint"]', 'data["feature.beta"]'].sort());
      await kube?.close();
      kube = undefined;
    }
  });

  it('an Application the scanner may not read (403) is not a failure: compared without its rules, and the finding says why', async () => {
    const result = await scan({
      comparison: 'server-dry-run',
      ignoreDifferences: [REGISTRY_RULE],
      failures: { [`GET ${APPLICATION_PATH}`]: recorded.applicationForbidden },
    });
    expect(result.outcome).toBe('ok');
    expect(verdicts(result.findings)).toEqual(['cluster.drift Deployment/shop/api']);
    const drift = driftOf(result.findings, 'api');
    // The Application's three rules no longer apply; argocd-cm's still do.
    expect(paths(drift)).toEqual([...APPLICATION_RULES.map((rule) => rule.path), IMAGE].sort());
    expect(ignoredOf(drift)).toEqual(ARGOCD_CM_RULES);
    expect((drift.evidence as { ignoreDifferencesUnread?: string }).ignoreDifferencesUnread).toBe(
      `Application argocd/shop could not be read: GET ${APPLICATION_PATH}: 403 applications.argoproj.io "shop" is forbidden: User "system:serviceaccount:driftwatch:scanner" cannot get resource "applications" in API group "argoproj.io" in the namespace "argocd"`,
    );
    // Said once for the cluster too (the scan's log), though two objects of the Application were compared.
    expect(result.ignoreRulesUnread).toEqual([
      (drift.evidence as { ignoreDifferencesUnread: string }).ignoreDifferencesUnread,
    ]);
  });

  it('no argocd-cm and no Application (a cluster without Argo CD objects): compared without them, and the tracked finding says so', async () => {
    const result = await scan({ comparison: 'declared', objects: recorded.live });
    const drift = driftOf(result.findings, 'api');
    expect(paths(drift)).toContain('spec.replicas');
    expect(paths(drift)).toContain('spec.template.spec.containers[0].resources.requests.cpu');
    expect((drift.evidence as { ignoreDifferencesUnread?: string }).ignoreDifferencesUnread).toBe(
      'Application argocd/shop could not be read: not found (404); argocd-cm (namespace argocd) not found',
    );
    // Once per source for the cluster, however many objects the Application tracks.
    expect(result.ignoreRulesUnread).toEqual([
      'Application argocd/shop could not be read: not found (404)',
      'argocd-cm (namespace argocd) not found',
    ]);
    expect(result.outcome).toBe('ok');
  });
});

describe('extraneous objects of a render without namespaces (kubeconfig default namespace)', () => {
  const tracked = (kind: string, name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
    kind,
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '100',
      labels: { app: 'web' },
      annotations: {
        'argocd.argoproj.io/tracking-id': `web:${kind === 'Deployment' ? 'apps' : ''}/${kind}:default/${name}`,
      },
    },
    ...extra,
  });
  const render = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: { name: web, labels: { app: web } }',
    'spec: { replicas: 1 }',
  ].join('\n');

  it('lists the default namespace the objects live in (not cluster-wide) and finds the ConfigMap Git dropped there', async () => {
    const result = await scan({
      comparison: 'declared',
      text: render,
      objects: [
        tracked('Deployment', 'web', { spec: { replicas: 1 } }),
        tracked('ConfigMap', 'web-config-6b9f2d', { data: { mode: 'old' } }),
      ],
    });
    expect(verdicts(result.findings)).toEqual(['cluster.extraneous ConfigMap/default/web-config-6b9f2d']);
    const lists = kube!.requests.filter(
      (request) =>
        request.method === 'GET' &&
        /\/(configmaps|secrets|services|deployments|ingresses)$/.test(request.path),
    );
    expect(lists.map((request) => request.path).sort()).toEqual([
      '/api/v1/namespaces/default/configmaps',
      '/api/v1/namespaces/default/secrets',
      '/api/v1/namespaces/default/services',
      '/apis/apps/v1/namespaces/default/deployments',
    ]);
  });
});

// test/fixtures/kubernetes/extraneous/cronjob.json: application shop's CronJob, gone from Git
// with every other CronJob of the render; Argo CD still lists it (requiresPruning).
const cronJob = JSON.parse(readFileSync(join(FIXTURES, 'extraneous/cronjob.json'), 'utf8')) as {
  object: Record<string, unknown>;
  statusResource: Record<string, unknown>;
};
const BATCH = { 'batch/v1': [{ name: 'cronjobs', kind: 'CronJob', namespaced: true }] };

/** The recorded Application with the CronJob in its status and the given sync policy. */
function applicationWith(syncPolicy: Record<string, unknown>): Record<string, unknown> {
  const application = structuredClone(recorded.application) as {
    spec: Record<string, unknown>;
    status: { resources: unknown[] };
  };
  application.spec.syncPolicy = syncPolicy;
  application.status.resources.push(cronJob.statusResource);
  return application;
}

describe("a kind Git dropped entirely, found through the Application's status.resources", () => {
  const CRONJOB_LIST = '/apis/batch/v1/namespaces/shop/cronjobs';

  /** The recorded cluster plus the CronJob Git dropped, beside the given Application. */
  function scanWithCronJob(application: Record<string, unknown>) {
    return scan({
      comparison: 'declared',
      resources: BATCH,
      objects: [...recorded.live, recorded.argocdCm, cronJob.object, application],
    });
  }

  it('manual sync: the CronJob the render no longer has is listed and is cluster.orphaned (Argo CD: requiresPruning, nobody prunes it)', async () => {
    const result = await scanWithCronJob(applicationWith({ automated: { enabled: false, prune: true } }));
    expect(verdicts(result.findings).filter((verdict) => !verdict.startsWith('cluster.drift'))).toEqual([
      'cluster.orphaned CronJob/shop/nightly-report',
    ]);
    const orphaned = result.findings.find((finding) => finding.ruleId === 'cluster.orphaned')!;
    expect(orphaned.evidence).toMatchObject({ pruneHeldBy: 'sync-policy', tracking: 'annotation' });
    expect(kube!.requests.filter((request) => request.path === CRONJOB_LIST)).toHaveLength(1);
    // The Application is still read once for the scan (ignoreDifferences and extraneous objects).
    expect(kube!.requests.filter((request) => request.path === APPLICATION_PATH)).toHaveLength(1);
    expect(kube!.writes).toEqual([]);
  });

  it('automated prune: the CronJob is found, and Argo CD prunes it itself: no finding, said once in the scan result', async () => {
    const result = await scanWithCronJob(applicationWith({ automated: { prune: true } }));
    expect(verdicts(result.findings).filter((verdict) => !verdict.startsWith('cluster.drift'))).toEqual([]);
    expect(result.prunedByArgoCd).toEqual([
      'CronJob shop/nightly-report of application shop is not in s3://ci/shop.yaml: Argo CD prunes it at its next automated sync (automated.prune: true)',
    ]);
  });

  it('without the status entry (an Application that no longer lists it) no CronJob is listed: the render has none', async () => {
    const result = await scanWithCronJob(recorded.application);
    expect(
      result.findings.filter(
        (finding) => finding.resource && 'kind' in finding.resource && finding.resource.kind === 'CronJob',
      ),
    ).toEqual([]);
    expect(kube!.requests.filter((request) => request.path === CRONJOB_LIST)).toEqual([]);
  });
});

describe("cluster-diff with the registry's ignoreDifferences (driftwatch.yaml, a kustomize render)", () => {
  const temp = useTempDir('driftwatch-ignore-differences-');

  function registry(ignoreRows: string[]): string {
    // The render next to the registry: kubectl kustomize renders the fixture as Git holds it.
    const manifests = join(temp.path, 'manifests');
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, 'rendered.yaml'), rendered);
    writeFileSync(join(manifests, 'kustomization.yaml'), 'resources: [rendered.yaml]\n');
    const path = join(temp.path, `driftwatch-${ignoreRows.length}.yaml`);
    writeFileSync(
      path,
      [
        ...TEST_REGISTRY_OWNERS,
        'clusters:',
        '  - id: shop-prod',
        '    owner: platform',
        '    environment: prod',
        '    kubernetes:',
        '      context: shop',
        '      comparison: declared',
        '      fieldManager: argocd-controller',
        '      manifests: { kustomize: manifests }',
        ...ignoreRows,
        '',
      ].join('\n'),
    );
    return path;
  }

  async function clusterDiff(
    registryPath: string,
    failures?: Record<string, RecordedResponse>,
    cluster: { application?: Record<string, unknown>; extraObjects?: Record<string, unknown>[] } = {},
  ) {
    kube = await startFakeKubernetes({
      objects: [
        ...recorded.live,
        cluster.application ?? recorded.application,
        recorded.argocdCm,
        ...(cluster.extraObjects ?? []),
      ],
      authorize: (header) => header === `Bearer ${TOKEN}`,
      ...(failures ? { failures } : {}),
      ...(cluster.extraObjects ? { resources: BATCH } : {}),
    });
    const kubeconfig = writeKubeconfig(join(temp.path, 'kubeconfig'), kube.server, TOKEN, 'shop');
    return runCli(
      [
        'cluster-diff',
        '--registry',
        registryPath,
        '--cluster',
        'shop-prod',
        '--store',
        join(temp.path, 'store'),
        '--format',
        'json',
      ],
      { env: { KUBECONFIG: kubeconfig, DRIFTWATCH_HASH_SALT: 'ignore-differences-salt-01' } },
    );
  }

  it('hides the ConfigMap changes the registry rule covers, as the scan reads it from driftwatch.yaml', async () => {
    const run = await clusterDiff(
      registry([
        '      ignoreDifferences:',
        '        - { group: "", kind: ConfigMap, name: api-flags, jsonPointers: [/data/feature.beta, /data/legacy.endpoint] }',
      ]),
    );
    expect(run.code, run.stderr).toBe(2);
    const findings = JSON.parse(run.stdout) as FindingDraft[];
    expect(verdicts(findings)).toEqual(['cluster.drift Deployment/shop/api']);
    expect(driftOf(findings, 'api').drift!.changes.map((change) => change.path)).toEqual([IMAGE]);
    expect(kube!.writes).toEqual([]);
    // Everything was read: the log has nothing to say about ignore rules.
    expect(run.stderr).toContain('cluster diffed');
    expect(run.stderr).not.toContain('ignoreRulesUnread');
  });

  it('an extraneous object Argo CD prunes itself is no finding and is said once in the log', async () => {
    const run = await clusterDiff(registry([]), undefined, {
      application: applicationWith({ automated: { prune: true } }),
      extraObjects: [cronJob.object],
    });
    expect(run.code, run.stderr).toBe(2);
    const findings = JSON.parse(run.stdout) as FindingDraft[];
    expect(verdicts(findings).filter((verdict) => verdict.includes('CronJob'))).toEqual([]);
    const logLine = run.stderr.split('\n').find((line) => line.includes('cluster diffed'))!;
    expect(logLine).toContain('prunedByArgoCd');
    expect(logLine.split('CronJob shop/nightly-report of application shop').length - 1).toBe(1);
    expect(kube!.writes).toEqual([]);
  });

  it('an Application the scanner may not read is said once in the log, as well as in each finding of its objects', async () => {
    const run = await clusterDiff(registry([]), {
      [`GET ${APPLICATION_PATH}`]: recorded.applicationForbidden,
    });
    expect(run.code, run.stderr).toBe(2);
    const logLine = run.stderr.split('\n').find((line) => line.includes('cluster diffed'))!;
    expect(logLine).toContain('ignoreRulesUnread');
    expect(logLine.split('Application argocd/shop could not be read').length - 1).toBe(1);
    const findings = JSON.parse(run.stdout) as FindingDraft[];
    expect(
      findings.filter((finding) => 'ignoreDifferencesUnread' in finding.evidence).length,
    ).toBeGreaterThan(0);
  });

  it('the ScanCluster stage logs the unread Application once too (driftwatch invoke scan-cluster)', async () => {
    const registryPath = registry([]);
    kube = await startFakeKubernetes({
      objects: [...recorded.live, recorded.application, recorded.argocdCm],
      authorize: (header) => header === `Bearer ${TOKEN}`,
      failures: { [`GET ${APPLICATION_PATH}`]: recorded.applicationForbidden },
    });
    const kubeconfig = writeKubeconfig(join(temp.path, 'kubeconfig'), kube.server, TOKEN, 'shop');
    const event = join(temp.path, 'event.json');
    writeFileSync(
      event,
      JSON.stringify({
        scanId: '20261202T030000Z-ignore-rules',
        startedAt: '2026-12-02T03:00:00.000Z',
        registry: registryPath,
        cluster: 'shop-prod',
      }),
    );
    const run = await runCli(['invoke', 'scan-cluster', '--event', event], {
      env: {
        KUBECONFIG: kubeconfig,
        DRIFTWATCH_HASH_SALT: 'ignore-differences-salt-01',
        DRIFTWATCH_STORE: join(temp.path, 'handler-store'),
      },
    });
    expect(run.code, run.stderr).toBe(0);
    const logged = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: string; ignoreRulesUnread?: string[] })
      .find((line) => line.message === 'cluster scanned');
    expect(logged?.ignoreRulesUnread).toEqual([
      expect.stringMatching(/^Application argocd\/shop could not be read: GET .*: 403 /),
    ]);
  });

  it('a jq expression that does not compile is a registry error naming the field and its line; nothing is scanned', async () => {
    const run = await clusterDiff(
      registry([
        '      ignoreDifferences:',
        '        - kind: Deployment',
        '          group: apps',
        "          jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == ']",
      ]),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('clusters[0].kubernetes.ignoreDifferences[0].jqPathExpressions[0]');
    // Line 19 of the registry: the expression's own line.
    expect(run.stderr).toMatch(/driftwatch-4\.yaml:19:\d+ clusters\[0\]/);
    expect(run.stderr).toContain('jq cannot compile');
    expect(kube!.requests).toEqual([]);
  });
});
