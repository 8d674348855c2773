import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../functions/core/gitops/kube-object.js';
import { appliedFieldsOf, withoutRemovedFields } from '../../../../functions/core/gitops/managed-fields.js';
import { comparisonChanges } from '../../../../functions/core/gitops/server-side-diff.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';

/**
 * Fields the applier set that Git no longer declares (issue 14 §2), against live objects shaped as
 * a real API server writes them (test/fixtures/kubernetes/README.md, `removed-fields/`). Each case
 * names what `kubectl diff --server-side` shows for it (the fixture's `kubectlDiffServerSide`).
 */

interface Case {
  kubectlDiffServerSide: string;
  manifest: KubeObject;
  live: KubeObject;
}

const CASES = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../fixtures/kubernetes/removed-fields/cases.json'), 'utf8'),
) as Record<string, Case>;
const hashSensitive = createSensitiveHasher('removed-fields-salt-01');

function declaredChanges(name: string, fieldManager = 'kubectl') {
  const { manifest, live } = CASES[name]!;
  return comparisonChanges({ method: 'declared-fields', fieldManager }, manifest, live, hashSensitive);
}

describe('fields Git removed, in declared-field comparisons', () => {
  it('a removed ConfigMap key is drift (kubectl diff --server-side: - old-key: legacy)', () => {
    const changes = declaredChanges('configMapKeyRemoved');
    expect(changes.map((change) => [change.path, change.before, change.after])).toEqual([
      ['data.old-key', null, 'legacy'],
    ]);
  });

  it('a removed `type: NodePort` is drift; the nodePort the server allocated is not (kubectl: type NodePort → ClusterIP)', () => {
    const changes = declaredChanges('serviceTypeRemoved');
    expect(changes.map((change) => [change.path, change.after])).toEqual([['spec.type', 'NodePort']]);
  });

  it('a removed label and a removed port are drift; HPA-owned replicas and an injected sidecar are not (kubectl: - team, - 9090)', () => {
    const changes = declaredChanges('deploymentLabelRemovedReplicasByHpa');
    const paths = changes.map((change) => change.path);
    expect(paths).toContain('metadata.labels.team');
    expect(paths.some((path) => path.startsWith('spec.template.spec.containers[0].ports'))).toBe(true);
    expect(JSON.stringify(changes)).toContain('9090');
    expect(JSON.stringify(changes)).not.toContain('8080');
    expect(paths.some((path) => path.startsWith('spec.replicas'))).toBe(false);
    expect(JSON.stringify(changes)).not.toContain('proxy');
    expect(changes).toHaveLength(2);
  });

  it("client-side apply: last-applied-configuration's removed label and key are drift, a controller's annotation is not (kubectl diff: - tier, - retired)", () => {
    const changes = declaredChanges('clientSideApplyRemovals');
    expect(changes.map((change) => [change.path, change.after]).sort()).toEqual([
      ['data.retired', 'yes'],
      ['metadata.labels.tier', 'backend'],
    ]);
    expect(appliedFieldsOf(CASES.clientSideApplyRemovals!.live, 'kubectl')?.source).toBe(
      'last-applied-configuration',
    );
  });

  it('a removed Secret key is drift, hashed; a key Git sets through stringData is not (kubectl: data.token removed, values masked)', () => {
    const changes = declaredChanges('secretKeyRemoved');
    expect(changes.map((change) => change.path)).toEqual(['data.token']);
    expect(changes[0]!.sensitive).toBe(true);
    const text = JSON.stringify(changes);
    expect(text).not.toContain('CANARY');
    expect(text).not.toContain('Q0FOQVJZ');
  });

  it('fields another manager owns are never removals: a different configured manager finds no Apply entry', () => {
    // `argocd-controller` never applied this ConfigMap: nothing it owned can have been removed.
    expect(declaredChanges('configMapKeyRemoved', 'argocd-controller')).toEqual([]);
  });

  it('the OpenAPI method reports removals too', () => {
    const { manifest, live } = CASES.configMapKeyRemoved!;
    const schema = {
      listKeys: () => undefined,
      isQuantity: () => undefined,
      emptyIsAbsent: () => false,
      isSet: () => undefined,
      prepareDesired: (object: KubeObject) => object,
    };
    const changes = comparisonChanges(
      // biome-ignore lint/suspicious/noExplicitAny: a minimal schema view; the real one is tested in direct-comparison.test.ts
      { method: 'openapi-normalised', schema: schema as any, fieldManager: 'kubectl' },
      manifest,
      live,
      hashSensitive,
    );
    expect(changes.map((change) => change.path)).toEqual(['data.old-key']);
  });

  it('the dry-run method adds nothing: the server already dropped what the applier alone owned', () => {
    const { live } = CASES.configMapKeyRemoved!;
    const predicted = structuredClone(live) as KubeObject;
    delete (predicted.data as KubeObject)['old-key'];
    const changes = comparisonChanges(
      { method: 'server-side-dry-run', predicted },
      CASES.configMapKeyRemoved!.manifest,
      live,
      hashSensitive,
    );
    expect(changes.map((change) => change.path)).toEqual(['data.old-key']);
  });

  it('client-side apply under the dry-run: the answer keeps what kubectl-client-side-apply owns, so last-applied names the removals (kubectl apply --server-side migrates and removes them; Argo CD: - tier, - retired)', () => {
    const { manifest, live } = CASES.clientSideApplyRemovals!;
    // What the server answers a dry-run apply as `kubectl`: Git's fields applied, and the label and
    // key Git removed still there (their owner is the Update entry, which an apply leaves alone).
    const predicted = structuredClone(live) as KubeObject;
    (predicted.metadata as { managedFields: unknown[] }).managedFields.push({
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2026-12-02T03:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:beta': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
    });
    const changes = comparisonChanges(
      { method: 'server-side-dry-run', predicted, fieldManager: 'kubectl' },
      manifest,
      live,
      hashSensitive,
    );
    expect(changes.map((change) => [change.path, change.before, change.after]).sort()).toEqual([
      ['data.retired', null, 'yes'],
      ['metadata.labels.tier', null, 'backend'],
    ]);
    // The same verdict as the declared comparison.
    expect(changes.map((change) => change.path).sort()).toEqual(
      declaredChanges('clientSideApplyRemovals')
        .map((change) => change.path)
        .sort(),
    );
  });

  it('client-side apply: a removal the dry-run answer already shows is not listed twice', () => {
    const { manifest, live } = CASES.clientSideApplyRemovals!;
    const predicted = structuredClone(live) as KubeObject;
    delete (predicted.data as KubeObject).retired;
    const changes = comparisonChanges(
      { method: 'server-side-dry-run', predicted, fieldManager: 'kubectl' },
      manifest,
      live,
      hashSensitive,
    );
    expect(changes.map((change) => change.path).sort()).toEqual(['data.retired', 'metadata.labels.tier']);
  });

  it('after a server-side apply the dry-run alone decides: a removal the server made is listed once', () => {
    const { manifest, live } = CASES.configMapKeyRemoved!;
    const predicted = structuredClone(live) as KubeObject;
    delete (predicted.data as KubeObject)['old-key'];
    const changes = comparisonChanges(
      { method: 'server-side-dry-run', predicted, fieldManager: 'kubectl' },
      manifest,
      live,
      hashSensitive,
    );
    expect(changes.map((change) => change.path)).toEqual(['data.old-key']);
  });

  it('an object whose manifest still declares everything the applier owned has no removals', () => {
    const { live } = CASES.configMapKeyRemoved!;
    const applied = appliedFieldsOf(live, 'kubectl')!;
    const { removed } = withoutRemovedFields(live, live, applied);
    expect(removed).toBe(0);
  });
});

