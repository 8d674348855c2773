import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import { MAX_RETRIES, retryDelayMs } from '../../../functions/adapters/http-failure.js';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';

/**
 * Answers that are not the server's last word. A 429 (the API server's Priority and Fairness under
 * load, a rate-limiting ingress in front of Argo CD) or a 5xx with Retry-After asks for the request
 * again later: client-go repeats it, and driftwatch failed the object or the whole cluster on the
 * first one ("check the address, that Argo CD is up"). A redirect (an SSO proxy's login page,
 * http → https) was "cannot reach …: unexpected redirect" from Argo CD and a bare `302` from the
 * Kubernetes API; it is named with where it points, and never followed (the token would go along).
 */
const TOKEN = 'CANARY-retry-token-1234';

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** The answers to the object's requests in order; the last one repeats. Discovery always answers. */
let script: Scripted[] = [];
let objectRequests = 0;
let server: Server;
let base = '';
/** Where redirects point: it must never be asked anything. */
let elsewhere: Server;
let elsewhereRequests = 0;
let elsewhereUrl = '';

const APPLICATION = {
  metadata: { name: 'shop', namespace: 'argocd' },
  status: { sync: { status: 'Synced' } },
};
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flags', namespace: 'shop' } };

beforeAll(async () => {
  elsewhere = createServer((_, response) => {
    elsewhereRequests++;
    response.end('{}');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  server = createServer((request, response) => {
    if (request.url === '/api/v1') {
      response.writeHead(200, { 'content-type': 'application/json' });
      const resources = [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }];
      return response.end(JSON.stringify({ kind: 'APIResourceList', groupVersion: 'v1', resources }));
    }
    const answer = script[Math.min(objectRequests, script.length - 1)]!;
    objectRequests++;
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => elsewhere?.close(resolve));
});

const CLIENTS = [
  {
    client: 'Argo CD',
    ok: APPLICATION,
    read: () =>
      createArgoCdClient({
        source: { url: base },
        token: async () => TOKEN,
        timeoutMs: 10_000,
      }).getApplication('shop'),
  },
  {
    client: 'Kubernetes',
    ok: CONFIG_MAP,
    read: () =>
      createKubernetesReader({
        config: async () => kubeConfigForEks({ cluster: 'shop', server: base }, TOKEN),
        timeoutMs: 10_000,
      }).readLive({ apiVersion: 'v1', kind: 'ConfigMap', name: 'flags', namespace: 'shop' }),
  },
];

const limited = (status: number): Scripted => ({
  status,
  headers: { 'retry-after': '0' },
  body: { kind: 'Status', message: 'too many requests, please try again later', code: status },
});

const RETRIED: Array<{ label: string; first: Scripted[] }> = [
  { label: '429 with Retry-After', first: [limited(429)] },
  { label: 'three 429s', first: [limited(429), limited(429), limited(429)] },
  { label: '503 with Retry-After (a restarting server)', first: [limited(503)] },
];

describe.each(CLIENTS)('$client client', ({ ok, read }) => {
  it.each(RETRIED)('$label: repeated, then read', async ({ first }) => {
    script = [...first, { status: 200, body: ok }];
    objectRequests = 0;
    const result = await read();
    expect(JSON.stringify(result)).toContain('"shop"');
    expect(objectRequests).toBe(first.length + 1);
  });

  it('a 429 that outlasts the retries fails, saying it was rate limited', async () => {
    script = [limited(429)];
    objectRequests = 0;
    const error = await read().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ClusterSourceError);
    expect((error as Error).message).toContain(`429`);
    expect((error as Error).message).toContain(`(rate limited: still refused after ${MAX_RETRIES} retries)`);
    expect(objectRequests).toBe(MAX_RETRIES + 1);
  });

  it.each<{ status: number; headers: Record<string, string> }>([
    { status: 500, headers: {} },
    { status: 503, headers: {} },
    { status: 403, headers: { 'retry-after': '0' } },
  ])('$status (headers $headers) is the answer: not repeated', async ({ status, headers }) => {
    script = [{ status, headers, body: { message: 'no' } }];
    objectRequests = 0;
    await expect(read()).rejects.toThrow(String(status));
    expect(objectRequests).toBe(1);
  });

  it.each([301, 302, 307, 308])('a %i redirect is named and not followed', async (status) => {
    script = [{ status, headers: { location: `${elsewhereUrl}/oauth2/start?rd=%2Fapi&state=CANARYstate` } }];
    objectRequests = 0;
    elsewhereRequests = 0;
    const error = await read().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ClusterSourceError);
    expect((error as ClusterSourceError).failure).toBe('invalid-response');
    expect((error as Error).message).toContain(
      `answered ${status}, a redirect to ${elsewhereUrl}/oauth2/start (not followed: the credentials would go with it)`,
    );
    expect((error as Error).message).not.toContain('CANARY');
    expect(elsewhereRequests).toBe(0);
  });
});

describe('retryDelayMs', () => {
  const now = Date.parse('2026-12-02T03:00:00Z');
  it.each([
    [429, '2', 2000],
    [429, null, 1000],
    [429, '3600', 10_000],
    [429, 'Wed, 02 Dec 2026 03:00:05 GMT', 5000],
    [503, '1', 1000],
    [503, null, undefined],
    [500, 'soon', undefined],
    [403, '1', undefined],
    [200, '1', undefined],
  ])('%i with Retry-After %j waits %j ms', (status, header, wait) => {
    expect(retryDelayMs(status, header, now)).toBe(wait);
  });
});
