import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { PROXY_TUNNEL_ERROR } from '../core/backend/failure-cause.js';

/**
 * HTTPS through the proxy the environment names, as Terraform and the aws CLI take it: HTTPS_PROXY
 * (or https_proxy) and NO_PROXY (or no_proxy). The AWS SDK v3 and Node 20's fetch ignore both, so a
 * machine that reaches AWS only through a proxy ran Terraform but not driftwatch's own requests.
 * Requests to https:// endpoints go through a CONNECT tunnel (TLS end to end: the proxy sees only the
 * host and port); plain http:// endpoints (a local moto or MinIO) and loopback addresses never use the
 * proxy, as in Go's net/http.
 */
export interface HttpsProxy {
  /** Where the proxy listens (`http://host:port`). */
  url: URL;
  /** How messages name it: scheme, host and port, never its credentials. */
  label: string;
  /** Whether a connection to this host and port goes direct (NO_PROXY, loopback). */
  bypasses(host: string, port: number): boolean;
}

/** A proxy setting that cannot be used: the message says which variable and why, never its password. */
export class ProxyConfigurationError extends Error {
  override readonly name = 'ProxyConfigurationError';
}

/** The proxy for https:// requests, or undefined when the environment sets none. */
export function httpsProxyFromEnvironment(env: NodeJS.ProcessEnv = process.env): HttpsProxy | undefined {
  const variable = env.HTTPS_PROXY ? 'HTTPS_PROXY' : env.https_proxy ? 'https_proxy' : undefined;
  const value = variable && env[variable]?.trim();
  if (!variable || !value) return undefined;
  let url: URL;
  try {
    // `proxy.internal:3128`, as curl and Go take it, is an http proxy.
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    throw new ProxyConfigurationError(
      `${variable} is not a proxy address: give it as http://host:port (or unset it)`,
    );
  }
  const label = `${url.protocol}//${url.host}`;
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new ProxyConfigurationError(
      `${variable} (${label}) has a user or password that is not valid percent-encoding: encode it (%40 for @, %3A for :)`,
    );
  }
  if (url.protocol !== 'http:')
    throw new ProxyConfigurationError(
      `${variable} is ${label}: driftwatch talks to a proxy over http:// (the tunnel through it to AWS is TLS), give http://host:port`,
    );
  const noProxy = env.NO_PROXY ?? env.no_proxy ?? '';
  return { url, label, bypasses: noProxyMatcher(noProxy) };
}

/**
 * NO_PROXY as Go's net/http reads it: `*` for every host; a host name matches itself and its
 * subdomains (`example.com`), a leading dot only the subdomains (`.example.com`, `*.example.com`); an
 * IP address or a CIDR block matches addresses; `host:port` only that port. Loopback is always direct.
 */
