import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of the Kubernetes API for direct mode: discovery (`/api/v1`, `/apis/<group>/<version>`)
 * and GET of single objects, with Status bodies for 401/404 as the API server sends them.
 */

const RESOURCES: Record<string, Array<{ name: string; kind: string; namespaced: boolean }>> = {
  v1: [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'secrets', kind: 'Secret', namespaced: true },
    { name: 'services', kind: 'Service', namespaced: true },
    { name: 'services/status', kind: 'Service', namespaced: true },
    { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
  ],
  'apps/v1': [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'deployments/scale', kind: 'Scale', namespaced: true },
  ],
};

export interface FakeKubernetes {
  server: string;
  requests: Array<{ path: string; authorization?: string }>;
  close(): Promise<void>;
}

export async function startFakeKubernetes(options: {
  /** Live objects (as the API server returns them). */
  objects: Array<Record<string, unknown>>;
  /** Accepts a request when this returns true for its Authorization header. */
  authorize: (authorization: string | undefined) => boolean;
}): Promise<FakeKubernetes> {
  const requests: FakeKubernetes['requests'] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    requests.push({ path, authorization: request.headers.authorization });
    if (request.method !== 'GET') return status(response, 405, 'MethodNotAllowed', 'read-only fake');
    if (!options.authorize(request.headers.authorization))
      return status(response, 401, 'Unauthorized', 'Unauthorized');
    const discovery = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))$/.exec(path);
    if (discovery) {
      const groupVersion = discovery[1] ?? discovery[2]!;
      const resources = RESOURCES[groupVersion];
      if (!resources)
        return status(response, 404, 'NotFound', 'the server could not find the requested resource');
      return send(response, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources });
    }
    const read = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)\/([^/]+)$/.exec(
      path,
    );
    if (read) {
      const apiVersion = read[1] ?? read[2]!;
      const kind = RESOURCES[apiVersion]?.find((resource) => resource.name === read[4])?.kind;
      const found = options.objects.find((object) => {
        const metadata = object.metadata as { name?: string; namespace?: string };
        return (
          object.apiVersion === apiVersion &&
          object.kind === kind &&
          metadata.name === read[5] &&
          (metadata.namespace ?? undefined) === (read[3] ?? undefined)
        );
      });
      if (found) return send(response, 200, found);
      return status(response, 404, 'NotFound', `${read[4]} "${read[5]}" not found`);
    }
    return status(response, 404, 'NotFound', 'the server could not find the requested resource');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function send(response: ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function status(response: ServerResponse, code: number, reason: string, message: string): void {
  send(response, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
}

/** A kubeconfig with one context for a fake server (plain http on loopback needs insecure-skip-tls-verify). */
export function writeKubeconfig(path: string, server: string, token: string, context = 'fake'): string {
  const text = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${context}`,
    'clusters:',
    `  - name: ${context}`,
    `    cluster: { server: "${server}", insecure-skip-tls-verify: true }`,
    'users:',
    `  - name: ${context}-user`,
    `    user: { token: "${token}" }`,
    'contexts:',
    `  - name: ${context}`,
    `    context: { cluster: ${context}, user: ${context}-user }`,
    '',
  ].join('\n');
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}
