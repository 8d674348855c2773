import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { type AddressInfo, connect, createServer as createNetServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createArgoCdClient } from '../../../functions/adapters/argocd-client.js';
import { describeAwsError } from '../../../functions/adapters/aws-error.js';
import { withHttpTimeouts } from '../../../functions/adapters/aws-http-timeouts.js';
import {
  createTunnelingAgent,
  httpsProxyFromEnvironment,
  noProxyMatcher,
  ProxyConfigurationError,
} from '../../../functions/adapters/https-proxy.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import { selfSignedCertificate, type TestCertificate } from '../../helpers/provider-mirror.js';

/**
 * A machine that reaches AWS only through a proxy (HTTPS_PROXY) ran Terraform and the aws CLI, but
 * not driftwatch's own requests: the AWS SDK v3 and Node 20's fetch ignore the variable. Requests to
 * https:// endpoints now go through the proxy's CONNECT tunnel (TLS end to end), NO_PROXY and loopback
 * go direct. The proxy here is a real CONNECT proxy that sends every tunnel to this machine whatever
 * the host name: a name no DNS knows (`*.proxied.test`) is reached only through it.
 */
const TOKEN = 'CANARY-proxy-token-9876';
const PROXY_PASSWORD = 'CANARY-proxy-pw';

interface TestProxy {
  url: string;
  /** The request heads the proxy received (`CONNECT host:port HTTP/1.1` and its headers). */
  heads: string[];
  server: Server;
}

let dir: string;
let certificate: TestCertificate;
let argocd: HttpsServer;
let argocdPort = 0;
let tunnelling: TestProxy;
let refusing: TestProxy;
let silent: TestProxy;

async function startProxy(answer: 'tunnel' | 'refuse' | 'silent'): Promise<TestProxy> {
  const heads: string[] = [];
  const server = createNetServer((client) => {
    let head = '';
    client.on('error', () => undefined);
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      heads.push(head.slice(0, end));
      if (answer === 'silent') return;
      if (answer === 'refuse') {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
        return;
      }
      const target = head.split(' ')[1]!;
      const upstream = connect(Number(target.slice(target.lastIndexOf(':') + 1)), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        client.pipe(upstream);
        upstream.pipe(client);
      });
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, heads, server };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftwatch-https-proxy-'));
  certificate = selfSignedCertificate(dir, 'proxied', 'argocd.proxied.test');
  argocd = createHttpsServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url?.startsWith('/bucket/state')) return response.end('{"version":4}');
    response.end(JSON.stringify({ items: [{ metadata: { name: 'shop', namespace: 'argocd' } }] }));
  });
  await new Promise<void>((resolve) => argocd.listen(0, '127.0.0.1', resolve));
  argocdPort = (argocd.address() as AddressInfo).port;
  [tunnelling, refusing, silent] = await Promise.all([
    startProxy('tunnel'),
    startProxy('refuse'),
    startProxy('silent'),
  ]);
});

afterEach(() => {
  vi.unstubAllEnvs();
  for (const proxy of [tunnelling, refusing, silent]) proxy.heads.length = 0;
});

afterAll(async () => {
  argocd.closeAllConnections();
  await new Promise((resolve) => argocd.close(resolve));
  for (const proxy of [tunnelling, refusing, silent]) proxy.server.close();
  rmSync(dir, { recursive: true, force: true });
});

const withCredentials = (proxy: TestProxy) => proxy.url.replace('http://', `http://ci:${PROXY_PASSWORD}@`);

