import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import type { ClusterScanPorts } from '../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../functions/core/redaction/secrets.js';
import type { ClusterConfig } from '../../../functions/core/registry/model.js';
import { registryOfCluster } from '../../helpers/registry.js';

/**
 * An Argo CD that answers the list and then stops serving the scan: the token expires between the
 * list and the reads (a short-lived JWT, an account token rotated mid-run), or argocd-server restarts.
 * Every application read after the list was its own scan-failed finding (hundreds for a big
 * instance, one chat line each), and against a server that stopped answering each read waited out
 * its timeout, four at a time. The first such failure now stops the scan with one finding for the
 * cluster, as direct mode does. The 401 body is what Argo CD sends for an expired token
 * (server/server.go `invalid session: …`, util/session `token is expired`).
 */
const TOKEN = 'CANARY-argocd-expiring-token-5e1f';
const APPLICATIONS = 200;

const cluster = (url: string): ClusterConfig => ({
  id: 'shop-prod',
  owner: 'platform',
  environment: 'prod',
  argocd: { url, token: { env: 'ARGOCD_AUTH_TOKEN' } },
  applications: [],
  workspaces: [],
  policies: { outOfSyncAfterMs: 3_600_000 },
});

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Lists APPLICATIONS applications, then answers every other request with `after` (counted). */
async function argoCd(after: 'expired-token' | 'gone'): Promise<{ url: string; reads: () => number }> {
  let reads = 0;
  const items = Array.from({ length: APPLICATIONS }, (_, index) => ({
    metadata: { name: `app-${String(index).padStart(3, '0')}`, namespace: 'argocd' },
    spec: { project: 'default' },
    status: { sync: { status: 'Synced' }, health: { status: 'Healthy' }, controllerNamespace: 'argocd' },
  }));
  server = createServer((request, response) => {
    if (request.url?.startsWith('/api/v1/applications?') || request.url === '/api/v1/applications') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items }));
    }
    reads++;
    if (after === 'gone') return request.socket.destroy();
    const message = 'invalid session: token has invalid claims: token is expired';
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: message, code: 16, message }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reads: () => reads };
}

async function scan(url: string, timeoutMs?: number) {
  const config = cluster(url);
  const ports: ClusterScanPorts = {
    argocd: (entry) =>
      createArgoCdClient({
        source: entry.argocd!,
        token: async () => TOKEN,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      }),
    kubernetes: () => {
      throw new Error('Argo CD mode reads no Kubernetes API');
    },
    terraformObjects: async () => [],
  };
  return scanCluster(config, {
    registry: registryOfCluster(config),
    ports,
    hashSensitive: createSensitiveHasher('argocd-fails-after-list-salt'),
    now: new Date('2026-12-05T03:00:00Z'),
  });
}

describe('an Argo CD that stops serving after the list', () => {
  it.each([
    [
      'the token expires after the list (401)',
      'expired-token',
      'scan.cluster-unauthorized',
      /401.*token is expired/,
    ],
    ['the server goes away after the list', 'gone', 'scan.cluster-unreachable', /cannot reach/],
  ] as const)('%s: one finding for the cluster, and the reads stop', async (_, after, ruleId, reason) => {
    const argo = await argoCd(after);
    const result = await scan(argo.url);
    expect(result.outcome).toBe('failed');
    expect(result.findings.map((finding) => [finding.ruleId, finding.resource ?? null])).toEqual([
      [ruleId, null],
    ]);
    expect(result.findings[0]!.detail).toMatch(reason);
    expect(result.findings[0]!.detail).toContain(`reading applications from ${argo.url}`);
    // The reads already under way when the first failed (at most four at a time), not all 200.
    expect(argo.reads()).toBeLessThanOrEqual(4);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});

describe('one application whose managed resources take longer than a request may', () => {
  it('fails that application only: its GET answered, so the server is not stuck, and the others are scanned', async () => {
    const application = (name: string) => ({
      metadata: { name, namespace: 'argocd' },
      spec: { project: 'default' },
      status: { sync: { status: 'OutOfSync' }, health: { status: 'Healthy' }, controllerNamespace: 'argocd' },
    });
    const names = ['cart', 'huge', 'shop'];
    let managedReads = 0;
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const json = (body: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (path === '/api/v1/applications') return json({ items: names.map(application) });
      const [, name, managed] = /^\/api\/v1\/applications\/([^/]+)(\/managed-resources)?$/.exec(path) ?? [];
      if (!managed) return json(application(name!));
      managedReads++;
      // Argo CD still computing the diff of thousands of objects: no answer within the client's time.
      if (name === 'huge') return;
      json({ items: [] });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Short only in this test's own client: the server never answers that one request.
    const result = await scan(url, 500);
    expect(result.scanned).toBe(3);
    expect(managedReads).toBe(3);
    expect(result.findings.map((finding) => [finding.ruleId, finding.resource])).toEqual([
      [
        'scan.cluster-unreachable',
        { app: 'huge', group: 'argoproj.io', kind: 'Application', name: 'huge', namespace: 'argocd' },
      ],
    ]);
    expect(result.findings[0]!.detail).toContain('managed resources of application huge');
  });
});
