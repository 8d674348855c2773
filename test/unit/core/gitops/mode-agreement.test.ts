import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../../../../functions/core/findings/model.js';
import { identityOf, type KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { parseManifests } from '../../../../functions/core/gitops/manifests.js';
import type { ArgoCdApi, KubernetesApi, LiveObjectRequest } from '../../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import type { ClusterComparison, ClusterConfig } from '../../../../functions/core/registry/model.js';
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

/** The fixture's manifests as the overlay renders them (namespace shop). */
const desired: KubeObject[] = ['api.yaml', 'worker.yaml', 'secret.yaml', 'configmap.yaml']
  .flatMap((file) => parseManifests(readFileSync(join(FIXTURES, 'server-side-diff/manifests', file), 'utf8')))
  .map((object) => ({ ...object, metadata: { ...(object.metadata as object), namespace: 'shop' } }));

const RESOURCE: Record<string, string> = {
  Deployment: 'deployments',
  Service: 'services',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
};
const dryRunKey = (apiVersion: string, kind: string, name: string) =>
  `${apiVersion}/${RESOURCE[kind]}/shop/${name}`;

function liveOf(apiVersion: string, kind: string, name: string): KubeObject | undefined {
  return recorded.live.find((object) => {
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
function argoCd(): ArgoCdApi {
  const base = readArgoFixture('manual-sync-application-3x.yaml') as {
    metadata: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  const objects = desired.map((object) => ({ object, identity: identityOf(object)! }));
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
    const live = liveOf(apiVersion, identity.kind, identity.name);
    const dryRun = recorded.dryRun[dryRunKey(apiVersion, identity.kind, identity.name)];
    // Not live: Argo CD predicts git's object itself; live: its server-side dry-run answer.
    const predicted = live === undefined ? object : dryRun!.body;
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

function kubernetes(): KubernetesApi {
  return {
    server: 'https://kube.example.com',
    desiredManifests: async () => ({
      text: desired.map((object) => JSON.stringify(object)).join('\n---\n'),
      source: 'the fixture overlay',
    }),
    async readLive(request: LiveObjectRequest) {
      const object = liveOf(request.apiVersion, request.kind, request.name);
      return object ? { found: true, object } : { found: false, reason: 'not-found' };
    },
    async dryRunApply(request) {
      const answer = recorded.dryRun[dryRunKey(request.apiVersion, request.kind, request.name)]!;
      return { outcome: 'applied', object: answer.body, created: answer.status === 201 };
    },
    openApiDocument: async (apiVersion) => OPENAPI[apiVersion],
  };
}

async function scan(mode: 'argocd' | ClusterComparison) {
  const config = cluster(mode);
  const result = await scanCluster(config, {
    registry: registryOfCluster(config),
    ports: { argocd: argoCd, kubernetes, terraformObjects: async () => [] },
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
        changes: (finding.drift?.changes ?? []).map(({ path, before, after }) => ({ path, before, after })),
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
});
