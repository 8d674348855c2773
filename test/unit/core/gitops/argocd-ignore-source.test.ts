import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applicationLocation,
  createApplicationRulesReader,
  ignoreRulesFromConfigMap,
} from '../../../../functions/core/gitops/argocd-ignore-source.js';
import { withApplicationTracking } from '../../../../functions/core/gitops/direct-findings.js';
import type { KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import {
  ClusterSourceError,
  type LiveObjectRequest,
  type LiveObjectResult,
} from '../../../../functions/core/gitops/ports.js';
import { DEFAULT_TRACKING, registryTracking } from '../../../../functions/core/gitops/tracking.js';
import { argoCdSettings } from '../../../../functions/core/gitops/tracking-source.js';
import type { ClusterConfig } from '../../../../functions/core/registry/model.js';

/**
 * Where direct mode finds Argo CD's ignoreDifferences (argocd-ignore-source.ts), on the recorded
 * shapes of test/fixtures/kubernetes/ignore-differences (README): argocd-cm's keys as argo-cd
 * util/settings/settings.go reads them, and an Application as the API server returns it.
 */
const recorded = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../../../fixtures/kubernetes/ignore-differences/cluster.json'),
    'utf8',
  ),
) as { application: KubeObject; argocdCm: KubeObject; live: KubeObject[] };

const cluster = (kubernetes: Partial<NonNullable<ClusterConfig['kubernetes']>> = {}): ClusterConfig => ({
  id: 'shop-prod',
  owner: 'platform',
  environment: 'prod',
  kubernetes: { context: 'shop', manifests: { s3: 's3://ci/x.yaml' }, ...kubernetes },
  applications: [],
  workspaces: [],
  policies: { outOfSyncAfterMs: 3_600_000 },
});

describe("argocd-cm's system-level ignoreDifferences", () => {
  it('reads `.all` (every group and kind), `<group>_<kind>` keys and the older resource.customizations YAML', () => {
    const { rules, problems } = ignoreRulesFromConfigMap(recorded.argocdCm);
    expect(problems).toEqual([]);
    expect(
      rules.map(({ source, group, kind, jsonPointers, jqPathExpressions, managedFieldsManagers }) => ({
        source,
        group,
        kind,
        jsonPointers,
        jqPathExpressions,
        managedFieldsManagers,
      })),
    ).toEqual([
      {
        source:
          'argocd-cm resource.customizations (admissionregistration.k8s.io/MutatingWebhookConfiguration)',
        group: 'admissionregistration.k8s.io',
        kind: 'MutatingWebhookConfiguration',
        jsonPointers: [],
        jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
        managedFieldsManagers: [],
      },
      {
        source: 'argocd-cm resource.customizations.ignoreDifferences.all',
        group: '*',
        kind: '*',
        jsonPointers: ['/metadata/labels/example.com~1cost-center'],
        jqPathExpressions: [],
        managedFieldsManagers: [],
      },
      {
        source: 'argocd-cm resource.customizations.ignoreDifferences.apps_Deployment',
        group: 'apps',
        kind: 'Deployment',
        jsonPointers: [],
        jqPathExpressions: [],
        managedFieldsManagers: ['vpa-updater'],
      },
    ]);
  });

  it('a core kind has no group; a value that is not YAML or a jq expression that does not compile is named, not fatal', () => {
    const { rules, problems } = ignoreRulesFromConfigMap({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cm', namespace: 'argocd' },
      data: {
        'resource.customizations.ignoreDifferences.Service': 'jsonPointers:\n- /spec/clusterIP\n',
        'resource.customizations.ignoreDifferences.apps_StatefulSet': 'jsonPointers: [unclosed\n',
        'resource.customizations.ignoreDifferences.batch_Job': "jqPathExpressions:\n- '.spec[[['\n",
      },
    });
    expect(rules.find((rule) => rule.kind === 'Service')).toMatchObject({
      jsonPointers: ['/spec/clusterIP'],
    });
    expect(rules.find((rule) => rule.kind === 'Service')).not.toHaveProperty('group');
    expect(problems).toEqual([
      expect.stringMatching(
        /^argocd-cm resource\.customizations\.ignoreDifferences\.apps_StatefulSet is not YAML/,
      ),
      expect.stringContaining(
        'argocd-cm resource.customizations.ignoreDifferences.batch_Job: jq cannot compile ".spec[[["',
      ),
    ]);
  });

  it('argoCdSettings reads argocd-cm once, in the registry-configured namespace, for both tracking and rules; a 403 leaves both out and says why', async () => {
    const requests: LiveObjectRequest[] = [];
    const settings = await argoCdSettings(
      {
        readLive: async (request) => {
          requests.push(request);
          return { found: true, object: recorded.argocdCm };
        },
      },
      cluster({ argocdNamespace: 'gitops' }),
    );
    expect(requests).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'argocd-cm', namespace: 'gitops' },
    ]);
    expect(settings.tracking).toMatchObject({ method: 'annotation', from: 'argocd-cm' });
    expect(settings.ignoreRules).toHaveLength(3);
    const forbidden = await argoCdSettings(
      {
        readLive: async () => {
          throw new ClusterSourceError(
            'forbidden',
            'GET /api/v1/namespaces/argocd/configmaps/argocd-cm: 403 forbidden',
          );
        },
      },
      { ...cluster(), trackingMethod: 'label' },
    );
    expect(forbidden).toEqual({
      tracking: registryTracking('label'),
      ignoreRules: [],
      unread:
        'argocd-cm (namespace argocd) could not be read: GET /api/v1/namespaces/argocd/configmaps/argocd-cm: 403 forbidden',
    });
  });
});