describe('maps the applier shared with other managers', () => {
  it('Git dropping all its labels removes only the labels the applier set (kubectl diff --server-side: - team, other managers’ labels stay)', () => {
    const { manifest, live } = CASES.deploymentLabelRemovedReplicasByHpa!;
    const withOtherLabel = structuredClone(live) as KubeObject;
    (withOtherLabel.metadata as KubeObject).labels = {
      app: 'api',
      team: 'payments',
      'mesh.example/injected': 'true',
    };
    const { labels: _labels, ...metadata } = manifest.metadata as KubeObject;
    const changes = comparisonChanges(
      { method: 'declared-fields', fieldManager: 'kubectl' },
      { ...manifest, metadata },
      withOtherLabel,
      hashSensitive,
    );
    const labelPaths = changes
      .map((change) => change.path)
      .filter((path) => path.startsWith('metadata.labels'));
    expect(labelPaths.sort()).toEqual(['metadata.labels.app', 'metadata.labels.team']);
  });
});

describe('replicas set by an autoscaler', () => {
  const { manifest, live } = CASES.deploymentLabelRemovedReplicasByHpa!;
  const withReplicas = { ...manifest, spec: { ...(manifest.spec as KubeObject), replicas: 3 } };

  it('Git says 3, the HPA scaled to 6: not drift in any method (Argo CD: leave replicas to the HPA; kubectl diff --server-side would force 6 → 3)', () => {
    const predicted = structuredClone(live) as KubeObject;
    (predicted.spec as KubeObject).replicas = 3;
    for (const comparison of [
      { method: 'declared-fields' as const, fieldManager: 'kubectl' },
      { method: 'server-side-dry-run' as const, predicted },
    ]) {
      const paths = comparisonChanges(comparison, withReplicas, live, hashSensitive).map(
        (change) => change.path,
      );
      expect(paths).not.toContain('spec.replicas');
    }
  });

  it('without an autoscaler owning it, a replica count Git does not match is drift', () => {
    const unscaled = structuredClone(live) as KubeObject;
    const metadata = unscaled.metadata as KubeObject;
    metadata.managedFields = (metadata.managedFields as KubeObject[]).filter(
      (entry) => entry.manager !== 'kube-controller-manager',
    );
    const changes = comparisonChanges(
      { method: 'declared-fields', fieldManager: 'kubectl' },
      withReplicas,
      unscaled,
      hashSensitive,
    );
    expect(changes.find((change) => change.path === 'spec.replicas')).toMatchObject({ before: 3, after: 6 });
  });
});
