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

async function scan(url: string) {
  const config = cluster(url);
  const ports: ClusterScanPorts = {
    argocd: (entry) => createArgoCdClient({ source: entry.argocd!, token: async () => TOKEN }),
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
