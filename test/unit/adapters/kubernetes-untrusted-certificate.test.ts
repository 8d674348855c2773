import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanFailureLine } from '../../../cli/commands/cluster-diff-action.js';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import type { ClusterConfig } from '../../../functions/core/registry/model.js';
import { driftDraft } from '../../helpers/findings.js';
import { selfSignedCertificate, type TestCertificate } from '../../helpers/provider-mirror.js';

/**
 * An EKS API server serves a certificate of the cluster's own CA, which `eks.certificateAuthority`
 * gives (it is optional in the registry). Left out, or copied from another cluster, every read
 * failed as "cannot reach … (DEPTH_ZERO_SELF_SIGNED_CERT): self-signed certificate" and cluster-diff
 * advised checking the address and the network; the reason now names the setting and where its value
 * comes from. A real TLS server with a certificate made by openssl for 127.0.0.1 stands in.
 */
const TOKEN = 'k8s-aws-v1.CANARY-untrusted-certificate-token';

let dir: string;
let certificate: TestCertificate;
let otherCa: TestCertificate;
let server: Server;
let base = '';
let requests = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftwatch-kube-ca-'));
  certificate = selfSignedCertificate(dir, 'apiserver');
  otherCa = selfSignedCertificate(dir, 'other-cluster');
  server = createServer({ cert: certificate.cert, key: certificate.key }, (_, response) => {
    requests++;
    response.writeHead(200, { 'content-type': 'application/json' });
    const resources = [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }];
    response.end(JSON.stringify({ kind: 'APIResourceList', groupVersion: 'v1', resources }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const eks = (certificateAuthority?: string) => ({
  cluster: 'shop-prod',
  region: 'eu-west-1',
  server: base,
  ...(certificateAuthority ? { certificateAuthority } : {}),
});

const read = (certificateAuthority?: string) =>
  createKubernetesReader({ config: async () => kubeConfigForEks(eks(certificateAuthority), TOKEN) })
    .readLive({ apiVersion: 'v1', kind: 'ConfigMap', name: 'flags', namespace: 'shop' })
    .catch((error: unknown) => error);

const cluster = (certificateAuthority?: string): ClusterConfig => ({
  id: 'shop-prod',
  owner: 'platform',
  environment: 'prod',
  kubernetes: { eks: eks(certificateAuthority), manifests: { kustomize: 'overlays/prod' } },
  applications: [],
  workspaces: [],
  policies: { outOfSyncAfterMs: 3_600_000 },
});

/** cluster-diff's one stderr line for this failure, as its scan-failed finding carries it. */
const line = (failure: ClusterSourceError, config: ClusterConfig) =>
  scanFailureLine(
    [
      driftDraft({
        kind: 'scan-failed',
        ruleId: 'scan.cluster-unreachable',
        detail: failure.reason,
        evidence: { reason: failure.reason },
      }),
    ],
    config,
    {},
    true,
  );

describe('an API server whose certificate the scanner does not trust', () => {
  it('an eks entry without certificateAuthority: the reason names the setting and the command that prints it', async () => {
    const failure = await read();
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).failure).toBe('unreachable');
    const reason = (failure as ClusterSourceError).reason;
    expect(reason).toContain('(DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(reason).toContain('clusters[].kubernetes.eks.certificateAuthority');
    expect(reason).toContain(
      'aws eks describe-cluster --name <cluster> --query cluster.certificateAuthority.data',
    );
    expect(reason).not.toContain(TOKEN);
    const said = line(failure as ClusterSourceError, cluster());
    expect(said).not.toContain('check the kubeconfig');
    expect(said).toContain('eks.certificateAuthority');
  });

  it("another cluster's CA: the reason says this CA did not sign the certificate", async () => {
    const failure = await read(otherCa.cert.toString('base64'));
    expect((failure as ClusterSourceError).failure).toBe('unreachable');
    expect((failure as ClusterSourceError).reason).toMatch(
      /eks\.certificateAuthority, or the kubeconfig cluster's certificate-authority-data\) did not sign the server's certificate/,
    );
  });

  it('the right CA reads the object', async () => {
    const before = requests;
    const result = await read(certificate.cert.toString('base64'));
    expect(result).toEqual({ found: true, object: expect.objectContaining({ kind: 'APIResourceList' }) });
    expect(requests).toBeGreaterThan(before);
  });
});
