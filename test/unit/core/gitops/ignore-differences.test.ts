import { describe, expect, it } from 'vitest';
import type { AttributeChange } from '../../../../functions/core/findings/model.js';
import { ancestorsOf, withoutIgnoredChanges } from '../../../../functions/core/gitops/ignore-differences.js';
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
