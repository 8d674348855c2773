import { describe, expect, it } from 'vitest';
import type { CurrentDocument } from '../../../../functions/core/findings/lifecycle.js';
import { applicationSchema } from '../../../../functions/core/gitops/argo-api.js';
import {
  applicationStatusFindings,
  managedResourceFindings,
} from '../../../../functions/core/gitops/argo-findings.js';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { outOfSyncSince } from '../../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { predictFromLive, readArgoFixture, resourceDiff } from '../../../helpers/fake-argocd.js';

const cluster: ClusterConfig = {
  id: 'prod-eu',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'T' } },
  applications: [{ name: 'payments', owner: 'payments' }],
  workspaces: [],
  policies: { outOfSyncAfterMs: 60 * 60_000 },
};
const now = new Date('2026-11-29T02:00:00Z');
const hashSensitive = createSensitiveHasher('argo-findings-test-salt');

function app(name: string, syncPolicy: Record<string, unknown>, status: Record<string, unknown>) {
  return applicationSchema.parse({
    metadata: { name, namespace: 'argocd' },
    spec: { project: 'default', syncPolicy },
    status,
  });
}

describe('Argo CD applications in the real API shape', () => {
  it('a Synced, Healthy application (shaped like argo-cd controller/testdata/diff-cache.yaml) has no findings', () => {
    const application = applicationSchema.parse(readArgoFixture('synced-healthy-application.yaml'));
    const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
    expect(applicationStatusFindings(application, { builder, production: true, now })).toEqual({
      drafts: [],
      comparable: true,
    });
  });

  it('a Degraded Argo CD 3.x application (resourceHealthSource: appTree, health filled in by the API) names its Degraded Deployment', () => {
    const application = applicationSchema.parse(readArgoFixture('degraded-application-3x.yaml'));
    const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
    const { drafts, comparable } = applicationStatusFindings(application, { builder, production: true, now });
    // Argo CD: Synced, Degraded; selfHeal on, so no sync-policy finding; health is not a comparison error.
    expect(comparable).toBe(true);
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({
      ruleId: 'cluster.health-degraded',
      title: 'Application argo-workflows in cluster prod-eu is Degraded',
      detail: 'Argo CD reports application argo-workflows as Degraded.',
      evidence: {
        health: 'Degraded',
        unhealthyResources: [
          {
            kind: 'Deployment',
            namespace: 'argo-workflows',
            name: 'argo-workflows-server',
            health: 'Degraded',
            message: 'Deployment "argo-workflows-server" exceeded its progress deadline',
          },
        ],
      },
    });
    expect(drafts[0]!.evidence).not.toHaveProperty('resourceHealth');
  });

  it('the same application when Argo CD could not fill resource health in (no tree cached): still Degraded, and the finding says where to look', () => {
    const fixture = readArgoFixture('degraded-application-3x.yaml') as { status: { resources: object[] } };
    const withoutHealth = structuredClone(fixture);
    withoutHealth.status.resources = fixture.status.resources.map((resource) => {
      const { health: _health, ...rest } = resource as { health?: unknown };
      return rest;
    });
    const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
    const { drafts } = applicationStatusFindings(applicationSchema.parse(withoutHealth), {
      builder,
      production: true,
      now,
    });
    expect(drafts).toEqual([
      expect.objectContaining({
        ruleId: 'cluster.health-degraded',
        evidence: expect.objectContaining({
          health: 'Degraded',
          unhealthyResources: [],
          resourceHealth: expect.stringContaining('argocd app get argo-workflows'),
        }),
      }),
    ]);
  });
});