function argoClient(host: string, timeoutMs?: number) {
  return createArgoCdClient({
    source: {
      url: `https://${host}:${argocdPort}`,
      certificateAuthority: certificate.cert.toString('base64'),
    },
    token: async () => TOKEN,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

describe('NO_PROXY', () => {
  it.each([
    ['', 'api.example.com', 443, false],
    ['*', 'api.example.com', 443, true],
    ['example.com', 'example.com', 443, true],
    ['example.com', 'api.example.com', 443, true],
    ['example.com', 'badexample.com', 443, false],
    ['.example.com', 'api.example.com', 443, true],
    ['.example.com', 'example.com', 443, false],
    ['*.example.com', 'api.example.com', 443, true],
    ['EXAMPLE.com', 'Api.Example.COM', 443, true],
    ['example.com:8443', 'api.example.com', 443, false],
    ['example.com:8443', 'api.example.com', 8443, true],
    ['s3.amazonaws.com, 10.0.0.0/8', '10.1.2.3', 443, true],
    ['s3.amazonaws.com, 10.0.0.0/8', '11.1.2.3', 443, false],
    ['169.254.169.254', '169.254.169.254', 443, true],
    ['[fd00::1]', 'fd00::1', 443, true],
    // Loopback never goes through a proxy, whatever NO_PROXY says.
    ['', '127.0.0.1', 443, true],
    ['', '::1', 443, true],
    ['', 'localhost', 443, true],
  ])('NO_PROXY=%j: %s:%i direct is %s', (noProxy, host, port, direct) => {
    expect(noProxyMatcher(noProxy)(host, port)).toBe(direct);
  });
});

describe('HTTPS_PROXY', () => {
  it('is read as curl and Go read it: either case, a scheme-less address is http', () => {
    expect(httpsProxyFromEnvironment({})).toBeUndefined();
    expect(httpsProxyFromEnvironment({ https_proxy: 'proxy.internal:3128' })?.label).toBe(
      'http://proxy.internal:3128',
    );
    const proxy = httpsProxyFromEnvironment({
      HTTPS_PROXY: `http://ci:${PROXY_PASSWORD}@proxy.internal:3128`,
    });
    expect(proxy?.label).toBe('http://proxy.internal:3128');
  });

  it('refuses what it cannot use, naming the variable and never the password', () => {
    for (const value of [
      `socks5://ci:${PROXY_PASSWORD}@proxy:1080`,
      `https://ci:${PROXY_PASSWORD}@proxy:443`,
      `http://ci:${PROXY_PASSWORD}%ZZ@proxy:3128`,
    ]) {
      const error = (() => {
        try {
          return httpsProxyFromEnvironment({ HTTPS_PROXY: value });
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(ProxyConfigurationError);
      expect((error as Error).message).toMatch(
        /^HTTPS_PROXY (is .*give http:\/\/host:port|\(http:\/\/proxy:3128\) has a user or password that is not valid percent-encoding)/,
      );
      expect((error as Error).message).not.toContain(PROXY_PASSWORD);
    }
  });

  it("carries Argo CD's requests through the tunnel, with the proxy's credentials, never the token", async () => {
    vi.stubEnv('HTTPS_PROXY', withCredentials(tunnelling));
    vi.stubEnv('NO_PROXY', 'internal.example.com');
    const answer = await argoClient('argocd.proxied.test').listApplications();
    expect(answer).toEqual({ items: [{ metadata: { name: 'shop', namespace: 'argocd' } }] });
    expect(tunnelling.heads).toHaveLength(1);
    expect(tunnelling.heads[0]).toMatch(
      new RegExp(`^CONNECT argocd\\.proxied\\.test:${argocdPort} HTTP/1\\.1\\r\\n`),
    );
    expect(tunnelling.heads[0]!.toLowerCase()).toContain(
      `proxy-authorization: basic ${Buffer.from(`ci:${PROXY_PASSWORD}`).toString('base64')}`.toLowerCase(),
    );
    expect(tunnelling.heads.join('\n')).not.toContain(TOKEN);
  });

  it('goes direct to loopback and to NO_PROXY hosts', async () => {
    vi.stubEnv('HTTPS_PROXY', tunnelling.url);
    // Direct to 127.0.0.1: the server answers (its certificate names another host).
    await expect(argoClient('127.0.0.1').listApplications()).rejects.toThrow(/certificate|altname|IP/i);
    // Direct to a NO_PROXY host: a name only the proxy could reach is not found.
    vi.stubEnv('NO_PROXY', '.proxied.test');
    const direct = await argoClient('argocd.proxied.test', 2000)
      .listApplications()
      .catch((error: unknown) => error);
    expect((direct as ClusterSourceError).failure).toBe('unreachable');
    expect(tunnelling.heads).toEqual([]);
  });

  it("names a proxy's refusal, and a proxy that does not answer is given up on", async () => {
    vi.stubEnv('HTTPS_PROXY', withCredentials(refusing));
    const refused = await argoClient('argocd.proxied.test')
      .listApplications()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClusterSourceError);
    expect((refused as Error).message).toContain(
      `the proxy ${refusing.url} (HTTPS_PROXY) refused the tunnel to argocd.proxied.test:${argocdPort}: 407 Proxy Authentication Required`,
    );
    expect((refused as Error).message).not.toContain(PROXY_PASSWORD);
    // The CLI's AWS error line says the proxy failed, not the endpoint behind it.
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: `https://s3.proxied.test:${argocdPort}`,
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: {
        httpsAgent: createTunnelingAgent(
          httpsProxyFromEnvironment({ HTTPS_PROXY: withCredentials(refusing) })!,
        ),
      },
    });
    const sdkError = await s3
      .send(new GetObjectCommand({ Bucket: 'b', Key: 'k' }))
      .catch((error: unknown) => error);
    const line = describeAwsError(sdkError);
    expect(line).toMatch(/^the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) refused the tunnel .*407/);
    expect(line).toContain('Check HTTPS_PROXY and NO_PROXY');
    expect(line).not.toContain(PROXY_PASSWORD);
    vi.stubEnv('HTTPS_PROXY', silent.url);
    const late = await argoClient('argocd.proxied.test', 500)
      .listApplications()
      .catch((error: unknown) => error);
    expect((late as ClusterSourceError).failure).toBe('unreachable');
    expect((late as Error).message).toContain('no answer from');
  });

  it('carries the AWS SDK through the tunnel (the agent every client gets), verifying the name it asked for', async () => {
    const proxy = httpsProxyFromEnvironment({ HTTPS_PROXY: tunnelling.url })!;
    const s3 = (host: string) =>
      new S3Client({
        region: 'us-east-1',
        endpoint: `https://${host}:${argocdPort}`,
        forcePathStyle: true,
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
        requestHandler: { httpsAgent: createTunnelingAgent(proxy, { ca: certificate.cert }) },
      });
    const object = await s3('argocd.proxied.test').send(
      new GetObjectCommand({ Bucket: 'bucket', Key: 'state' }),
    );
    expect(await object.Body?.transformToString()).toBe('{"version":4}');
    expect(tunnelling.heads[0]).toMatch(new RegExp(`^CONNECT argocd\\.proxied\\.test:${argocdPort} `));
    // The certificate names argocd.proxied.test: through the tunnel it is still checked against the host asked for.
    await expect(
      s3('s3.proxied.test').send(new GetObjectCommand({ Bucket: 'bucket', Key: 'state' })),
    ).rejects.toThrow(/altname|does not match|certificate/i);
    // Every client of the process gets the agent when HTTPS_PROXY is set, and none without it.
    expect(withHttpTimeouts().requestHandler.httpsAgent).toBeUndefined();
    vi.stubEnv('HTTPS_PROXY', tunnelling.url);
    expect(withHttpTimeouts().requestHandler.httpsAgent).toBeDefined();
  });
});
