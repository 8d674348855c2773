import { describe, expect, it } from 'vitest';
import { applicationSchema } from '../../../../functions/core/gitops/argo-api.js';
import {
  applicationStatusFindings,
  managedResourceFindings,
} from '../../../../functions/core/gitops/argo-findings.js';
import { automatedSync, pruneHold } from '../../../../functions/core/gitops/argo-options.js';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { predictFromLive, readArgoFixture, resourceDiff } from '../../../helpers/fake-argocd.js';

/**
 * Issue 14 §4: Argo CD mode takes Argo CD's own comparison and sync options. Each case names what
 * Argo CD itself does with it (controller/state.go, gitops-engine sync, docs/user-guide/*-options.md).
 * The states are the ones the managed-resources API sends: predicted live states built from the live
 * object (test/fixtures/argo-cd/guestbook-ui-live.yaml), never git's raw manifest.
 */
const cluster: ClusterConfig = {
  id: 'prod-eu',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'T' } },
  applications: [],
  workspaces: [],
  policies: { outOfSyncAfterMs: 60 * 60_000 },
};
const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
const hashSensitive = createSensitiveHasher('argo-options-test-salt');
const now = new Date('2026-11-29T02:00:00Z');
const twoHoursAgo = new Date(now.getTime() - 2 * 3_600_000);

const manualSync3x = readArgoFixture('manual-sync-application-3x.yaml');
const liveDeployment = readArgoFixture('guestbook-ui-live.yaml');

function withSpec(base: Record<string, unknown>, syncPolicy: Record<string, unknown>) {
  return applicationSchema.parse({
    ...base,
    spec: { ...(base.spec as Record<string, unknown>), syncPolicy },
  });
}

function configMap(name: string, annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'default',
      annotations: {
        'argocd.argoproj.io/tracking-id': `guestbook:/ConfigMap:default/${name}`,
        ...annotations,
      },
      resourceVersion: '1184300',
      uid: `uid-${name}`,
      creationTimestamp: '2026-10-05T15:45:21Z',
    },
    data: { mode: 'legacy' },
  };
}

/** The guestbook app's managed resources: a drifted Deployment and two extraneous ConfigMaps. */
function items(generatedAnnotations: Record<string, string>, legacyAnnotations: Record<string, string>) {
  const target = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'guestbook-ui', namespace: 'default' },
    spec: {
      template: {
        spec: { containers: [{ name: 'guestbook-ui', image: 'registry.example.com/guestbook-ui:0.3' }] },
      },
    },
  };
  return [
    resourceDiff({
      group: 'apps',
      kind: 'Deployment',
      namespace: 'default',
      name: 'guestbook-ui',
      target,
      live: liveDeployment,
      predicted: predictFromLive(liveDeployment, target),
    }),
    // Extraneous: not in git any more (targetState and predictedLiveState "null").
    resourceDiff({
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'guestbook-generated-7g2hk4',
      live: configMap('guestbook-generated-7g2hk4', generatedAnnotations),
    }),
    resourceDiff({
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'guestbook-legacy',
      live: configMap('guestbook-legacy', legacyAnnotations),
    }),
  ] as never;
}

const summary = (drafts: readonly { ruleId: string; resource?: unknown }[]) =>
  drafts.map((draft) => `${draft.ruleId} ${(draft.resource as { name: string }).name}`).sort();

describe('automated sync as Argo CD 3.x reads it', () => {
  it('automated.enabled: false is manual sync (Argo CD does not sync on its own): the sync-policy rule says "automated sync"', () => {
    const application = applicationSchema.parse(manualSync3x);
    expect(automatedSync(application)).toEqual({ enabled: false, prune: false, selfHeal: false });
    const { drafts } = applicationStatusFindings(application, {
      builder,
      production: true,
      now,
      outOfSyncSince: twoHoursAgo,
    });
    expect(drafts).toEqual([
      expect.objectContaining({
        ruleId: 'cluster.sync-policy',
        evidence: expect.objectContaining({ missing: 'automated sync' }),
      }),
    ]);
  });

  it('automated with enabled: true and selfHeal: Argo CD restores drift itself, no sync-policy finding', () => {
    const application = withSpec(manualSync3x, { automated: { enabled: true, prune: true, selfHeal: true } });
    expect(automatedSync(application)).toEqual({ enabled: true, prune: true, selfHeal: true });
    const { drafts } = applicationStatusFindings(application, {
      builder,
      production: true,
      now,
      outOfSyncSince: twoHoursAgo,
    });
    expect(drafts).toEqual([]);
  });

  it('automated without selfHeal (2.x shape, no enabled field): Argo CD syncs git changes but not live drift: "selfHeal"', () => {
    const application = withSpec(manualSync3x, { automated: { prune: true } });
    const { drafts } = applicationStatusFindings(application, {
      builder,
      production: true,
      now,
      outOfSyncSince: twoHoursAgo,
    });
    expect(drafts[0]).toMatchObject({ ruleId: 'cluster.sync-policy', evidence: { missing: 'selfHeal' } });
  });
});

