import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import type { ClusterConfig } from '../../../functions/core/registry/model.js';
import { eksDirectCluster, scanDirect } from '../../helpers/direct-scan.js';
import { type FakeKubernetes, startFakeKubernetes } from '../../helpers/fake-kubernetes.js';

/**
 * Names become URL path segments. `encodeURIComponent` leaves `.` and `..` alone and the URL parser
 * resolves them: a ConfigMap named `..` was read as `GET /api/v1/namespaces/shop/` (the namespace)
 * and reported `cluster.missing`, a namespace `..` read `/api/v1/configmaps/x` across namespaces.
 * The API server refuses such names for every kind, so each is that object's failure, named, and
 * no request for it is sent.
 */
const TOKEN = 'path-segment-token';
const LIVE = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'flags', namespace: 'shop' },
  data: { mode: 'a' },
};

const CASES: Array<{ label: string; manifest: Record<string, unknown>; reason: string }> = [
  {
    label: 'name ..',
    manifest: configMap('..', 'shop'),
    reason: `the name ".." is not a valid Kubernetes name: it may not be '..'`,
  },
  {
    label: 'name .',
    manifest: configMap('.', 'shop'),
    reason: `the name "." is not a valid Kubernetes name: it may not be '.'`,
  },
  { label: 'name with /', manifest: configMap('../secrets/db', 'shop'), reason: `it may not contain '/'` },
  { label: 'name with %', manifest: configMap('a%2e%2e', 'shop'), reason: `it may not contain '%'` },
  {
    label: 'namespace ..',
    manifest: configMap('flags', '..'),
    reason: `the namespace ".." is not a valid Kubernetes name`,
  },
  {
    label: 'apiVersion with ..',
    manifest: { ...configMap('flags', 'shop'), apiVersion: '../v1' },
    reason: `the apiVersion part ".." is not a valid Kubernetes name`,
  },
  {
    label: 'apiVersion of three parts',
    manifest: { ...configMap('flags', 'shop'), apiVersion: 'apps/v1/x' },
    reason: 'the apiVersion "apps/v1/x" is not <group>/<version> or <version>',
  },
];

function configMap(name: string, namespace: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { mode: 'a' } };
}

let kube: FakeKubernetes;
beforeAll(async () => {
  kube = await startFakeKubernetes({
    objects: [LIVE],
    authorize: (header) => header === `Bearer ${TOKEN}`,
    dryRun: () => ({ status: 200, body: LIVE }),
  });
});
afterAll(async () => {
  await kube?.close();
});

function cluster(): ClusterConfig {
  return eksDirectCluster(kube.server, { comparison: 'server-dry-run' });
}

describe('names that are not valid path segments fail their object, and are never requested', () => {
  it.each(CASES)('$label', async ({ manifest, reason }) => {
    const reader = createKubernetesReader({
      config: async () => kubeConfigForEks({ cluster: 'shop', server: kube.server }, TOKEN),
    });
    const before = kube.requests.length;
    // The valid object is still compared (and in sync): only the bad one fails.
    const render = [manifest, LIVE].map((object) => JSON.stringify(object)).join('\n---\n');
    const result = await scanDirect(cluster(), {
      server: kube.server,
      render: render,
      reader,
      salt: 'path-segment-salt-00001',
    });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-object']);
    expect(result.findings[0]!.detail).toContain(reason);
    expect(result.outcome).toBe('failed');
    const paths = kube.requests.slice(before).map((request) => `${request.method} ${request.path}`);
    // Only discovery, argocd-cm, schemas and the valid object: no path a bad name was resolved into.
    expect(
      paths.filter((path) => !/\/(argocd-cm|flags)$|^GET \/api\/v1$|^GET \/openapi\/v3$/.test(path)),
    ).toEqual([]);
    expect(kube.writes).toEqual([]);
  });

  it.each(['..', '.', 'a/b'])('an Argo CD application named %j is not requested', async (name) => {
    const requested: string[] = [];
    const client = createArgoCdClient({
      source: { url: 'http://127.0.0.1:9' },
      token: async () => 'argo-token',
      fetch: async (url) => {
        requested.push(String(url));
        return new Response('{}');
      },
    });
    await expect(client.getApplication(name)).rejects.toThrow('is not a valid Kubernetes name');
    await expect(client.managedResources(name)).rejects.toThrow('is not a valid Kubernetes name');
    expect(requested).toEqual([]);
  });
});