describe('application status', () => {
  const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);

  it('a failed scan names the cluster once, and an object with its cluster', () => {
    const whole = builder.scanFailed({ ruleId: 'scan.cluster-manifests', reason: 'connection refused' });
    expect(whole.title).toBe(`Scan of cluster ${cluster.id} failed (scan.cluster-manifests)`);
    const object = builder.scanFailed({
      ruleId: 'scan.cluster-object',
      reason: 'forbidden',
      identity: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' },
    });
    expect(object.title).toBe(`Scan of Deployment web in cluster ${cluster.id} failed (scan.cluster-object)`);
  });
  const outOfSync = { sync: { status: 'OutOfSync' }, health: { status: 'Healthy' } };
  const twoHoursAgo = new Date(now.getTime() - 2 * 3_600_000);

  it.each([
    ['no automated sync', {}, true, twoHoursAgo, 'automated sync'],
    ['automated without selfHeal', { automated: { prune: true } }, true, twoHoursAgo, 'selfHeal'],
    ['selfHeal on', { automated: { selfHeal: true } }, true, twoHoursAgo, undefined],
    ['not production', {}, false, twoHoursAgo, undefined],
    ['not yet past the threshold', {}, true, new Date(now.getTime() - 30 * 60_000), undefined],
    ['never seen before', {}, true, undefined, undefined],
  ])('sync policy: %s', (_case, syncPolicy, production, since, missing) => {
    const { drafts } = applicationStatusFindings(app('payments', syncPolicy, outOfSync), {
      builder,
      production,
      now,
      outOfSyncSince: since,
    });
    const policy = drafts.find((draft) => draft.ruleId === 'cluster.sync-policy');
    if (missing === undefined) expect(policy).toBeUndefined();
    else {
      expect(policy).toMatchObject({ owner: 'payments', severity: 'medium', evidence: { missing } });
      // The age is in the detail, never in the title (the title is part of the value hash).
      expect(policy!.title).toBe(`Production application payments stays OutOfSync without ${missing}`);
      expect(policy!.detail).toContain(since!.toISOString());
    }
  });

  it('health Missing is a finding of the cluster owner; a comparison error is scan-failed and nothing else', () => {
    const missing = applicationStatusFindings(
      app('web', {}, { sync: { status: 'Synced' }, health: { status: 'Missing' } }),
      { builder, production: true, now },
    );
    expect(missing.drafts).toEqual([
      expect.objectContaining({ ruleId: 'cluster.health-missing', owner: 'platform', severity: 'high' }),
    ]);
    const failed = applicationStatusFindings(
      app(
        'web',
        {},
        {
          sync: { status: 'OutOfSync' },
          health: { status: 'Degraded' },
          conditions: [{ type: 'InvalidSpecError', message: 'repository not accessible' }],
        },
      ),
      { builder, production: true, now, outOfSyncSince: twoHoursAgo },
    );
    expect(failed.comparable).toBe(false);
    expect(failed.drafts).toEqual([
      expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.cluster-comparison' }),
    ]);
    expect(failed.drafts[0]!.detail).toContain('InvalidSpecError: repository not accessible');
  });

  it('non-production clusters rank one level lower', () => {
    const staging = createClusterFindingBuilder({ ...cluster, environment: 'staging' }, DEFAULT_POLICIES);
    const { drafts } = applicationStatusFindings(
      app('web', {}, { sync: { status: 'Synced' }, health: { status: 'Degraded' } }),
      { builder: staging, production: false, now },
    );
    expect(drafts[0]).toMatchObject({
      severity: 'medium',
      evidence: {
        severityReasons: [
          'base: cluster.health-degraded is high',
          'environment staging is not production: high → medium',
        ],
      },
    });
  });
});

