import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttributeChange } from '../../../../functions/core/findings/model.js';
import {
  ancestorsOf,
  changesIgnoringDifferences,
  parseIgnoreDifferences,
  ruleCovers,
  withoutIgnoredChanges,
  withoutIgnoredFields,
} from '../../../../functions/core/gitops/ignore-differences.js';
import type { KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { withoutFieldsOwnedBy } from '../../../../functions/core/gitops/managed-fields.js';
import { parseManifests } from '../../../../functions/core/gitops/manifests.js';
import { normalizeObject } from '../../../../functions/core/gitops/normalize.js';
import { diffKubeObjects } from '../../../../functions/core/gitops/object-diff.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import { activeIgnoreRules } from '../../../../functions/core/terraform/noise.js';

/**
 * The registry's `policies.ignore` rules on direct-mode drift (Argo CD mode leaves this to Argo CD's
 * own ignoreDifferences, applied before it reports OutOfSync).
 */

const deployment = { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'api' };
const change = (path: string, after: unknown): AttributeChange =>
  ({ path, before: null, after, sensitive: false }) as AttributeChange;
const now = new Date('2026-12-02T12:00:00Z');

describe('registry ignore rules in direct mode', () => {
  it('an annotation a controller writes is ignored by a path glob; the image change stays (Argo CD with ignoreDifferences on /metadata/annotations: the same)', () => {
    const rules = activeIgnoreRules(
      [{ address: 'Deployment/shop/*', path: 'metadata.annotations', reason: 'written by the reloader' }],
      now,
    );
    const { kept, ignored } = withoutIgnoredChanges(
      [
        change('metadata.annotations["reloader.example/last-reload"]', '2026-12-01'),
        change('spec.template.spec.containers[0].image', 'api:1.4.1'),
      ],
      deployment,
      rules,
    );
    expect(kept.map((entry) => entry.path)).toEqual(['spec.template.spec.containers[0].image']);
    expect(ignored).toEqual([
      { path: 'metadata.annotations["reloader.example/last-reload"]', reason: 'written by the reloader' },
    ]);
  });

  it('a rule for another object or an expired rule hides nothing', () => {
    const changes = [change('spec.replicas', 6)];
    const otherObject = activeIgnoreRules(
      [{ address: 'Deployment/billing/*', path: 'spec.replicas', reason: 'x' }],
      now,
    );
    expect(withoutIgnoredChanges(changes, deployment, otherObject).kept).toEqual(changes);
    const expired = activeIgnoreRules(
      [{ address: 'Deployment/shop/api', path: 'spec.replicas', reason: 'x', until: '2026-12-01' }],
      now,
    );
    expect(withoutIgnoredChanges(changes, deployment, expired).kept).toEqual(changes);
  });

  it('ancestors of a path split at dots and brackets, not inside quoted keys', () => {
    expect(ancestorsOf('metadata.labels["app.kubernetes.io/name"]')).toEqual(['metadata', 'metadata.labels']);
    expect(ancestorsOf('spec.containers[0].image')).toEqual([
      'spec',
      'spec.containers',
      'spec.containers[0]',
    ]);
  });
});

describe("Argo CD's ignoreDifferences (jsonPointers, jqPathExpressions through jqjs)", () => {
  const live = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'shop', annotations: { 'example.com/rollout': 'x' } },
    spec: {
      replicas: 6,
      template: {
        spec: {
          initContainers: [
            { name: 'migrate', image: 'api:1.4.2' },
            { name: 'istio-init', image: 'proxyv2:1.22' },
          ],
        },
      },
    },
  };

  it("removes what Argo CD's docs example removes: the injected istio-init init container by jq, replicas and an annotation by pointer (Argo CD: Synced)", () => {
    const result = withoutIgnoredFields(live, [
      {
        group: 'apps',
        kind: 'Deployment',
        jsonPointers: ['/spec/replicas', '/metadata/annotations/example.com~1rollout'],
        jqPathExpressions: ['.spec.template.spec.initContainers[] | select(.name == "istio-init")'],
      },
    ]);
    expect(result.spec.template.spec.initContainers).toEqual([{ name: 'migrate', image: 'api:1.4.2' }]);
    expect(result.spec).not.toHaveProperty('replicas');
    expect(result.metadata.annotations).toEqual({});
    // The input is not changed: both sides of a comparison are normalised from their own copy.
    expect(live.spec.replicas).toBe(6);
  });

  it('an expression that matches nothing, or fails on this object, removes nothing; one jq cannot read is an error naming it', () => {
    expect(
      withoutIgnoredFields(live, [
        { kind: 'Deployment', group: 'apps', jqPathExpressions: ['.spec.missing[]'] },
      ]),
    ).toEqual(live);
    expect(() =>
      withoutIgnoredFields(live, [{ kind: 'Deployment', group: 'apps', jqPathExpressions: ['.spec[[['] }]),
    ).toThrow(/jqPathExpressions: cannot read/);
  });

  /**
   * An Application's expressions are someone else's configuration, and jq can spin without end
   * (86 s of CPU per object side for the first one, blocking the whole scan). Each is an error that
   * names the expression, at once for every later object it covers; the next expression still works.
   */
  it.each([
    [
      'spins without naming a path',
      '.spec.template.spec.initContainers[range(0; 1000000000000)] | select(false)',
      'did not finish within 1s',
    ],
    [
      'names paths without end',
      '.spec.template.spec.initContainers[range(0; 1000000000000)]',
      'names more than 100000 paths',
    ],
  ])('an expression that %s is stopped, names itself, and is not run again', (_, expression, reason) => {
    const rules = [{ kind: 'Deployment', group: 'apps', jqPathExpressions: [expression] }];
    const message = `jqPathExpressions: ${JSON.stringify(expression)} ${reason}`;
    expect(() => withoutIgnoredFields(live, rules)).toThrow(message);
    // The next object it covers: the same error, without another run (no timeout to wait for).
    expect(() => withoutIgnoredFields({ ...live, metadata: { name: 'worker' } }, rules)).toThrow(message);
    const istio = '.spec.template.spec.initContainers[] | select(.name == "istio-init")';
    expect(
      withoutIgnoredFields(live, [{ kind: 'Deployment', group: 'apps', jqPathExpressions: [istio] }]).spec
        .template.spec.initContainers,
    ).toHaveLength(1);
  });

  it('a rule covers its kind and group (globs, as Argo CD matches them), and its name and namespace when set', () => {
    const rule = { group: 'apps', kind: 'Deployment', namespace: 'shop' };
    expect(ruleCovers(rule, deployment)).toBe(true);
    expect(ruleCovers({ ...rule, name: 'worker' }, deployment)).toBe(false);
    expect(ruleCovers({ kind: 'Deployment' }, deployment)).toBe(false);
    expect(ruleCovers({ group: '*', kind: '*' }, deployment)).toBe(true);
    expect(ruleCovers({ group: 'apps', kind: 'Stateful*' }, deployment)).toBe(false);
    // No group is the core group.
    expect(ruleCovers({ kind: 'Service' }, { group: '', kind: 'Service', name: 'web' })).toBe(true);
  });
});

