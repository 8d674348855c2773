import { describe, expect, it } from 'vitest';
import { recordWorkspaceScan } from '../../../../functions/core/findings/lifecycle.js';
import type { ClusterResourceRef, FindingDraft } from '../../../../functions/core/findings/model.js';
import { applicationName } from '../../../../functions/core/gitops/argo-findings.js';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { extraneousVerdict } from '../../../../functions/core/gitops/direct-findings.js';
import { extraneousObjects, instanceLabelSelectors } from '../../../../functions/core/gitops/extraneous.js';
import {
  identityOf,
  type KubeObject,
  TRACKING_ID_ANNOTATION,
  trackingApplication,
} from '../../../../functions/core/gitops/kube-object.js';
import type { ClusterScanPorts } from '../../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../../functions/core/gitops/scan-cluster.js';
import { applierOf, DEFAULT_TRACKING, registryTracking } from '../../../../functions/core/gitops/tracking.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import type { ClusterConfig, Registry } from '../../../../functions/core/registry/model.js';
import { registryOfCluster } from '../../../helpers/registry.js';

/**
 * Argo CD's applications in any namespace (2.5+): each team's namespace may hold an application of
 * the same name. Findings named them by `metadata.name` alone, so `team-a/web` and `team-b/web`
 * shared an owner entry, their commands (`argocd app sync web`) named neither, and one's OutOfSync
 * age counted for the other (a production application flagged cluster.sync-policy on its first
 * night). Shapes as `GET /api/v1/applications/{name}?appNamespace=` returns them (argo-cd
 * pkg/apis/application/v1alpha1 types: metadata, spec.syncPolicy, status.sync, status.resources,
 * status.controllerNamespace; managed-resources items with JSON-string states).
 */
const CONTROLLER = 'argocd';

function application(namespace: string, name: string, sync: 'Synced' | 'OutOfSync', controller = CONTROLLER) {
  return {
    metadata: { name, namespace },
    spec: { project: 'default', source: { repoURL: 'https://git.example.com/apps.git', path: name } },
    status: {
      sync: { status: sync },
      health: { status: 'Healthy' },
      resources: [{ group: 'apps', version: 'v1', kind: 'Deployment', namespace, name, status: sync }],
      ...(controller ? { controllerNamespace: controller } : {}),
    },
  };
}

function deployment(namespace: string, name: string, replicas: number) {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: { replicas },
  });
}

function ports(applications: ReturnType<typeof application>[]): ClusterScanPorts {
  const find = (name: string, appNamespace?: string) =>
    applications.find((app) => app.metadata.name === name && app.metadata.namespace === appNamespace);
  return {
    argocd: () => ({
      url: 'https://argocd.example.com',
      listApplications: async () => ({ items: applications }),
      getApplication: async (name, appNamespace) => find(name, appNamespace),
      managedResources: async (name, appNamespace) => {
        const app = find(name, appNamespace)!;
        const { namespace } = app.metadata;
        const drifted = app.status.sync.status === 'OutOfSync';
        return {
          items: [
            {
              group: 'apps',
              kind: 'Deployment',
              namespace,
              name,
              normalizedLiveState: deployment(namespace, name, drifted ? 5 : 2),
              predictedLiveState: deployment(namespace, name, 2),
              modified: drifted,
            },
          ],
        };
      },
    }),
    kubernetes: () => {
      throw new Error('Argo CD mode reads no Kubernetes API');
    },
    terraformObjects: async () => [],
  };
}

const cluster: ClusterConfig = {
  id: 'shared-prod',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'ARGOCD_AUTH_TOKEN' } },
  applications: [
    { name: 'team-a/web', owner: 'team-a' },
    { name: 'web', owner: 'web-guild' },
  ],
  workspaces: [],
  policies: { outOfSyncAfterMs: 3_600_000 },
};

function registry(): Registry {
  const base = registryOfCluster(cluster);
  const teams = ['platform', 'team-a', 'web-guild'].map(
    (id) => ({ id }) as Registry['owners']['teams'][number],
  );
  return { ...base, owners: { ...base.owners, teams } };
}

