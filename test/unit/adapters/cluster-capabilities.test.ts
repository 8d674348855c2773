import { afterEach, describe, expect, it } from 'vitest';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import {
  EKS_VERSION_INFO,
  type FakeKubernetes,
  type RecordedResponse,
  startFakeKubernetes,
} from '../../helpers/fake-kubernetes.js';

/**
 * What `helm template` is told about the cluster (--kube-version, --api-versions), read by the
 * real Kubernetes adapter from the stand-in API's /version and discovery answers (written in the
 * Kubernetes API reference's shapes: version.Info, APIVersions, APIGroupList, APIResourceList).
 */
const TOKEN = 'capabilities-token';
const policyV1 = {
  'policy/v1': [
    { name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
    { name: 'poddisruptionbudgets/status', kind: 'PodDisruptionBudget', namespaced: true },
  ],
};

let kube: FakeKubernetes | undefined;
afterEach(async () => {
  await kube?.close();
  kube = undefined;
});

async function readerFor(failures: Record<string, RecordedResponse> = {}) {
  kube = await startFakeKubernetes({
    objects: [],
    authorize: (header) => header === `Bearer ${TOKEN}`,
    resources: policyV1,
    failures,
  });
  const server = kube.server;
  return createKubernetesReader({
    config: async () => kubeConfigForEks({ cluster: 'shop', server }, TOKEN),
  });
}

function statusOf(code: number, reason: string, message: string): RecordedResponse {
  return {
    status: code,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code },
  };
}

describe('clusterCapabilities', () => {
  it('reads /version, /api, /apis and each group version once, with GETs only', async () => {
    const reader = await readerFor();
    const capabilities = await reader.clusterCapabilities();
    expect(capabilities.kubeVersion).toBe(EKS_VERSION_INFO.gitVersion);
    expect(capabilities.unavailable).toEqual([]);
    // Group versions and kinds (the core group without a group), subresources left out, sorted once each.
    expect(capabilities.apiVersions).toEqual(
      expect.arrayContaining([
        'apps/v1',
        'apps/v1/Deployment',
        'policy/v1',
        'policy/v1/PodDisruptionBudget',
        'v1',
        'v1/ConfigMap',
        'v1/Service',
      ]),
    );
    expect(capabilities.apiVersions).not.toContain('apps/v1/Scale');
    expect(capabilities.apiVersions).toEqual([...new Set(capabilities.apiVersions)].sort());
    // A second call (and the later object reads) reuse what discovery read.
    await reader.clusterCapabilities();
    const requests = kube!.requests.map((request) => `${request.method} ${request.path}`);
    expect(requests.every((request) => request.startsWith('GET '))).toBe(true);
    expect(requests.filter((request) => request === 'GET /version')).toHaveLength(1);
    expect(requests.filter((request) => request === 'GET /apis/policy/v1')).toHaveLength(1);
    expect(requests).toEqual(
      expect.arrayContaining(['GET /api', 'GET /api/v1', 'GET /apis', 'GET /apis/apps/v1']),
    );
  });

  it('a group version whose discovery fails (an aggregated API answering 503) is left out and named', async () => {
    const reader = await readerFor({
      'GET /apis/policy/v1': statusOf(
        503,
        'ServiceUnavailable',
        'the server is currently unable to handle the request',
      ),
    });
    const capabilities = await reader.clusterCapabilities();
    expect(capabilities.apiVersions).not.toContain('policy/v1');
    expect(capabilities.apiVersions).toContain('apps/v1/Deployment');
    expect(capabilities.unavailable).toEqual([
      'GET /apis/policy/v1: 503 the server is currently unable to handle the request',
    ]);
  });

  it('/version or the group list refused: the whole discovery fails, for the caller to render without it', async () => {
    const reader = await readerFor({
      'GET /apis': statusOf(403, 'Forbidden', 'forbidden: User "driftwatch" cannot get path "/apis"'),
    });
    const failure = await reader.clusterCapabilities().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).failure).toBe('forbidden');
    expect((failure as ClusterSourceError).reason).toContain('GET /apis: 403');
  });
});