/**
 * The recorded shapes of test/fixtures/kubernetes/ignore-differences (README): a live Deployment
 * whose managedFields name argocd-controller (Apply), a config-reloader, a vpa-updater, a
 * kubectl-label, a kubectl-edit and a kubectl-set (Update), and kube-controller-manager (status).
 */
const FIXTURES = join(import.meta.dirname, '../../../fixtures/kubernetes/ignore-differences');
const recorded = JSON.parse(readFileSync(join(FIXTURES, 'cluster.json'), 'utf8')) as { live: KubeObject[] };
const liveApi = recorded.live[0]!;
const gitApi = parseManifests(readFileSync(join(FIXTURES, 'rendered.yaml'), 'utf8'))[0]!;
const hashSensitive = createSensitiveHasher('ignore-differences-unit-01');
const declaredDiff = (sides: { desired: KubeObject; live: KubeObject }) =>
  diffKubeObjects(normalizeObject(sides.desired), normalizeObject(sides.live), {
    mode: 'declared',
    hashSensitive,
  });

describe('managedFieldsManagers: fields the named managers own where Git and live differ', () => {
  it('removes the vpa-updater-owned cpu request (a list-map element by its name key) from both sides; the memory request it does not own stays', () => {
    const { desired, live } = withoutFieldsOwnedBy({ desired: gitApi, live: liveApi }, ['vpa-updater']);
    const requestsOf = (object: KubeObject) =>
      (object as { spec: { template: { spec: { containers: Array<{ resources: { requests: object } }> } } } })
        .spec.template.spec.containers[0]!.resources.requests;
    expect(requestsOf(desired)).toEqual({ memory: '256Mi' });
    expect(requestsOf(live)).toEqual({ memory: '256Mi' });
    // The inputs are copies: the next rule sees the objects as they were.
    expect(requestsOf(liveApi)).toEqual({ cpu: '400m', memory: '256Mi' });
  });

  it("removes a custom operator's annotation where it differs from Git; fields it owns with Git's value, or that only one side has, stay", () => {
    const { desired, live } = withoutFieldsOwnedBy({ desired: gitApi, live: liveApi }, [
      'config-reloader',
      'kube-controller-manager',
    ]);
    expect((desired.metadata as { annotations: object }).annotations).toEqual({});
    expect((live.metadata as { annotations: Record<string, string> }).annotations).not.toHaveProperty(
      'example.com/config-hash',
    );
    // kube-controller-manager owns status only, which Git does not set: not "modified", kept.
    expect(live.status).toEqual(liveApi.status);
    // argocd-controller owns the selector and the memory request, equal on both sides: they stay
    // (its replicas and image differ from Git's, so those go).
    const applier = withoutFieldsOwnedBy({ desired: gitApi, live: liveApi }, ['argocd-controller']);
    const spec = applier.desired.spec as {
      replicas?: number;
      selector: object;
      template: { spec: { containers: Array<{ image?: string; resources: { requests: object } }> } };
    };
    expect(spec.selector).toEqual({ matchLabels: { app: 'api' } });
    expect(spec.template.spec.containers[0]!.resources.requests).toEqual({ memory: '256Mi' });
    expect(spec).not.toHaveProperty('replicas');
    expect(spec.template.spec.containers[0]).not.toHaveProperty('image');
  });

  it('an HPA (kube-controller-manager through the scale subresource) owning spec.replicas: the replica count is not drift', () => {
    const scaled: KubeObject = {
      ...liveApi,
      metadata: {
        ...(liveApi.metadata as object),
        managedFields: [
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            subresource: 'scale',
            apiVersion: 'apps/v1',
            time: '2026-12-01T10:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:replicas': {} } },
          },
        ],
      },
    };
    const { desired, live } = withoutFieldsOwnedBy({ desired: gitApi, live: scaled }, [
      'kube-controller-manager',
    ]);
    expect(desired.spec).not.toHaveProperty('replicas');
    expect(live.spec).not.toHaveProperty('replicas');
  });
});