async function scan(applications: ReturnType<typeof application>[], now: Date, previous?: FindingDraft[]) {
  const recorded =
    previous &&
    recordWorkspaceScan(undefined, previous, {
      workspace: cluster.id,
      scanId: 'night-1',
      now: new Date(now.getTime() - 3 * 3_600_000),
      outcome: 'ok',
      check: 'cluster',
    });
  return scanCluster(cluster, {
    registry: registry(),
    ports: ports(applications),
    hashSensitive: createSensitiveHasher('apps-in-any-namespace-salt'),
    now,
    ...(recorded ? { previous: recorded.current } : {}),
  });
}

const appOf = (finding: FindingDraft) => (finding.resource as ClusterResourceRef | undefined)?.app;

describe('applications of the same name in two namespaces', () => {
  const now = new Date('2026-12-03T03:00:00Z');

  it('are named <namespace>/<name>, routed by their own entry, and get commands that name them', async () => {
    const result = await scan(
      [
        application('team-a', 'web', 'OutOfSync'),
        application('team-b', 'web', 'OutOfSync'),
        application(CONTROLLER, 'shop', 'OutOfSync'),
      ],
      now,
    );
    const drift = result.findings.filter((finding) => finding.ruleId === 'cluster.drift');
    expect(drift.map((finding) => [appOf(finding), finding.owner])).toEqual([
      ['shop', 'platform'],
      ['team-a/web', 'team-a'],
      // No entry of its own: the bare `web` entry covers it.
      ['team-b/web', 'web-guild'],
    ]);
    const teamB = drift.find((finding) => appOf(finding) === 'team-b/web')!;
    expect(teamB.title).toContain('application team-b/web');
    expect(teamB.remediation.steps.join('\n')).toContain('argocd app sync team-b/web');
    expect(teamB.remediation.steps.join('\n')).not.toMatch(/argocd app sync web\b/);
  });

  it("count each one's OutOfSync age on its own", async () => {
    // Night 1: only team-a's web drifted. Three hours later both have: only team-a's has been
    // OutOfSync longer than outOfSyncAfter without automated sync.
    const night1 = await scan(
      [application('team-a', 'web', 'OutOfSync'), application('team-b', 'web', 'Synced')],
      new Date(now.getTime() - 3 * 3_600_000),
    );
    const night2 = await scan(
      [application('team-a', 'web', 'OutOfSync'), application('team-b', 'web', 'OutOfSync')],
      now,
      night1.findings,
    );
    const policy = night2.findings.filter((finding) => finding.ruleId === 'cluster.sync-policy');
    expect(policy.map(appOf)).toEqual(['team-a/web']);
  });

  it('an entry qualified with the controller namespace, as argocd app list names it, routes the bare-named application', () => {
    const qualified = (
      applications: ClusterConfig['applications'],
      kubernetes?: ClusterConfig['kubernetes'],
    ) =>
      createClusterFindingBuilder(
        { ...cluster, applications, ...(kubernetes ? { argocd: undefined, kubernetes } : {}) },
        registry().policies,
      ).ownerOf;
    expect(qualified([{ name: 'argocd/shop', owner: 'team-a' }])('shop')).toBe('team-a');
    // Not an entry of another namespace's application, nor of team-a's `shop` for the controller's.
    expect(qualified([{ name: 'team-b/shop', owner: 'team-b' }])('shop')).toBe('platform');
    expect(qualified([{ name: 'argocd/shop', owner: 'team-a' }])('team-b/shop')).toBe('platform');
    // Direct mode: the controller namespace the registry names.
    const direct = { context: 'edge', manifests: { kustomize: 'overlays/edge' }, argocdNamespace: 'gitops' };
    expect(qualified([{ name: 'gitops/shop', owner: 'team-a' }], direct)('shop')).toBe('team-a');
  });

  it("an entry qualified with another controller namespace (OpenShift GitOps') routes the bare-named application as Argo CD reports it", async () => {
    // OpenShift GitOps runs Argo CD in `openshift-gitops`, and `argocd app list` prints
    // `openshift-gitops/shop`: the namespace comes from status.controllerNamespace, no setting.
    const openshift = 'openshift-gitops';
    const result = await scanCluster(
      { ...cluster, applications: [{ name: `${openshift}/shop`, owner: 'team-a' }] },
      {
        registry: registry(),
        ports: ports([
          application(openshift, 'shop', 'OutOfSync', openshift),
          application('team-b', 'shop', 'OutOfSync', openshift),
        ]),
        hashSensitive: createSensitiveHasher('apps-in-any-namespace-salt'),
        now,
      },
    );
    const drift = result.findings.filter((finding) => finding.ruleId === 'cluster.drift');
    expect(drift.map((finding) => [appOf(finding), finding.owner])).toEqual([
      ['shop', 'team-a'],
      // Another namespace's `shop` is not the entry's: the cluster's owner.
      ['team-b/shop', 'platform'],
    ]);
  });

  it('keep the bare name in the controller namespace and when Argo CD does not say where its controller is', () => {
    expect(applicationName(application(CONTROLLER, 'shop', 'Synced'))).toBe('shop');
    expect(applicationName(application('team-a', 'web', 'Synced'))).toBe('team-a/web');
    // Argo CD before 2.5 (no controllerNamespace): every application is in its own namespace.
    expect(applicationName(application('gitops', 'web', 'Synced', ''))).toBe('web');
    expect(applicationName({ metadata: { name: 'web', namespace: 'team-a' }, status: null })).toBe('web');
  });
});

