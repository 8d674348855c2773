import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import type { ClusterScanPorts } from '../../../functions/core/gitops/ports.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../functions/core/redaction/secrets.js';
import { argoCdCluster, registryOfCluster } from '../../helpers/registry.js';

/**
 * An Argo CD token that an HTTP header cannot carry: a JWT wrapped onto two lines when it was pasted
 * into a secret (trimming takes only the ends). fetch refused the header with "Headers.append:
 * "Bearer eyJ…\nsig" is an invalid header value", and that message became the finding: redaction
 * recognised the JWT up to the line break, so its signature (the secret part) went into the store and
 * the chat, under scan.cluster-unreachable ("check the address, that Argo CD is up"). It is now a
 * configuration failure that names where the token is kept and no part of it; nothing is sent.
 */
const SIGNATURE = 'CANARYsignature0123456789abcdefghijklmnop';
const WRAPPED = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJhcmdvY2QiLCJzdWIiOiJkcmlmdHdhdGNoOmFwaUtleSJ9\n${SIGNATURE}`;

let server: Server;
let url = '';
let requests = 0;

beforeAll(async () => {
  server = createServer((_, response) => {
    requests++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('an Argo CD token with a line break inside', () => {
  it('is a configuration failure naming where the token is kept, with no part of it; nothing is sent', async () => {
    const failure = await createArgoCdClient({ source: { url }, token: async () => WRAPPED })
      .listApplications()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).failure).toBe('configuration');
    expect((failure as Error).message).toContain('line break');
    expect((failure as Error).message).toContain('argocd.token');
    expect((failure as Error).message).not.toContain(SIGNATURE);
    expect((failure as Error).message).not.toContain('eyJ');
    expect(requests).toBe(0);
  });

  it("is the cluster's one scan.cluster-credentials finding, without the token", async () => {
    const cluster = argoCdCluster('shop-prod', url);
    const ports: ClusterScanPorts = {
      argocd: (entry) => createArgoCdClient({ source: entry.argocd!, token: async () => WRAPPED }),
      kubernetes: () => {
        throw new Error('Argo CD mode reads no Kubernetes API');
      },
      terraformObjects: async () => [],
    };
    const result = await scanCluster(cluster, {
      registry: registryOfCluster(cluster),
      ports,
      hashSensitive: createSensitiveHasher('argocd-token-header-salt'),
      now: new Date('2026-12-05T03:00:00Z'),
    });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-credentials']);
    expect(JSON.stringify(result)).not.toContain(SIGNATURE);
  });
});