describe("the tracking Application's ignoreDifferences", () => {
  it("an instance `<namespace>_<app>` is an application outside Argo CD's namespace (Argo CD 3.x apps in any namespace)", () => {
    expect(applicationLocation('shop', 'argocd')).toEqual({ namespace: 'argocd', name: 'shop' });
    expect(applicationLocation('team-a_shop', 'argocd')).toEqual({ namespace: 'team-a', name: 'shop' });
  });

  it('reads each Application once (objects of one application share the read), with its rules named after it', async () => {
    const requests: LiveObjectRequest[] = [];
    const rulesOf = createApplicationRulesReader(
      {
        readLive: async (request): Promise<LiveObjectResult> => {
          requests.push(request);
          return { found: true, object: recorded.application };
        },
      },
      'argocd',
    );
    const [first, second] = await Promise.all([rulesOf('shop'), rulesOf('shop')]);
    expect(second).toBe(first);
    expect(requests).toEqual([
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', name: 'shop', namespace: 'argocd' },
    ]);
    expect(first.unread).toBeUndefined();
    expect(
      first.rules.map((rule) => `${rule.group}/${rule.kind}${rule.name ? `/${rule.name}` : ''}`),
    ).toEqual(['apps/Deployment', 'apps/Deployment', '*/*', 'apps/StatefulSet/db']);
    expect(first.rules[0]!.source).toBe('Application argocd/shop ignoreDifferences');
  });

  it('403, a missing Application or CRD are unread with the reason; an unreachable server still fails the scan', async () => {
    const answer = (result: LiveObjectResult | Error) =>
      createApplicationRulesReader(
        {
          readLive: async () => {
            if (result instanceof Error) throw result;
            return result;
          },
        },
        'argocd',
      )('team-a_shop');
    expect(
      await answer(
        new ClusterSourceError('forbidden', 'GET /apis/argoproj.io/…/applications/shop: 403 forbidden'),
      ),
    ).toEqual({
      rules: [],
      unread:
        'Application team-a/shop could not be read: GET /apis/argoproj.io/…/applications/shop: 403 forbidden',
    });
    expect((await answer({ found: false, reason: 'not-found' })).unread).toBe(
      'Application team-a/shop could not be read: not found (404)',
    );
    expect((await answer({ found: false, reason: 'kind-not-served' })).unread).toBe(
      'Application team-a/shop could not be read: the cluster does not serve argoproj.io/v1alpha1 Application',
    );
    await expect(answer(new ClusterSourceError('unreachable', 'cannot reach'))).rejects.toThrow(
      'cannot reach',
    );
  });
});

describe('the manifest as Argo CD applies it', () => {
  const manifest: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'api-flags', namespace: 'shop' },
    data: { 'feature.beta': 'false' },
  };
  const live = recorded.live[1]!;

  it("carries the live tracking id of the object's application (Git never holds it), so it is not a field Git removed", () => {
    expect(withApplicationTracking(manifest, live, DEFAULT_TRACKING).metadata).toEqual({
      name: 'api-flags',
      namespace: 'shop',
      annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/api-flags' },
    });
  });

  it('is left as Git has it when no application tracks the live object (another tool applies it)', () => {
    const untracked = { ...live, metadata: { name: 'api-flags', namespace: 'shop' } };
    expect(withApplicationTracking(manifest, untracked, DEFAULT_TRACKING)).toBe(manifest);
  });
});