describe('managed resources', () => {
  const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
  const orphan = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'old', namespace: 'payments' },
    data: { a: '1' },
  };
  const items = [
    resourceDiff({ kind: 'ConfigMap', namespace: 'payments', name: 'old', live: orphan }),
  ] as never;

  it('an object that requires pruning is orphaned only when the application does not prune', () => {
    const status = {
      sync: { status: 'OutOfSync' },
      resources: [
        { kind: 'ConfigMap', namespace: 'payments', name: 'old', status: 'OutOfSync', requiresPruning: true },
      ],
    };
    const manual = managedResourceFindings(app('payments', {}, status), items, { builder, hashSensitive });
    expect(manual.drafts).toEqual([
      expect.objectContaining({ ruleId: 'cluster.orphaned', owner: 'payments', severity: 'low' }),
    ]);
    const pruning = managedResourceFindings(app('payments', { automated: { prune: true } }, status), items, {
      builder,
      hashSensitive,
    });
    expect(pruning.drafts).toEqual([]);
    expect(pruning.tracked).toEqual([
      expect.objectContaining({
        app: 'payments',
        identity: { group: '', kind: 'ConfigMap', namespace: 'payments', name: 'old' },
      }),
    ]);
  });

  it('objects Argo CD reports Synced are not diffed (its ignoreDifferences are honoured)', () => {
    const live = { ...orphan, data: { a: '2' } };
    const synced = [
      resourceDiff({
        kind: 'ConfigMap',
        namespace: 'payments',
        name: 'old',
        target: orphan,
        live,
        predicted: predictFromLive(live, orphan),
      }),
    ] as never;
    const status = {
      sync: { status: 'OutOfSync' },
      resources: [{ kind: 'ConfigMap', namespace: 'payments', name: 'old', status: 'Synced' }],
    };
    expect(
      managedResourceFindings(app('payments', {}, status), synced, { builder, hashSensitive }).drafts,
    ).toEqual([]);
  });

  it("drift under a failed sync says Argo CD's reason, not that a sync or selfHeal restores it", () => {
    // status.operationState as argo-cd controller/sync.go leaves a sync the API server refused
    // (pkg/apis/application/v1alpha1/types.go OperationState: phase, message, finishedAt).
    const live = { ...orphan, data: { a: '2' } };
    const drifted = [
      resourceDiff({
        kind: 'ConfigMap',
        namespace: 'payments',
        name: 'old',
        target: orphan,
        live,
        predicted: predictFromLive(live, orphan),
      }),
    ] as never;
    const resources = [{ kind: 'ConfigMap', namespace: 'payments', name: 'old', status: 'OutOfSync' }];
    const message =
      'one or more objects failed to apply, reason: admission webhook "validate.kyverno.svc-fail" denied the request: policy ConfigMap/payments/old for resource violation: require-team-label';
    const failed = {
      sync: { status: 'OutOfSync' },
      resources,
      operationState: { phase: 'Failed', message, finishedAt: '2026-11-29T01:58:00Z' },
    };
    const [drift] = managedResourceFindings(
      app('payments', { automated: { selfHeal: true } }, failed),
      drifted,
      {
        builder,
        hashSensitive,
      },
    ).drafts;
    expect(drift).toMatchObject({
      ruleId: 'cluster.drift',
      evidence: { lastSync: { phase: 'Failed', message } },
    });
    expect(drift!.detail).toContain(`Argo CD's last sync of payments failed (Failed): ${message}`);
    expect(drift!.detail).not.toContain('should restore');
    // A sync that succeeded (or none yet) says nothing of it.
    const succeeded = { ...failed, operationState: { phase: 'Succeeded', message: 'successfully synced' } };
    const [plain] = managedResourceFindings(app('payments', {}, succeeded), drifted, {
      builder,
      hashSensitive,
    }).drafts;
    expect(plain!.evidence).not.toHaveProperty('lastSync');
    expect(plain!.detail).not.toContain('last sync');
  });
});

describe('outOfSyncSince', () => {
  it('is the first time driftwatch saw drift of the application', () => {
    const finding = (app: string, firstSeenAt: string, ruleId = 'cluster.drift') => ({
      kind: 'cluster-drift',
      ruleId,
      check: 'cluster',
      firstSeenAt,
      resource: { app, group: 'apps', kind: 'Deployment', name: 'x' },
    });
    const document = {
      findings: [
        finding('a', '2026-11-27T02:00:00.000Z'),
        finding('a', '2026-11-25T02:00:00.000Z', 'cluster.missing'),
        finding('b', '2026-11-28T02:00:00.000Z', 'cluster.health-degraded'),
      ],
    } as unknown as CurrentDocument;
    expect(outOfSyncSince(document)).toEqual(new Map([['a', new Date('2026-11-25T02:00:00.000Z')]]));
  });
});