/**
 * Direct mode reads the application from the object's tracking id: `team-a_web:…` is Argo CD's
 * instance name of `web` in namespace `team-a` (argo-cd util/argo: InstanceName), so findings name
 * it `team-a/web` as Argo CD mode does, and an object of team-b's `web` is not team-a's.
 */
describe('direct mode: a tracking id of an application in another namespace', () => {
  const tracked = (instance: string, name: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'shop',
      annotations: { [TRACKING_ID_ANNOTATION]: `${instance}:/ConfigMap:shop/${name}` },
    },
  });

  it('names the applier <namespace>/<name>', () => {
    const object = tracked('team-a_web', 'settings');
    expect(applierOf(object, identityOf(object)!, DEFAULT_TRACKING)).toMatchObject({
      type: 'argocd',
      app: 'team-a/web',
    });
    expect(trackingApplication(object)).toBe('team-a/web');
    expect(trackingApplication(tracked('web', 'settings'))).toBe('web');
  });

  it('names it <namespace>/<name> from the instance label too (label tracking), as argocd commands take it', () => {
    const labelTracking = {
      method: 'label',
      labelKey: 'app.kubernetes.io/instance',
      from: 'registry',
    } as const;
    const labelled = (instance: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop', labels: { 'app.kubernetes.io/instance': instance } },
    });
    const object = labelled('team-a_web');
    expect(applierOf(object, identityOf(object)!, labelTracking)).toMatchObject({
      type: 'argocd',
      app: 'team-a/web',
    });
    const found = extraneousObjects(
      [labelled('team-a_web'), labelled('team-b_web')],
      [],
      new Set(['team-a/web']),
      labelTracking,
    );
    expect(found.map((entry) => [entry.app, entry.appNamespace])).toEqual([['web', 'team-a']]);
    const plain = labelled('web');
    expect(applierOf(plain, identityOf(plain)!, labelTracking)).toMatchObject({ app: 'web' });
  });

  it("finds an extraneous object of team-a's web, not of team-b's, and names it in the finding", () => {
    const listed = [tracked('team-a_web', 'old-a'), tracked('team-b_web', 'old-b')];
    const found = extraneousObjects(listed, [], new Set(['team-a/web']), DEFAULT_TRACKING);
    expect(found.map((entry) => [entry.identity.name, entry.app, entry.appNamespace])).toEqual([
      ['old-a', 'web', 'team-a'],
    ]);
    const verdict = extraneousVerdict(found[0]!, {
      builder: createClusterFindingBuilder(cluster, registry().policies),
      source: 'overlays/prod',
      tracking: DEFAULT_TRACKING,
    });
    if (!('finding' in verdict)) throw new Error('expected a finding');
    expect(appOf(verdict.finding)).toBe('team-a/web');
    expect(verdict.finding.owner).toBe('team-a');
    expect(verdict.finding.title).toContain('application team-a/web');
  });
});

describe('label tracking lists the objects of an application in another namespace by its instance label', () => {
  it('selects <namespace>_<name>, the label value Argo CD writes (a label value cannot hold /)', () => {
    expect(instanceLabelSelectors(['team-a/web', 'shop'], registryTracking('label'))).toEqual([
      'app.kubernetes.io/instance=team-a_web',
      'app.kubernetes.io/instance=shop',
    ]);
  });
});
