import { describe, expect, it } from 'vitest';
import type { AttributeChange } from '../../../../functions/core/findings/model.js';
import {
  ancestorsOf,
  ruleCovers,
  withoutIgnoredChanges,
  withoutIgnoredFields,
} from '../../../../functions/core/gitops/ignore-differences.js';
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

  it('a rule covers its kind and group, and its name and namespace when set', () => {
    const rule = { group: 'apps', kind: 'Deployment', namespace: 'shop' };
    expect(ruleCovers(rule, deployment)).toBe(true);
    expect(ruleCovers({ ...rule, name: 'worker' }, deployment)).toBe(false);
    expect(ruleCovers({ kind: 'Deployment' }, deployment)).toBe(false);
  });
});
