import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding, FindingDraft } from '../../../../functions/core/findings/model.js';
import { identityOf, type KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { parseManifests } from '../../../../functions/core/gitops/manifests.js';
import type { ArgoCdApi, KubernetesApi, LiveObjectRequest } from '../../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import type { ClusterComparison, ClusterConfig } from '../../../../functions/core/registry/model.js';
import {
  clusterAdoptSnippet,
  clusterRevertPlan,
} from '../../../../functions/core/remediation/cluster-remediation.js';
import { readArgoFixture, resourceDiff } from '../../../helpers/fake-argocd.js';
import { registryOfCluster } from '../../../helpers/registry.js';

/**
 * Issue 14: Argo CD mode and direct mode must agree where both apply. The same cluster
 * (test/fixtures/kubernetes/server-side-diff: recorded live objects and server-side apply dry-run
 * answers, each with what `kubectl diff --server-side` says) is scanned twice:
 * - through Argo CD, whose server-side diff (`compare-options: ServerSideDiff=true`) sends the same
 *   dry-run answer as `predictedLiveState`, the live object as `normalizedLiveState`, Secret values
 *   masked (gitops-engine `HideSecretData`), and git's object as the prediction of an object that is
 *   not live (`handleResourceCreateOrDeleteDiff`). Every item says `modified: true`, so driftwatch's
 *   own comparison decides, not Argo CD's flag;
 * - directly against the Kubernetes API, with each of the three comparison methods.
 * Both must name the same objects with the same rules, and the same changes for the drifted one.
 */

const FIXTURES = join(import.meta.dirname, '../../../fixtures/kubernetes');
const hashSensitive = createSensitiveHasher('mode-agreement-salt-0001');
const NOW = new Date('2026-12-02T03:00:00Z');

interface ClusterFixture {
  live: KubeObject[];
  dryRun: Record<string, { status: number; body: KubeObject; kubectlDiffServerSide: string }>;
}
const recorded = JSON.parse(
  readFileSync(join(FIXTURES, 'server-side-diff/cluster.json'), 'utf8'),
) as ClusterFixture;
const OPENAPI: Record<string, unknown> = {
  'apps/v1': JSON.parse(readFileSync(join(FIXTURES, 'openapi-v3/apis__apps__v1.json'), 'utf8')),
  v1: JSON.parse(readFileSync(join(FIXTURES, 'openapi-v3/api__v1.json'), 'utf8')),
};

/**
 * One cluster as both modes see it: Git's objects, the live ones, the server's dry-run answer for
 * each (direct mode), and what Argo CD predicts a sync leaves (Argo CD mode).
 */
interface Estate {
  desired: KubeObject[];
  live: KubeObject[];
  dryRun(key: string): KubeObject;
  argoPredicted(key: string, desired: KubeObject): KubeObject;
}

/** The fixture's manifests as the overlay renders them (namespace shop). */
const recordedEstate: Estate = {
  desired: ['api.yaml', 'worker.yaml', 'secret.yaml', 'configmap.yaml']
    .flatMap((file) =>
      parseManifests(readFileSync(join(FIXTURES, 'server-side-diff/manifests', file), 'utf8')),
    )
    .map((object) => ({ ...object, metadata: { ...(object.metadata as object), namespace: 'shop' } })),
  live: recorded.live,
  dryRun: (key) => recorded.dryRun[key]!.body,
  // Argo CD's server-side diff (compare-options ServerSideDiff=true) predicts the dry-run answer.
  argoPredicted: (key) => recorded.dryRun[key]!.body,
};

const RESOURCE: Record<string, string> = {
  Deployment: 'deployments',
  Service: 'services',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
};
const dryRunKey = (apiVersion: string, kind: string, name: string) =>
  `${apiVersion}/${RESOURCE[kind]}/shop/${name}`;

function liveOf(estate: Estate, apiVersion: string, kind: string, name: string): KubeObject | undefined {
  return estate.live.find((object) => {
    const identity = identityOf(object)!;
    return object.apiVersion === apiVersion && identity.kind === kind && identity.name === name;
  });
}

function cluster(mode: 'argocd' | ClusterComparison): ClusterConfig {
  return {
    id: 'shop-prod',
    owner: 'platform',
    environment: 'prod',
    ...(mode === 'argocd'
      ? { argocd: { url: 'https://argocd.example.com', token: { env: 'T' } } }
      : { kubernetes: { context: 'shop', manifests: { kustomize: 'overlays/prod' }, comparison: mode } }),
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
  };
}

/** gitops-engine `HideSecretData`: every distinct value becomes its own run of `+`, on every side. */
function masked(states: (KubeObject | undefined)[]): (KubeObject | undefined)[] {
  const masks = new Map<string, string>();
  return states.map((state) => {
    if (state === undefined || state.kind !== 'Secret') return state;
    const data: Record<string, string> = {};
    for (const [key, value] of Object.entries((state.data ?? {}) as Record<string, string>)) {
      if (!masks.has(value)) masks.set(value, '+'.repeat(8 + masks.size));
      data[key] = masks.get(value)!;
    }
    return { ...state, data };
  });
}

/** The Argo CD application of these objects and its managed-resources, as the API sends them. */
function argoCd(estate: Estate): ArgoCdApi {
  const base = readArgoFixture('manual-sync-application-3x.yaml') as {
    metadata: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  const objects = estate.desired.map((object) => ({ object, identity: identityOf(object)! }));
  const application = {
    ...base,
    metadata: {
      ...base.metadata,
      name: 'shop',
      annotations: { 'argocd.argoproj.io/compare-options': 'ServerSideDiff=true' },
    },
    status: {
      ...base.status,
      resources: objects.map(({ object, identity }) => ({
        group: identity.group,
        version: String(object.apiVersion).split('/').at(-1),
        kind: identity.kind,
        namespace: 'shop',
        name: identity.name,
        status: 'OutOfSync',
      })),
    },
  };
  const items = objects.map(({ object, identity }) => {
    const apiVersion = String(object.apiVersion);
    const live = liveOf(estate, apiVersion, identity.kind, identity.name);
    // Not live: Argo CD predicts git's object itself.
    const predicted =
      live === undefined
        ? object
        : estate.argoPredicted(dryRunKey(apiVersion, identity.kind, identity.name), object);
    const [target, liveState, predictedState] = masked([object, live, predicted]);
    return resourceDiff({
      group: identity.group,
      kind: identity.kind,
      namespace: 'shop',
      name: identity.name,
      target,
      live: liveState,
      predicted: predictedState,
      modified: true,
    });
  });
  return {
    url: 'https://argocd.example.com',
    listApplications: async () => ({ items: [application] }),
    getApplication: async () => application,
    managedResources: async () => ({ items }),
  };
}

function kubernetes(estate: Estate): KubernetesApi {
  return {
    server: 'https://kube.example.com',
    desiredManifests: async () => ({
      text: estate.desired.map((object) => JSON.stringify(object)).join('\n---\n'),
      source: 'the fixture overlay',
    }),
    async readLive(request: LiveObjectRequest) {
      const object = liveOf(estate, request.apiVersion, request.kind, request.name);
      return object ? { found: true, object } : { found: false, reason: 'not-found' };
    },
    async dryRunApply(request) {
      const object = estate.dryRun(dryRunKey(request.apiVersion, request.kind, request.name));
      return { outcome: 'applied', object, created: false };
    },
    openApiDocument: async (apiVersion) => OPENAPI[apiVersion],
  };
}

async function scan(mode: 'argocd' | ClusterComparison, estate: Estate = recordedEstate) {
  const config = cluster(mode);
  const result = await scanCluster(config, {
    registry: registryOfCluster(config),
    ports: {
      argocd: () => argoCd(estate),
      kubernetes: () => kubernetes(estate),
      terraformObjects: async () => [],
    },
    hashSensitive,
    now: NOW,
  });
  expect(result.outcome).toBe('ok');
  return result.findings;
}

/** What both modes conclude: rule and object, and for drift each change (path, Git's and live value). */
function verdicts(findings: FindingDraft[]) {
  return findings
    .map((finding) => {
      const resource = finding.resource as { kind: string; name: string };
      return {
        verdict: `${finding.ruleId} ${resource.kind}/${resource.name}`,
        changes: (finding.drift?.changes ?? [])
          .map(({ path, before, after }) => ({ path, before, after }))
          .sort((a, b) => a.path.localeCompare(b.path)),
      };
    })
    .sort((a, b) => a.verdict.localeCompare(b.verdict));
}

describe('Argo CD mode and direct mode agree on the same objects', () => {
  it('the image set by hand and the missing ConfigMap, nothing the server filled in (kubectl diff --server-side: the same two)', async () => {
    const argo = verdicts(await scan('argocd'));
    expect(argo).toEqual([
      {
        verdict: 'cluster.drift Deployment/api',
        changes: [
          {
            path: 'spec.template.spec.containers[0].image',
            before: 'registry.example.com/shop/api:1.4.2',
            after: 'registry.example.com/shop/api:1.4.1',
          },
        ],
      },
      { verdict: 'cluster.missing ConfigMap/api-config', changes: [] },
    ]);
    for (const comparison of ['server-dry-run', 'openapi', 'declared'] as const)
      expect({ comparison, verdicts: verdicts(await scan(comparison)) }).toEqual({
        comparison,
        verdicts: argo,
      });
  });

  it('an object applied client-side whose label and key Git removed (Argo CD three-way diff and kubectl apply: - tier, - retired)', async () => {
    const { manifest, live } = removedFields.clientSideApplyRemovals!;
    const estate: Estate = {
      desired: [manifest],
      live: [live],
      // The server keeps what the client-side Update entry owns; the apply adds its own entry.
      dryRun: () => withManagedField(live, { manager: 'kubectl', operation: 'Apply' }),
      // Argo CD's client-side diff merges Git into live with last-applied as the original: the
      // label and key last-applied had and Git dropped are gone from the prediction.
      argoPredicted: () => {
        const predicted = structuredClone(live) as { metadata: { labels: object }; data: object };
        delete (predicted.metadata.labels as Record<string, unknown>).tier;
        delete (predicted.data as Record<string, unknown>).retired;
        return predicted as unknown as KubeObject;
      },
    };
    const argo = verdicts(await scan('argocd', estate));
    expect(argo).toEqual([
      {
        verdict: 'cluster.drift ConfigMap/flags',
        changes: [
          { path: 'data.retired', before: null, after: 'yes' },
          { path: 'metadata.labels.tier', before: null, after: 'backend' },
        ],
      },
    ]);
    for (const comparison of ['server-dry-run', 'openapi', 'declared'] as const) {
      const direct = verdicts(await scan(comparison, estate));
      expect({ comparison, verdicts: direct }).toEqual({ comparison, verdicts: argo });
    }
  });
});

const removedFields = JSON.parse(readFileSync(join(FIXTURES, 'removed-fields/cases.json'), 'utf8')) as Record<
  string,
  { manifest: KubeObject; live: KubeObject }
>;

function withManagedField(object: KubeObject, entry: { manager: string; operation: string }): KubeObject {
  const copy = structuredClone(object) as { metadata: { managedFields?: unknown[] } };
  copy.metadata.managedFields = [
    ...(copy.metadata.managedFields ?? []),
    { ...entry, apiVersion: 'v1', time: '2026-12-02T03:00:00Z', fieldsType: 'FieldsV1', fieldsV1: {} },
  ];
  return copy as unknown as KubeObject;
}

/**
 * Issue 14 §2 and §4: an object Git no longer renders. Argo CD reports it `requiresPruning`; what
 * happens next is its sync policy's call (argo-options.ts `pruneHold`, Argo CD's sync-options docs),
 * and direct mode, reading the same Application through the Kubernetes API, must make the same call.
 * The objects are test/fixtures/kubernetes/extraneous/list.json's: the ConfigMap a kustomize
 * generator renamed (`settings-b8m4t6`, in the render) and the one it left (`settings-7h2k9d`).
 */
describe('Argo CD mode and direct mode agree on an object Git no longer renders', () => {
  const extraneousList = JSON.parse(readFileSync(join(FIXTURES, 'extraneous/list.json'), 'utf8')) as {
    items: KubeObject[];
  };
  const liveItem = (name: string) =>
    structuredClone(extraneousList.items.find((item) => identityOf(item)!.name === name)!);
  const current = liveItem('settings-b8m4t6');
  // Git's manifest of the current ConfigMap: no tracking (Argo CD adds it at sync) or server fields.
  const manifest: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings-b8m4t6',
      namespace: 'shop',
      labels: { 'app.kubernetes.io/instance': 'shop' },
    },
    data: { mode: 'fast' },
  };

  /** The leftover ConfigMap, with its own `argocd.argoproj.io/sync-options` when given. */
  function leftover(syncOptions?: string): KubeObject {
    const object = liveItem('settings-7h2k9d') as { metadata: { annotations: Record<string, string> } };
    if (syncOptions) object.metadata.annotations['argocd.argoproj.io/sync-options'] = syncOptions;
    return object as unknown as KubeObject;
  }

  /** Application `shop` as both APIs return it: OutOfSync, the leftover `requiresPruning`. */
  function application(syncPolicy: KubeObject): KubeObject {
    return {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'shop', namespace: 'argocd', uid: 'a1b2c3d4-0000-4000-8000-00000000e001' },
      spec: {
        project: 'default',
        source: {
          repoURL: 'https://git.example.com/shop/deploy.git',
          path: 'overlays/prod',
          targetRevision: 'main',
        },
        destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
        syncPolicy,
      },
      status: {
        sync: { status: 'OutOfSync', revision: '5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3c2b' },
        health: { status: 'Healthy' },
        resources: [
          { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings-b8m4t6', status: 'Synced' },
          {
            version: 'v1',
            kind: 'ConfigMap',
            namespace: 'shop',
            name: 'settings-7h2k9d',
            status: 'OutOfSync',
            requiresPruning: true,
          },
        ],
      },
    };
  }

  /** `applicationReadable: false`: direct mode's GET of the Application answers 404. */
  async function scanBoth(app: KubeObject, extra: KubeObject, applicationReadable = true) {
    const live = [current, extra];
    const argoApi: ArgoCdApi = {
      url: 'https://argocd.example.com',
      listApplications: async () => ({ items: [app] }),
      getApplication: async () => app,
      managedResources: async () => ({
        items: [
          resourceDiff({
            kind: 'ConfigMap',
            namespace: 'shop',
            name: 'settings-b8m4t6',
            target: manifest,
            live: current,
            predicted: current,
            modified: false,
          }),
          // Not in Git: Argo CD sends the live state only (gitops-engine handleResourceCreateOrDeleteDiff).
          resourceDiff({
            kind: 'ConfigMap',
            namespace: 'shop',
            name: 'settings-7h2k9d',
            live: extra,
            modified: true,
          }),
        ],
      }),
    };
    const kubeApi: KubernetesApi = {
      server: 'https://kube.example.com',
      desiredManifests: async () => ({ text: JSON.stringify(manifest), source: 'the fixture overlay' }),
      async readLive(request: LiveObjectRequest) {
        const object = [...live, ...(applicationReadable ? [app] : [])].find(
          (entry) =>
            entry.apiVersion === request.apiVersion &&
            entry.kind === request.kind &&
            identityOf(entry)!.name === request.name &&
            identityOf(entry)!.namespace === request.namespace,
        );
        return object ? { found: true, object } : { found: false, reason: 'not-found' };
      },
      // The server would store the live object again (the manifest plus what the server keeps).
      dryRunApply: async () => ({ outcome: 'applied', object: current, created: false }),
      openApiDocument: async (apiVersion) => OPENAPI[apiVersion],
      listObjects: async (target) =>
        live.filter((object) => object.apiVersion === target.apiVersion && object.kind === target.kind),
    };
    const run = async (config: ClusterConfig) => {
      const result = await scanCluster(config, {
        registry: registryOfCluster(config),
        ports: { argocd: () => argoApi, kubernetes: () => kubeApi, terraformObjects: async () => [] },
        hashSensitive,
        now: NOW,
      });
      expect(result.outcome).toBe('ok');
      return result;
    };
    const argo = applicationReadable ? await run(cluster('argocd')) : undefined;
    const direct = await Promise.all(
      (['server-dry-run', 'openapi', 'declared'] as const).map((comparison) => run(cluster(comparison))),
    );
    return { argo, direct };
  }

  /** Each object's rule, severity and what holds its pruning; the Application's own status findings aside. */
  const objectVerdicts = (findings: FindingDraft[]) =>
    findings
      .filter((finding) => (finding.resource as { kind: string }).kind !== 'Application')
      .map((finding) => {
        const evidence = finding.evidence as { pruneHeldBy?: string; pruneOption?: string };
        return `${finding.ruleId} ${(finding.resource as { name: string }).name} ${finding.severity} ${evidence.pruneHeldBy ?? '-'} ${evidence.pruneOption ?? '-'}`;
      })
      .sort();

  const cases: Array<{
    name: string;
    syncPolicy: KubeObject;
    objectOption?: string;
    verdicts: string[];
    /** How the finding (and `driftwatch remediate --revert`) says to delete it: a sync skips Prune=false. */
    deletion?: RegExp;
  }> = [
    {
      name: 'automated prune: Argo CD deletes it itself, nothing to report',
      syncPolicy: { automated: { prune: true, selfHeal: true } },
      verdicts: [],
    },
    {
      name: 'Prune=false on the object: kept for good, cluster.orphaned held by the annotation',
      syncPolicy: { automated: { prune: true } },
      objectOption: 'Prune=false',
      verdicts: ['cluster.orphaned settings-7h2k9d low annotation Prune=false'],
      deletion:
        /remove Prune=false from its argocd\.argoproj\.io\/sync-options annotation .* or delete it with kubectl/,
    },
    {
      name: 'Prune=confirm on the object: cluster.orphaned held by the annotation, deleted once the pruning is confirmed',
      syncPolicy: { automated: { prune: true } },
      objectOption: 'Prune=confirm',
      verdicts: ['cluster.orphaned settings-7h2k9d low annotation Prune=confirm'],
      deletion: /sync with pruning \(`argocd app sync shop --prune`\) and confirm the deletion/,
    },
    {
      name: "Prune=false in the application's syncOptions: cluster.orphaned held by the application",
      syncPolicy: { automated: { prune: true }, syncOptions: ['Prune=false'] },
      verdicts: ['cluster.orphaned settings-7h2k9d low application Prune=false'],
      deletion: /delete it with kubectl: the application's syncOptions hold Prune=false/,
    },
    {
      name: "Prune=false in the application's syncOptions, Prune=true on the object: the object's option wins, Argo CD prunes it",
      syncPolicy: { automated: { prune: true }, syncOptions: ['Prune=false'] },
      objectOption: 'Prune=true',
      verdicts: [],
    },
    {
      name: 'manual sync (Argo CD 3.x automated.enabled: false): nobody prunes it, cluster.orphaned held by the sync policy',
      syncPolicy: { automated: { enabled: false, prune: true, selfHeal: true } },
      verdicts: ['cluster.orphaned settings-7h2k9d low sync-policy no automated prune'],
      deletion: /^sync with pruning \(`argocd app sync shop --prune`\)$/,
    },
  ];

  for (const entry of cases)
    it(entry.name, async () => {
      const { argo, direct } = await scanBoth(application(entry.syncPolicy), leftover(entry.objectOption));
      expect(objectVerdicts(argo!.findings)).toEqual(entry.verdicts);
      for (const [index, result] of direct.entries())
        expect({ run: index, verdicts: objectVerdicts(result.findings) }).toEqual({
          run: index,
          verdicts: entry.verdicts,
        });
      // The deletion the finding and `remediate --revert` give is one that deletes it.
      for (const finding of [argo!, ...direct].flatMap((result) => result.findings))
        if (finding.ruleId === 'cluster.orphaned') {
          const [step] = finding.remediation!.steps;
          expect(step!.replace(/^Delete it: review, then (.*)\.$/, '$1')).toMatch(entry.deletion!);
          const plan = clusterRevertPlan(finding as Finding);
          expect(
            plan.effect.replace(/^.*reverting deletes it from the cluster\. To delete it: (.*)\.$/, '$1'),
          ).toMatch(entry.deletion!);
          expect(plan.command).toBe('argocd app diff shop');
          // The command that deletes it: a sync with pruning of that object, or kubectl under Prune=false.
          expect(plan.commands[1]).toBe(
            entry.verdicts[0]!.endsWith('Prune=false')
              ? 'kubectl delete ConfigMap settings-7h2k9d -n shop'
              : 'argocd app sync shop --resource :ConfigMap:shop/settings-7h2k9d --prune',
          );
        }
      // Direct mode says once in the scan's log what Argo CD will prune itself.
      for (const result of direct)
        expect(result.prunedByArgoCd).toEqual(
          entry.verdicts.length === 0
            ? [
                'ConfigMap shop/settings-7h2k9d of application shop is not in the fixture overlay: Argo CD prunes it at its next automated sync (automated.prune: true)',
              ]
            : undefined,
        );
    });

  it('an Application direct mode may not read (404): cluster.extraneous as before, and the scan says it was not read', async () => {
    // An automated-prune Application the scanner cannot see: it cannot know that Argo CD prunes.
    const { direct } = await scanBoth(application({ automated: { prune: true } }), leftover(), false);
    for (const result of direct) {
      expect(objectVerdicts(result.findings)).toEqual(['cluster.extraneous settings-7h2k9d low - -']);
      // Not in git: reverting deletes it, with a sync that prunes it; adopting adds it back to git.
      const finding = result.findings.find((entry) => entry.ruleId === 'cluster.extraneous') as Finding;
      const plan = clusterRevertPlan(finding);
      expect(plan.effect).toMatch(/reverting deletes it from the cluster\. To delete it: sync with pruning/);
      expect(plan.commands[1]).toBe(
        'argocd app sync shop --resource :ConfigMap:shop/settings-7h2k9d --prune',
      );
      expect(clusterAdoptSnippet(finding).text).toMatch(/to keep it, add it back to git/);
      expect(result.ignoreRulesUnread).toContain(
        'Application argocd/shop could not be read: not found (404)',
      );
    }
  });
});
