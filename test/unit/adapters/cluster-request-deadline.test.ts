import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import {
  CLUSTER_TIMEOUT_ENV,
  clusterTimeoutMs,
  DEFAULT_CLUSTER_TIMEOUT_MS,
} from '../../../functions/adapters/http-failure.js';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';

/**
 * Every HTTP read of the cluster adapters (Argo CD's REST API, the Kubernetes API) is bounded as a
 * whole, body included. A server that sends its headers and then trickles the body, a space at a
 * time, kept `cluster-diff` waiting for ever: the Kubernetes reader's socket timeout is an idle
 * timeout that each trickled byte resets, and fetch's `AbortSignal.timeout()` signal was
 * garbage-collected during the body read (undici holds it weakly), so it never fired in a process
 * with enough allocation to collect. The tests collect garbage while they wait, as such a process
 * does. A hang fails the test through its timeout; no test measures a duration.
 */

// `gc()` without starting node with --expose-gc: the flag, then a fresh context that has the global.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A server that never answers: any deadline gives the same message. */
const SHORT_MS = 300;
/**
 * A trickling server: its headers must reach the client before the deadline for the message to say
 * so, and a loaded machine (the first fetch of a worker loads undici) can take a few hundred ms.
 */
const TRICKLE_MS = 2000;
const TOKEN = 'CANARY-deadline-token-7f3a';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Connections a trickling server saw the client close (a client that gave up must not hold one open). */
let closedByClient = 0;
let onClosed: () => void = () => undefined;

