import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { eksDirectCluster, scanDirect } from '../../helpers/direct-scan.js';

/**
 * A kubeconfig whose server is not a Kubernetes API server (a wrong address, a Rancher URL without
 * its `/k8s/clusters/<id>` path, an ingress default backend, a proxy's page) answers discovery with
 * 404 or something that is no APIResourceList. Discovery's 404 means "kind not served", so every
 * object was `cluster.missing` (high, exit 2), and the run, being `ok`, resolved the cluster's open
 * findings. Every API server serves the core group version at `/api/v1`: its absence is one
 * `scan.cluster-invalid-response` for the cluster.
 */
type Answer = { status: number; type: string; body: string };
const NOT_KUBERNETES: Array<{ label: string; answer: Answer; reason: string }> = [
  {
    label: '404 everywhere (a default backend)',
    answer: { status: 404, type: 'text/html', body: '<html><body>default backend - 404</body></html>' },
    reason: 'GET /api/v1 answered 404, and every Kubernetes API server serves the core API there',
  },
  {
    label: '200 {} everywhere (a proxy)',
    answer: { status: 200, type: 'application/json', body: '{}' },
    reason: 'GET /api/v1: the answer is not an APIResourceList (no resources)',
  },
  {
    label: '200 null',
    answer: { status: 200, type: 'application/json', body: 'null' },
    reason: 'GET /api/v1: the answer is not an APIResourceList (no resources)',
  },
  {
    label: '200 HTML (a login page)',
    answer: { status: 200, type: 'text/html', body: '<!doctype html><title>Sign in</title>' },
    reason: 'GET /api/v1: the response is not JSON',
  },
];

let answer: Answer = NOT_KUBERNETES[0]!.answer;
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((_, response) => {
    response.writeHead(answer.status, { 'content-type': answer.type });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const RENDERS = {
  'a ConfigMap and a Deployment': [
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\ndata: {a: b}',
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}\nspec: {replicas: 1}',
  ].join('\n---\n'),
  'Deployments only (no core kind)':
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}',
};

async function scan(render: string) {
  const cluster = eksDirectCluster(base);
  const reader = createKubernetesReader({
    config: async () => kubeConfigForEks({ cluster: 'shop', server: base }, 'not-kubernetes-token'),
    timeoutMs: 10_000,
  });
  return scanDirect(cluster, {
    server: base,
    render: render,
    reader,
    salt: 'not-kubernetes-salt-001',
  });
}

describe('a server that is not a Kubernetes API server fails the cluster once, never "missing"', () => {
  describe.each(Object.entries(RENDERS))('render: %s', (_, render) => {
    it.each(NOT_KUBERNETES)('$label', async (variant) => {
      answer = variant.answer;
      const result = await scan(render);
      expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-invalid-response']);
      expect(result.findings[0]!.detail).toContain(variant.reason);
      expect(result.outcome).toBe('failed');
      expect(result.scanned).toBe(0);
    });
  });
});
