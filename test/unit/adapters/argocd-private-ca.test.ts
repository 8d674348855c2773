import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanFailureLine } from '../../../cli/commands/cluster-diff-action.js';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import { driftDraft } from '../../helpers/findings.js';
import { selfSignedCertificate, type TestCertificate } from '../../helpers/provider-mirror.js';
import { argoCdCluster } from '../../helpers/registry.js';

/**
 * Argo CD's default install serves a self-signed certificate, and many serve one of a company CA.
 * The client trusted only public CAs: such a server was "cannot reach … (SELF_SIGNED_CERT_IN_CHAIN)"
 * with no way to trust it short of NODE_EXTRA_CA_CERTS on the scanner. `argocd.certificateAuthority`
 * (base64 PEM, as `eks.certificateAuthority`) trusts that CA for that server only, and the error
 * says so. The server here is a real TLS server with a certificate made by openssl for 127.0.0.1.
 */
const TOKEN = 'CANARY-private-ca-token-5678';
const APPLICATION = {
  metadata: { name: 'shop', namespace: 'argocd' },
  status: { sync: { status: 'Synced' } },
};

let dir: string;
let certificate: TestCertificate;
let server: Server;
let base = '';
let authorizations: (string | undefined)[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftwatch-argocd-ca-'));
  certificate = selfSignedCertificate(dir, 'argocd');
  server = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    authorizations.push(request.headers.authorization);
    if (request.url?.startsWith('/api/v1/applications/moved')) {
      response.writeHead(302, { location: 'https://login.example.com/' });
      return response.end();
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ items: [APPLICATION] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const client = (certificateAuthority?: string) =>
  createArgoCdClient({
    source: { url: base, ...(certificateAuthority ? { certificateAuthority } : {}) },
    token: async () => TOKEN,
  });

describe('an Argo CD server whose certificate a private CA signed', () => {
  it('is refused without its CA, with the setting that trusts it in the reason', async () => {
    authorizations = [];
    const failure = await client()
      .listApplications()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).failure).toBe('unreachable');
    expect((failure as Error).message).toMatch(/certificate/);
    expect((failure as Error).message).toContain('clusters[].argocd.certificateAuthority');
    expect((failure as Error).message).not.toContain(TOKEN);
    // The token never reached a server that could not prove who it is.
    expect(authorizations).toEqual([]);
  });

  it('is read with its CA (base64 PEM), the token sent, a redirect still not followed', async () => {
    authorizations = [];
    const trusting = client(certificate.cert.toString('base64'));
    expect(await trusting.listApplications()).toEqual({ items: [APPLICATION] });
    expect(authorizations).toEqual([`Bearer ${TOKEN}`]);
    const redirect = await trusting.getApplication('moved').catch((error: unknown) => error);
    expect(redirect).toBeInstanceOf(ClusterSourceError);
    expect((redirect as ClusterSourceError).failure).toBe('invalid-response');
    expect((redirect as Error).message).toContain('login.example.com');
  });

  it('gives up on a trusted server that never answers, as on any other', async () => {
    const silent = createServer({ cert: certificate.cert, key: certificate.key }, () => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const failure = await createArgoCdClient({
        source: { url, certificateAuthority: certificate.cert.toString('base64') },
        token: async () => TOKEN,
        timeoutMs: 500,
      })
        .listApplications()
        .catch((error: unknown) => error);
      expect((failure as ClusterSourceError).failure).toBe('unreachable');
      expect((failure as Error).message).toContain('no answer from');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("gives the cause without the generic network advice in cluster-diff's line", async () => {
    const failure = (await client()
      .listApplications()
      .catch((error: unknown) => error)) as Error;
    const cluster = argoCdCluster('prod', base);
    const line = scanFailureLine(
      [
        {
          ...driftDraft({ workspace: 'prod' }),
          kind: 'scan-failed',
          ruleId: 'scan.cluster-unreachable',
          evidence: { reason: failure.message },
        },
      ],
      cluster,
    );
    expect(line).toContain('clusters[].argocd.certificateAuthority');
    expect(line).toContain('NODE_EXTRA_CA_CERTS');
    expect(line).not.toContain('that Argo CD is up');
  });

  it('trusts that CA for that server only: another server of the same CA name is still checked', async () => {
    const other = selfSignedCertificate(dir, 'other');
    const failure = await client(other.cert.toString('base64'))
      .listApplications()
      .catch((error: unknown) => error);
    expect((failure as ClusterSourceError).failure).toBe('unreachable');
    expect((failure as Error).message).toContain('certificateAuthority did not sign');
  });
});
