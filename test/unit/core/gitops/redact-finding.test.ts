import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../../../../functions/core/findings/model.js';
import { redactClusterFinding } from '../../../../functions/core/gitops/redact-finding.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';

/** The last pass of every cluster finding (issue 14 §6): whatever rule built it, no credential survives. */
const hash = createSensitiveHasher('redact-finding-test-salt');
const url = 'postgres://app:CNRYpw0001@db.internal/orders';
const token = 'ghp_CNRYtok0002x9Y8w7V6u5T4s3R2q1P0o9N8m7L6';
const plain = 'CNRYplain0003';

function draft(changes: NonNullable<FindingDraft['drift']>['changes']): FindingDraft {
  return {
    kind: 'cluster-drift',
    ruleId: 'cluster.drift',
    severity: 'medium',
    workspace: 'prod-eu',
    owner: 'platform',
    environment: 'prod',
    title: `ConfigMap x differs`,
    detail: `Argo CD reports: cannot reach ${url}`,
    evidence: { unhealthyResources: [{ message: `Authorization: Bearer ${token}` }] },
    remediation: { summary: 'review', steps: [`check ${url}`] },
    drift: { action: 'update', changes },
  };
}

describe('redactClusterFinding', () => {
  it('hashes credentials anywhere in a change (a whole added block too) and marks it sensitive; plain values stay', () => {
    const redacted = redactClusterFinding(
      draft([
        { path: 'data.mode', before: 'a', after: 'b', sensitive: false },
        {
          path: 'spec.template.spec.containers[0].env[3]',
          before: null,
          after: { name: 'EXTRA', value: url },
          sensitive: false,
        },
        {
          path: 'metadata.annotations',
          before: null,
          after: { 'example.com/source': token },
          sensitive: false,
        },
      ]),
      hash,
    );
    const [mode, env, annotations] = redacted.drift!.changes;
    expect(mode).toEqual({ path: 'data.mode', before: 'a', after: 'b', sensitive: false });
    expect(env).toEqual({
      path: 'spec.template.spec.containers[0].env[3]',
      before: null,
      after: { name: 'EXTRA', value: hash(url) },
      sensitive: true,
    });
    expect(annotations!.sensitive).toBe(true);
    expect(JSON.stringify(redacted)).not.toMatch(/CNRY/);
  });

  it('hashes the last-applied-configuration annotation whole, even where no pattern matches inside it', () => {
    const copy = JSON.stringify({ stringData: { password: plain } });
    const redacted = redactClusterFinding(
      draft([
        {
          path: 'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]',
          before: '{}',
          after: copy,
          sensitive: false,
        },
        {
          path: 'metadata.annotations',
          before: null,
          after: { 'kubectl.kubernetes.io/last-applied-configuration': copy },
          sensitive: false,
        },
      ]),
      hash,
    );
    expect(redacted.drift!.changes.map((change) => change.sensitive)).toEqual([true, true]);
    expect(JSON.stringify(redacted)).not.toContain(plain);
  });

  it('redacts credentials in title, detail, evidence and remediation text; is idempotent', () => {
    const once = redactClusterFinding(draft([]), hash);
    expect(once.detail).toBe('Argo CD reports: cannot reach postgres://app:(redacted)@db.internal/orders');
    expect(JSON.stringify(once)).not.toMatch(/CNRY/);
    expect(redactClusterFinding(once, hash)).toEqual(once);
  });
});