export function noProxyMatcher(noProxy: string): (host: string, port: number) => boolean {
  const entries = noProxy
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (entries.includes('*')) return () => true;
  const addresses = new BlockList();
  const names: { suffix: string; exact: boolean; port?: number }[] = [];
  for (const entry of entries) {
    const cidr = entry.match(/^([0-9a-f.:]+)\/(\d{1,3})$/);
    if (cidr && isIP(cidr[1]!)) {
      addresses.addSubnet(cidr[1]!, Number(cidr[2]), isIP(cidr[1]!) === 6 ? 'ipv6' : 'ipv4');
      continue;
    }
    const bare = entry.replace(/^\[(.*)\]$/, '$1');
    if (isIP(bare)) {
      addresses.addAddress(bare, isIP(bare) === 6 ? 'ipv6' : 'ipv4');
      continue;
    }
    const withPort = entry.match(/^(.*):(\d+)$/);
    const name = (withPort ? withPort[1]! : entry).replace(/^\*?\./, '.');
    names.push({
      suffix: name.startsWith('.') ? name : `.${name}`,
      exact: !name.startsWith('.'),
      ...(withPort ? { port: Number(withPort[2]) } : {}),
    });
  }
  return (rawHost, port) => {
    const host = rawHost
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '');
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    const family = isIP(host);
    if (family !== 0) {
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (LOOPBACK.check(host, type)) return true;
      return addresses.check(host, type);
    }
    return names.some(
      (entry) =>
        (entry.port === undefined || entry.port === port) &&
        ((entry.exact && host === entry.suffix.slice(1)) || host.endsWith(entry.suffix)),
    );
  };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** How long the proxy may take to open a tunnel (the SDK's connect timeout does not see it). */
const TUNNEL_TIMEOUT_MS = 10_000;

/**
 * An https.Agent whose connections go through the proxy's CONNECT tunnel, or direct for the hosts
 * it bypasses. `options` are the agent's usual ones (`ca` to trust a private CA, keep-alive).
 */
export function createTunnelingAgent(
  proxy: HttpsProxy,
  options: https.AgentOptions = {},
  tunnelTimeoutMs = TUNNEL_TIMEOUT_MS,
): https.Agent {
  const authorization =
    proxy.url.username === ''
      ? undefined
      : `Basic ${Buffer.from(`${decodeURIComponent(proxy.url.username)}:${decodeURIComponent(proxy.url.password)}`).toString('base64')}`;

  class TunnelingAgent extends https.Agent {
    override createConnection(
      options: https.RequestOptions & tls.ConnectionOptions,
      callback: (error: Error | null, socket?: Duplex) => void,
    ): Duplex | undefined {
      const host = options.host ?? 'localhost';
      const port = Number(options.port ?? 443);
      if (proxy.bypasses(host, port)) return tls.connect(options);
      const target = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
      const connect = http.request({
        host: proxy.url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: Number(proxy.url.port || 80),
        method: 'CONNECT',
        path: target,
        headers: { host: target, ...(authorization ? { 'proxy-authorization': authorization } : {}) },
        agent: false,
        timeout: tunnelTimeoutMs,
      });
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        callback(error);
      };
      connect.once('connect', (response, socket) => {
        if (response.statusCode !== 200) {
          socket.destroy();
          return fail(
            tunnelError(
              // The reason phrase is the proxy's text: a short one is shown (printable ASCII only).
              `the proxy ${proxy.label} (HTTPS_PROXY) refused the tunnel to ${target}: ${response.statusCode} ${(response.statusMessage ?? '').replace(/[^ -~]/g, '').slice(0, 80)}`.trim(),
              'EPROXYREFUSED',
            ),
          );
        }
        settled = true;
        // The tunnel is the connection now: the wait for the proxy's answer is over.
        connect.removeAllListeners('timeout');
        socket.setTimeout(0);
        const servername = isIP(host) === 0 ? (options.servername ?? host) : undefined;
        callback(null, tls.connect({ ...options, socket, ...(servername ? { servername } : {}) }));
      });
      connect.once('timeout', () =>
        connect.destroy(
          tunnelError(
            `no answer from the proxy ${proxy.label} (HTTPS_PROXY) within ${tunnelTimeoutMs / 1000}s`,
            'ETIMEDOUT',
          ),
        ),
      );
      connect.once('error', (error: NodeJS.ErrnoException) =>
        fail(
          error.name === PROXY_TUNNEL_ERROR
            ? error
            : tunnelError(
                `cannot reach the proxy ${proxy.label} (HTTPS_PROXY)${error.code ? ` (${error.code})` : ''}: ${error.message}`,
                error.code ?? 'EPROXY',
              ),
        ),
      );
      connect.end();
      return undefined;
    }
  }
  return new TunnelingAgent({ keepAlive: true, ...options });
}

/**
 * A network error of the tunnel, shaped as Node's (`code`, `syscall`) and named PROXY_TUNNEL_ERROR,
 * so that error lines say the proxy failed, not the endpoint behind it (core/backend/failure-cause.ts).
 */
function tunnelError(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { name: PROXY_TUNNEL_ERROR, code, syscall: 'connect' });
}

let sharedAgent: { env: string | undefined; agent: https.Agent | undefined } | undefined;

/**
 * The agent every client of this process uses for https:// when a proxy is set (one, so connections
 * are reused), or undefined without one. Throws ProxyConfigurationError for a setting it cannot use.
 */
export function proxiedHttpsAgent(env: NodeJS.ProcessEnv = process.env): https.Agent | undefined {
  const key = `${env.HTTPS_PROXY ?? env.https_proxy ?? ''}|${env.NO_PROXY ?? env.no_proxy ?? ''}`;
  if (sharedAgent?.env === key) return sharedAgent.agent;
  const proxy = httpsProxyFromEnvironment(env);
  sharedAgent = { env: key, agent: proxy ? createTunnelingAgent(proxy, { maxSockets: 50 }) : undefined };
  return sharedAgent.agent;
}