describe('extraneous objects and pruning', () => {
  it('with automated sync disabled (enabled: false) an extraneous object stays: cluster.orphaned, even though prune: true is set', () => {
    const application = applicationSchema.parse(manualSync3x);
    const { drafts } = managedResourceFindings(application, items({}, {}), { builder, hashSensitive });
    expect(summary(drafts)).toEqual([
      'cluster.drift guestbook-ui',
      'cluster.orphaned guestbook-generated-7g2hk4',
      'cluster.orphaned guestbook-legacy',
    ]);
  });

  it('compare-options: IgnoreExtraneous — Argo CD leaves the object out of the sync status, so no finding', () => {
    const application = applicationSchema.parse(manualSync3x);
    const { drafts } = managedResourceFindings(
      application,
      items({ 'argocd.argoproj.io/compare-options': 'IgnoreExtraneous' }, {}),
      { builder, hashSensitive },
    );
    expect(summary(drafts)).toEqual(['cluster.drift guestbook-ui', 'cluster.orphaned guestbook-legacy']);
  });

  it('automated prune: Argo CD deletes extraneous objects at the next sync — except those with sync-options Prune=false, which it keeps forever (cluster.orphaned, low)', () => {
    const application = withSpec(manualSync3x, { automated: { prune: true, selfHeal: true } });
    const { drafts } = managedResourceFindings(
      application,
      items({}, { 'argocd.argoproj.io/sync-options': 'ServerSideApply=true, Prune=false' }),
      { builder, hashSensitive },
    );
    expect(summary(drafts)).toEqual(['cluster.drift guestbook-ui', 'cluster.orphaned guestbook-legacy']);
    const orphaned = drafts.find((draft) => draft.ruleId === 'cluster.orphaned')!;
    expect(orphaned).toMatchObject({
      severity: 'low',
      evidence: { pruneHeldBy: 'annotation', pruneOption: 'Prune=false' },
    });
    expect(orphaned.detail).toContain('argocd.argoproj.io/sync-options: Prune=false');
  });

  it("the application's syncOptions Prune=false hold every extraneous object; an object's own Prune=true overrides it (sync-options.md)", () => {
    const application = withSpec(manualSync3x, {
      automated: { prune: true, selfHeal: true },
      syncOptions: ['CreateNamespace=true', 'Prune=false'],
    });
    const { drafts } = managedResourceFindings(
      application,
      items({ 'argocd.argoproj.io/sync-options': 'Prune=true' }, {}),
      { builder, hashSensitive },
    );
    expect(summary(drafts)).toEqual(['cluster.drift guestbook-ui', 'cluster.orphaned guestbook-legacy']);
    expect(drafts.find((draft) => draft.ruleId === 'cluster.orphaned')!.evidence).toMatchObject({
      pruneHeldBy: 'application',
      pruneOption: 'Prune=false',
    });
  });

  it('Prune=confirm waits for a person: held like Prune=false', () => {
    const application = withSpec(manualSync3x, { automated: { prune: true } });
    const live = configMap('x', { 'argocd.argoproj.io/sync-options': 'Prune=confirm' });
    expect(pruneHold(application, live)).toEqual({ by: 'annotation', option: 'Prune=confirm' });
    expect(pruneHold(application, configMap('y'))).toBeUndefined();
  });
});

describe('drift as Argo CD computed it', () => {
  it('compares predictedLiveState with normalizedLiveState: server defaults and metadata in both are not drift, only the image git changed is', () => {
    const application = applicationSchema.parse(manualSync3x);
    const { drafts } = managedResourceFindings(application, items({}, {}), { builder, hashSensitive });
    const drift = drafts.find((draft) => draft.ruleId === 'cluster.drift')!;
    expect(drift.drift!.changes).toEqual([
      {
        path: 'spec.template.spec.containers[0].image',
        before: 'registry.example.com/guestbook-ui:0.3',
        after: 'registry.example.com/guestbook-ui:0.2',
        sensitive: false,
      },
    ]);
    expect(drift.evidence).toMatchObject({ comparedWith: 'predictedLiveState', selfHeal: false });
  });

  it('modified: false is Argo CD saying the object is in sync after its normalisation: no finding even when the strings differ', () => {
    const application = applicationSchema.parse(manualSync3x);
    const [deployment] = items({}, {}) as unknown as Record<string, unknown>[];
    const { drafts } = managedResourceFindings(application, [{ ...deployment, modified: false }] as never, {
      builder,
      hashSensitive,
    });
    expect(drafts).toEqual([]);
  });

  it('with selfHeal on, a drift finding says Argo CD should have restored it', () => {
    const application = withSpec(manualSync3x, { automated: { selfHeal: true } });
    const { drafts } = managedResourceFindings(application, items({}, {}), { builder, hashSensitive });
    const drift = drafts.find((draft) => draft.ruleId === 'cluster.drift')!;
    expect(drift.evidence).toMatchObject({ selfHeal: true });
    expect(drift.detail).toMatch(/selfHeal/);
  });
});
