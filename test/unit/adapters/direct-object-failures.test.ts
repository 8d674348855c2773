import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import type { FindingDraft } from '../../../functions/core/findings/model.js';
import type { ClusterComparison } from '../../../functions/core/registry/model.js';
import { eksDirectCluster, scanDirect } from '../../helpers/direct-scan.js';
import {
  type FakeKubernetes,
  type RecordedResponse,
  startFakeKubernetes,
} from '../../helpers/fake-kubernetes.js';

/**
 * Issue 14 §3: one object that cannot be read or dry-run fails that object, not the cluster. The
 * real Kubernetes adapter reads a render of six objects from the stand-in API, which answers some
 * requests with recorded error Statuses (test/fixtures/kubernetes/README.md, `object-failures/`).
 */
const FIXTURES = join(import.meta.dirname, '../../fixtures/kubernetes/object-failures');
const recorded = JSON.parse(readFileSync(join(FIXTURES, 'responses.json'), 'utf8')) as {
  failures: Record<string, RecordedResponse>;
  live: Array<Record<string, unknown>>;
};
const rendered = readFileSync(join(FIXTURES, 'rendered.yaml'), 'utf8');
const TOKEN = 'object-failures-token';

let kube: FakeKubernetes;
beforeAll(async () => {
  kube = await startFakeKubernetes({
    objects: recorded.live,
    authorize: (header) => header === `Bearer ${TOKEN}`,
    failures: recorded.failures,
    // A dry-run of an unchanged object answers the live object (kubectl diff --server-side: no diff).
    dryRun: (key) => {
      const live = recorded.live.find(
        (object) => key === 'v1/configmaps/shop/flags' && object.kind === 'ConfigMap',
      );
      return live ? { status: 200, body: live } : undefined;
    },
  });
});
afterAll(async () => {
  await kube?.close();
});

async function scan(comparison: ClusterComparison, token = TOKEN) {
  const cluster = eksDirectCluster(kube.server, { comparison });
  const reader = createKubernetesReader({
    config: async () => kubeConfigForEks({ cluster: 'shop', server: kube.server }, token),
  });
  return scanDirect(cluster, {
    server: kube.server,
    render: rendered,
    reader,
    salt: 'object-failures-salt-0001',
  });
}

function verdicts(findings: FindingDraft[]): string[] {
  return findings
    .map((finding) => {
      const resource = finding.resource as { kind?: string; name?: string } | undefined;
      return `${finding.ruleId} ${resource?.kind ?? '-'}/${resource?.name ?? '-'}`;
    })
    .sort();
}

describe('per-object failures in direct mode (the cluster is still scanned)', () => {
  it('GET 403, GET 500 and dry-run 503 fail their object only; an unserved kind is that object missing; the in-sync object and the hook give nothing', async () => {
    const result = await scan('server-dry-run');
    expect(verdicts(result.findings)).toEqual([
      'cluster.missing ServiceMonitor/web',
      'scan.cluster-object ConfigMap/settings',
      'scan.cluster-object Deployment/api',
      'scan.cluster-object Service/web',
    ]);
    const reasons = result.findings.map((finding) => finding.detail ?? finding.title).join('\n');
    expect(reasons).toContain(
      'GET /apis/apps/v1/namespaces/shop/deployments/api: 403 deployments.apps "api" is forbidden',
    );
    expect(reasons).toContain('GET /api/v1/namespaces/shop/configmaps/settings: 500 Internal error occurred');
    expect(reasons).toContain('dry-run apply answered 503 for /api/v1/namespaces/shop/services/web');
    expect(reasons).toContain('does not serve its kind (monitoring.coreos.com/v1 ServiceMonitor)');
    expect(result.outcome).toBe('failed');
    expect(result.scanned).toBe(5);
    expect(result.skipped).toEqual([
      { kind: 'Job', name: 'db-migrate', namespace: 'shop', reason: 'Helm hook (helm.sh/hook: pre-upgrade)' },
    ]);
    // The hook is never read; the in-sync ConfigMap was read and dry-run.
    expect(kube.requests.some((request) => request.path.includes('/jobs/'))).toBe(false);
    expect(
      kube.requests.some(
        (request) => request.method === 'PATCH' && request.path.endsWith('/configmaps/flags'),
      ),
    ).toBe(true);
    expect(kube.writes).toEqual([]);
  });

  it('with the declared comparison (no dry-run) only the read failures remain, per object', async () => {
    const result = await scan('declared');
    expect(verdicts(result.findings)).toEqual([
      'cluster.missing ServiceMonitor/web',
      'scan.cluster-object ConfigMap/settings',
      'scan.cluster-object Deployment/api',
    ]);
  });

  it('credentials the server rejects (401) fail the whole cluster once, not each object', async () => {
    const result = await scan('server-dry-run', 'wrong-token');
    expect(verdicts(result.findings)).toEqual(['scan.cluster-unauthorized -/-']);
    expect(result.scanned).toBe(0);
  });
});