describe('changes hidden by ignoreDifferences, and which rule hid each', () => {
  it('normalises both sides and attributes each hidden change to its rule; the image stays', () => {
    const { kept, ignored } = changesIgnoringDifferences(
      { desired: gitApi, live: liveApi },
      [
        {
          source: 'Application argocd/shop ignoreDifferences',
          group: 'apps',
          kind: 'Deployment',
          jsonPointers: ['/spec/replicas'],
        },
        {
          source: 'argocd-cm resource.customizations.ignoreDifferences.all',
          kind: '*',
          group: '*',
          managedFieldsManagers: ['vpa-updater'],
        },
      ],
      declaredDiff,
    );
    expect(ignored).toEqual([
      {
        path: 'spec.replicas',
        reason: 'Application argocd/shop ignoreDifferences: jsonPointers /spec/replicas',
      },
      {
        path: 'spec.template.spec.containers[0].resources.requests.cpu',
        reason: 'argocd-cm resource.customizations.ignoreDifferences.all: managedFieldsManagers vpa-updater',
      },
    ]);
    expect(kept.map((change) => change.path)).toContain('spec.template.spec.containers[0].image');
    expect(kept.map((change) => change.path)).not.toContain('spec.replicas');
  });

  it('an element removed by jq renumbers the ones after it: the change that moved is kept, the removed one is listed', () => {
    const side = (inject: string, migrate: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api' },
      spec: {
        template: {
          spec: {
            initContainers: [
              { name: 'injected-init-container', image: inject },
              { name: 'migrate', image: migrate },
            ],
          },
        },
      },
    });
    const { kept, ignored } = changesIgnoringDifferences(
      { desired: side('busybox:1.36', 'api:1.4.2'), live: side('mesh/init:2.1.0', 'api:1.4.1') },
      [
        {
          source: 'Application argocd/shop ignoreDifferences',
          group: 'apps',
          kind: 'Deployment',
          jqPathExpressions: [
            '.spec.template.spec.initContainers[] | select(.name == "injected-init-container")',
          ],
        },
      ],
      declaredDiff,
    );
    expect(kept).toEqual([
      {
        path: 'spec.template.spec.initContainers[0].image',
        before: 'api:1.4.2',
        after: 'api:1.4.1',
        sensitive: false,
      },
    ]);
    expect(ignored).toEqual([
      {
        path: 'spec.template.spec.initContainers[0].image',
        reason:
          'Application argocd/shop ignoreDifferences: jqPathExpressions .spec.template.spec.initContainers[] | select(.name == "injected-init-container")',
      },
    ]);
  });

  it("reads an Application's entries leniently: one without kind or with a jq expression that does not compile is left out and named", () => {
    const { rules, problems } = parseIgnoreDifferences(
      [
        { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
        { group: 'apps', jsonPointers: ['/spec/replicas'] },
        { kind: 'Deployment', group: 'apps', jqPathExpressions: ['.spec[[[', '.spec.paused'] },
      ],
      'Application argocd/shop ignoreDifferences',
    );
    expect(rules.map((rule) => [rule.kind, rule.jsonPointers, rule.jqPathExpressions])).toEqual([
      ['Deployment', ['/spec/replicas'], []],
      ['Deployment', [], ['.spec.paused']],
    ]);
    expect(problems).toEqual([
      'Application argocd/shop ignoreDifferences: an entry has no kind',
      expect.stringContaining('Application argocd/shop ignoreDifferences: jq cannot compile ".spec[[["'),
    ]);
  });
});
