import { describe, expect, it } from 'vitest';
import { createClusterFindingBuilder } from '../../../../functions/core/gitops/cluster-findings.js';
import { ownershipConflicts } from '../../../../functions/core/gitops/conflicts.js';
import {
  identityOf,
  type KubeObject,
  trackingApplication,
} from '../../../../functions/core/gitops/kube-object.js';
import { kubernetesObjectsInState } from '../../../../functions/core/gitops/terraform-objects.js';
import { trackedManifestObject } from '../../../../functions/core/gitops/tracked-object.js';
import {
  applierOf,
  argoApplicationOf,
  DEFAULT_TRACKING,
  describeApplier,
  parseTrackingIdValue,
  registryTracking,
  trackingFromConfigMap,
  trackingFromSettings,
} from '../../../../functions/core/gitops/tracking.js';
import { ARGOCD_CM, instanceTracking } from '../../../../functions/core/gitops/tracking-source.js';
import { type ClusterConfig, DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { readArgoFixture } from '../../../helpers/fake-argocd.js';

/**
 * Issue 14 §5: ownership the way Argo CD and Helm record it. Each case says what Argo CD's own code
 * answers for it (util/argo/resource_tracking.go `GetAppName`, controller/state.go
 * `isSelfReferencedObj`, util/settings/settings.go `GetTrackingMethod`).
 */
const guestbook = readArgoFixture('guestbook-ui-live.yaml') as KubeObject;
const helmService = readArgoFixture('helm-release-service-live.yaml') as KubeObject;
const argocdCm = readArgoFixture('argocd-cm-label-tracking.yaml') as KubeObject;
const identity = (object: KubeObject) => identityOf(object)!;

describe('tracking method of the instance', () => {
  it('argocd-cm application.resourceTrackingMethod: label, with its own instanceLabelKey; an empty installationID is none', () => {
    expect(trackingFromConfigMap(argocdCm, DEFAULT_TRACKING)).toEqual({
      method: 'label',
      labelKey: 'argocd.argoproj.io/instance',
      from: 'argocd-cm',
    });
  });

  it('an argocd-cm without the key is annotation tracking (GetTrackingMethod default in 3.x); an unknown method keeps the fallback', () => {
    const bare = { ...argocdCm, data: {} };
    expect(trackingFromConfigMap(bare, DEFAULT_TRACKING).method).toBe('annotation');
    const odd = { ...argocdCm, data: { 'application.resourceTrackingMethod': 'magic' } };
    expect(trackingFromConfigMap(odd, registryTracking('annotation+label'))).toMatchObject({
      method: 'annotation+label',
      from: 'registry',
    });
  });

  it('GET /api/v1/settings carries trackingMethod, appLabelKey and installationID', () => {
    expect(
      trackingFromSettings(
        {
          appLabelKey: 'app.kubernetes.io/instance',
          trackingMethod: 'annotation+label',
          installationID: 'prod-1',
        },
        DEFAULT_TRACKING,
      ),
    ).toEqual({
      method: 'annotation+label',
      labelKey: 'app.kubernetes.io/instance',
      installationId: 'prod-1',
      from: 'argocd-settings',
    });
  });
});

describe('direct mode reads the tracking method from argocd-cm', () => {
  const cluster = {
    id: 'edge-1',
    owner: 'platform',
    environment: 'prod',
    kubernetes: { context: 'edge', manifests: { kustomize: 'overlays/edge' } },
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
  } satisfies ClusterConfig;

  it('argocd-cm readable: its method (label, with its key)', async () => {
    const requests: unknown[] = [];
    const tracking = await instanceTracking(
      {
        readLive: async (request) => {
          requests.push(request);
          return { found: true, object: argocdCm };
        },
      },
      cluster,
    );
    expect(requests).toEqual([ARGOCD_CM]);
    expect(tracking).toMatchObject({
      method: 'label',
      labelKey: 'argocd.argoproj.io/instance',
      from: 'argocd-cm',
    });
  });

  it('no Argo CD (404) or no permission (an error): the registry option, else annotation; never a failed scan', async () => {
    const absent = await instanceTracking(
      { readLive: async () => ({ found: false, reason: 'not-found' }) },
      cluster,
    );
    expect(absent).toEqual(DEFAULT_TRACKING);
    const forbidden = await instanceTracking(
      {
        readLive: async () => {
          throw new Error('403 forbidden');
        },
      },
      { ...cluster, trackingMethod: 'annotation+label' },
    );
    expect(forbidden).toMatchObject({ method: 'annotation+label', from: 'registry' });
  });
});

describe('which application tracks an object', () => {
  it('parses <app>:<group>/<kind>:<namespace>/<name> like ParseAppInstanceValue, core group empty, app namespace before "_"', () => {
    expect(parseTrackingIdValue('guestbook:apps/Deployment:default/guestbook-ui')).toEqual({
      instance: 'guestbook',
      app: 'guestbook',
      group: 'apps',
      kind: 'Deployment',
      namespace: 'default',
      name: 'guestbook-ui',
    });
    expect(parseTrackingIdValue('team-a_web:/ConfigMap:web/settings')).toMatchObject({
      app: 'web',
      appNamespace: 'team-a',
      group: '',
    });
    // Wrong format → Argo CD returns ErrWrongResourceTrackingFormat: not tracked.
    expect(parseTrackingIdValue('guestbook')).toBeUndefined();
    expect(parseTrackingIdValue('guestbook:Deployment:default/x')).toBeUndefined();
  });

  it('annotation tracking (3.x default): the tracking id that names the object itself → guestbook', () => {
    expect(argoApplicationOf(guestbook, identity(guestbook), DEFAULT_TRACKING)).toEqual({
      app: 'guestbook',
      via: 'tracking-id',
    });
  });

  it('annotation tracking: a tracking id copied onto another object (a controller copying annotations) is not self-referenced → no application', () => {
    const copied = {
      ...guestbook,
      kind: 'ReplicaSet',
      metadata: { ...(guestbook.metadata as object), name: 'guestbook-ui-7d9f' },
    };
    expect(argoApplicationOf(copied, identity(copied), DEFAULT_TRACKING)).toBeUndefined();
  });

  it('annotation tracking: a Helm release with app.kubernetes.io/instance and no tracking id → no application (the label is no proof)', () => {
    expect(argoApplicationOf(helmService, identity(helmService), DEFAULT_TRACKING)).toBeUndefined();
    expect(trackingApplication(helmService)).toBeUndefined();
  });

  it('annotation+label: the annotation decides, as GetAppName does', () => {
    const both = registryTracking('annotation+label');
    expect(argoApplicationOf(guestbook, identity(guestbook), both)?.app).toBe('guestbook');
    expect(argoApplicationOf(helmService, identity(helmService), both)).toBeUndefined();
  });

  it('label tracking: the instance label key of argocd-cm decides', () => {
    const label = trackingFromConfigMap(argocdCm, DEFAULT_TRACKING);
    // Labelled app.kubernetes.io/instance only: not this instance's key.
    expect(argoApplicationOf(helmService, identity(helmService), label)).toBeUndefined();
    const labelled = {
      ...helmService,
      metadata: { ...(helmService.metadata as object), labels: { 'argocd.argoproj.io/instance': 'edge' } },
    };
    expect(argoApplicationOf(labelled, identity(labelled), label)).toEqual({ app: 'edge', via: 'label' });
    // With the default key, a Helm label is read as Argo CD's — which is why label tracking is an opt-in.
    expect(argoApplicationOf(helmService, identity(helmService), registryTracking('label'))?.app).toBe(
      'ingress-nginx',
    );
  });

  it('an installation id in argocd-cm: objects annotated by another instance are not this one’s', () => {
    const tracking = { ...DEFAULT_TRACKING, installationId: 'prod-1' };
    expect(argoApplicationOf(guestbook, identity(guestbook), tracking)).toBeUndefined();
    const ours = {
      ...guestbook,
      metadata: {
        ...(guestbook.metadata as Record<string, unknown>),
        annotations: {
          ...(guestbook.metadata as { annotations: Record<string, string> }).annotations,
          'argocd.argoproj.io/installation-id': 'prod-1',
        },
      },
    };
    expect(argoApplicationOf(ours, identity(ours), tracking)?.app).toBe('guestbook');
  });
});

describe('the applier of an object in a cluster without Argo CD', () => {
  const noArgo = trackingFromConfigMap(argocdCm, DEFAULT_TRACKING);

  it('a Helm 3 object: the release its meta.helm.sh annotations name', () => {
    const applier = applierOf(helmService, identity(helmService), DEFAULT_TRACKING);
    expect(applier).toEqual({ type: 'helm', release: 'ingress-nginx', namespace: 'ingress' });
    expect(describeApplier(applier)).toBe('Helm release ingress/ingress-nginx');
  });

  it('managedFields: the manager owning most of the object (argocd-controller), not the one that applied one annotation (janitor), nor status writers', () => {
    const applier = applierOf(guestbook, identity(guestbook), noArgo);
    expect(applier).toEqual({ type: 'field-manager', manager: 'argocd-controller', operation: 'Update' });
    expect(describeApplier(applier)).toBe('field manager argocd-controller (update)');
  });

  it('no managedFields but a last-applied annotation: kubectl client-side apply', () => {
    const { managedFields: _fields, ...metadata } = guestbook.metadata as Record<string, unknown>;
    const bare = {
      ...guestbook,
      metadata: { ...metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    };
    expect(describeApplier(applierOf(bare as KubeObject, identity(guestbook), noArgo))).toBe(
      'kubectl apply (client-side)',
    );
  });

  it('an ownership conflict in direct mode names the applier and the manifests, never "Argo CD application"', () => {
    const cluster: ClusterConfig = {
      id: 'edge-1',
      owner: 'platform',
      environment: 'prod',
      kubernetes: { context: 'edge', manifests: { kustomize: 'overlays/edge' } },
      applications: [],
      workspaces: ['infra'],
      policies: { outOfSyncAfterMs: 3_600_000 },
    };
    const builder = createClusterFindingBuilder(cluster, DEFAULT_POLICIES);
    const terraform = kubernetesObjectsInState(
      {
        version: 4,
        resources: [
          {
            mode: 'managed',
            type: 'helm_release',
            name: 'ingress',
            instances: [{ attributes: { name: 'ingress-nginx', namespace: 'ingress' } }],
          },
        ],
      },
      'infra',
    ).map((object) => ({ ...object, owner: 'platform' }));
    const desired = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ingress-nginx-controller', namespace: 'ingress' },
    };
    const tracked = trackedManifestObject(identity(helmService), desired, helmService, DEFAULT_TRACKING);
    expect(tracked.app).toBeUndefined();
    const [finding] = ownershipConflicts([tracked], terraform, builder);
    expect(finding!.title).toBe(
      'Service ingress/ingress-nginx-controller in cluster edge-1 is managed by both Terraform (infra) and the GitOps manifests of cluster edge-1 (applied by Helm release ingress/ingress-nginx)',
    );
    expect(JSON.stringify(finding)).not.toContain('Argo CD application');
    expect(finding!.evidence.terraform).toEqual([expect.objectContaining({ via: 'helm-release' })]);
    // The same object as tracked before direct mode computed an applier (labels/annotations only):
    const [fromLabels] = ownershipConflicts(
      [{ ...tracked, applier: undefined, app: undefined }],
      terraform,
      builder,
    );
    expect(fromLabels!.title).toContain('(applied by Helm release ingress/ingress-nginx)');
  });
});