/** Headers now, then one space every 50 ms for as long as the client listens. */
const trickle: Handler = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{"items": [');
  const timer = setInterval(() => response.write(' '), 50);
  request.on('close', () => {
    clearInterval(timer);
    closedByClient += 1;
    onClosed();
  });
};

/** Resolves once the trickling server has seen `count` connections closed by the client. */
function closedConnections(count: number): Promise<void> {
  return new Promise((resolve) => {
    onClosed = () => {
      if (closedByClient >= count) resolve();
    };
    onClosed();
  });
}

/** Accepts the request and never answers. */
const silent: Handler = (request) => {
  request.on('close', () => {
    closedByClient += 1;
    onClosed();
  });
};

const servers: Server[] = [];
// The first fetch of a worker loads undici: done once here, so no deadline below includes it.
beforeAll(async () => {
  const url = await serve((_, response) => response.end('{}'));
  await (await fetch(url)).text();
});
afterEach(async () => {
  closedByClient = 0;
  onClosed = () => undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The promise's rejection, with the garbage collected often while it is pending. */
async function rejectionWhileCollecting(pending: Promise<unknown>): Promise<unknown> {
  // Often enough that a weakly held signal is collected during the wait, not so often that a loaded
  // worker spends the deadline collecting instead of reading the headers.
  const collector = setInterval(gc, 100);
  try {
    await pending;
  } catch (error) {
    return error;
  } finally {
    clearInterval(collector);
  }
  throw new Error('the request succeeded');
}

function argoClient(url: string, timeoutMs = TRICKLE_MS) {
  return createArgoCdClient({ source: { url }, token: async () => TOKEN, timeoutMs });
}

function kubernetesReader(url: string, timeoutMs = TRICKLE_MS) {
  return createKubernetesReader({
    config: async () => kubeConfigForEks({ cluster: 'deadline', server: url }, TOKEN),
    timeoutMs,
  });
}

const LIVE_READ = { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: 'shop' };

describe('the Argo CD client bounds the whole request', () => {
  it('a body trickled after the headers is an unreachable failure naming the deadline', async () => {
    const url = await serve(trickle);
    const error = await rejectionWhileCollecting(argoClient(url).listApplications());
    expect(error).toBeInstanceOf(ClusterSourceError);
    expect(error).toMatchObject({ failure: 'unreachable' });
    expect((error as ClusterSourceError).reason).toBe(
      `GET /api/v1/applications: the response from ${url} did not complete within 2s (headers came, the body did not)`,
    );
    expect((error as ClusterSourceError).reason).not.toContain(TOKEN);
    // The client closed the connection it gave up on (an open one would keep the CLI from exiting).
    await closedConnections(1);
  }, 20_000);

  it('each read (application, managed resources) is bounded the same way', async () => {
    const client = argoClient(await serve(trickle));
    for (const read of [() => client.getApplication('shop'), () => client.managedResources('shop')])
      expect(await rejectionWhileCollecting(read())).toMatchObject({
        failure: 'unreachable',
        reason: expect.stringContaining('did not complete within 2s'),
      });
  }, 20_000);

  it('a server that never answers is an unreachable failure too', async () => {
    const url = await serve(silent);
    const error = await rejectionWhileCollecting(argoClient(url, SHORT_MS).listApplications());
    expect(error).toMatchObject({
      failure: 'unreachable',
      reason: `GET /api/v1/applications: no answer from ${url} within 300ms`,
    });
    await closedConnections(1);
  }, 20_000);
});

describe('the Kubernetes reader bounds the whole request', () => {
  it('a body trickled after the headers (the idle timeout never fires) is an unreachable failure', async () => {
    const url = await serve(trickle);
    const error = await rejectionWhileCollecting(kubernetesReader(url).readLive(LIVE_READ));
    expect(error).toBeInstanceOf(ClusterSourceError);
    expect(error).toMatchObject({ failure: 'unreachable' });
    expect((error as ClusterSourceError).reason).toBe(
      `GET /api/v1: the response from ${new URL(url).host} did not complete within 2s (headers came, the body did not)`,
    );
    await closedConnections(1);
  }, 20_000);

  it('discovery, listing and dry-runs are bounded the same way', async () => {
    const url = await serve(trickle);
    const reads: Array<() => Promise<unknown>> = [
      () => kubernetesReader(url).clusterCapabilities(),
      () => kubernetesReader(url).listObjects({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop' }),
      () => kubernetesReader(url).openApiDocument('v1'),
    ];
    for (const read of reads)
      expect(await rejectionWhileCollecting(read())).toMatchObject({
        failure: 'unreachable',
        reason: expect.stringContaining('did not complete within 2s'),
      });
    // The dry-run PATCH reaches the server only after discovery: served from a server that answers it.
    const dryRunUrl = await serve((request, response) => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] }),
        );
        return;
      }
      trickle(request, response);
    });
    const manifest = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop' },
    };
    expect(
      await rejectionWhileCollecting(kubernetesReader(dryRunUrl).dryRunApply(LIVE_READ, manifest, 'kubectl')),
    ).toMatchObject({
      failure: 'unreachable',
      reason: `PATCH /api/v1/namespaces/shop/configmaps/settings: the response from ${new URL(dryRunUrl).host} did not complete within 2s (headers came, the body did not)`,
    });
  }, 30_000);

  it('a server that never answers is an unreachable failure', async () => {
    const url = await serve(silent);
    expect(await rejectionWhileCollecting(kubernetesReader(url, SHORT_MS).readLive(LIVE_READ))).toMatchObject(
      {
        failure: 'unreachable',
        reason: `GET /api/v1: no answer from ${new URL(url).host} within 300ms`,
      },
    );
    await closedConnections(1);
  }, 20_000);
});

describe(`${CLUSTER_TIMEOUT_ENV}`, () => {
  it('sets the deadline as a duration; unset or blank is 30 s; anything else names the variable', () => {
    expect(clusterTimeoutMs({})).toBe(DEFAULT_CLUSTER_TIMEOUT_MS);
    expect(clusterTimeoutMs({ [CLUSTER_TIMEOUT_ENV]: ' ' })).toBe(30_000);
    expect(clusterTimeoutMs({ [CLUSTER_TIMEOUT_ENV]: '2m' })).toBe(120_000);
    for (const bad of ['5', '0s', 'soon'])
      expect(() => clusterTimeoutMs({ [CLUSTER_TIMEOUT_ENV]: bad })).toThrow(CLUSTER_TIMEOUT_ENV);
  });
});
