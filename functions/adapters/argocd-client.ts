import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { type ArgoCdApi, ClusterSourceError } from '../core/gitops/ports.js';
import { redactedExcerpt } from '../core/redaction/secrets.js';
import type { ArgoCdSource } from '../core/registry/model.js';
import {
  clusterTimeoutMs,
  errorBodyMessage,
  failureOfStatus,
  formatTimeout,
  isRedirect,
  isUntrustedCertificate,
  redirectReason,
  repeatWhenAsked,
  requestDeadline,
  stillRefused,
} from './http-failure.js';
import { createTunnelingAgent, type HttpsProxy, httpsProxyFromEnvironment } from './https-proxy.js';
import { pathSegment } from './url-path.js';

/**
 * A read-only client of Argo CD's REST API (`/api/v1/applications`...). Only GETs: driftwatch
 * never asks Argo CD to refresh, sync or prune. The token goes in the Authorization header and
 * nowhere else: errors name the path, the status and Argo CD's message, never the token.
 */
export interface ArgoCdClientOptions {
  source: Pick<ArgoCdSource, 'url' | 'project' | 'selector' | 'appNamespace' | 'certificateAuthority'>;
  /** Resolved once per client (Secrets Manager or an environment variable). */
  token: () => Promise<string>;
  /** The whole request, body included (default: DRIFTWATCH_CLUSTER_TIMEOUT, else 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createArgoCdClient(options: ArgoCdClientOptions): ArgoCdApi {
  const base = options.source.url.replace(/\/+$/, '');
  // A CA means nothing to plain http (allowed on loopback only).
  const certificateAuthority = base.startsWith('https:') ? options.source.certificateAuthority : undefined;
  const doFetch = options.fetch ?? fetchFor(base, certificateAuthority);
  let token: Promise<string> | undefined;
  // Read from the environment at the first request (a malformed one fails each request alike).
  let timeout: number | undefined;

  async function get(path: string, query: Array<[string, string | undefined]> = []): Promise<unknown> {
    const params = new URLSearchParams();
    for (const [name, value] of query) if (value !== undefined) params.append(name, value);
    const url = `${base}${path}${params.size > 0 ? `?${params}` : ''}`;
    token ??= options.token();
    let bearer: string;
    try {
      bearer = await token;
    } catch (error) {
      token = undefined;
      throw error;
    }
    checkSendable(bearer);
    timeout ??= options.timeoutMs ?? clusterTimeoutMs();
    const timeoutMs = timeout;
    // A request the server asks to repeat later (rate limited) is repeated, as client-go does.
    const { response, body } = await repeatWhenAsked(
      () => attempt(url, path, bearer, timeoutMs),
      (answer) => ({
        status: answer.response.status,
        retryAfter: answer.response.headers.get('retry-after'),
      }),
    );
    if (isRedirect(response.status))
      throw new ClusterSourceError(
        'invalid-response',
        `GET ${path}: ${redirectReason(response.status, response.headers.get('location'))}`,
        { status: response.status },
      );
    if (!response.ok) {
      const failure = failureOfStatus(response.status);
      // The token is redacted with the rest before the message is cut (a cut token is not found).
      const message = errorBodyMessage(body, ARGO_MESSAGE_KEYS, [bearer]);
      throw new ClusterSourceError(
        failure,
        `GET ${path}: ${response.status} ${response.statusText || failure}${message ? `: ${message}` : ''}${stillRefused(response.status)}`,
        { status: response.status },
      );
    }
    try {
      return JSON.parse(body);
    } catch (error) {
      const preview = redactedExcerpt(body.replace(/\s+/g, ' '), 80, [bearer]);
      throw new ClusterSourceError(
        'invalid-response',
        `GET ${path}: the response is not JSON (starts with '${preview}')`,
        {
          cause: error,
        },
      );
    }
  }

  /** One request, its whole body read within one deadline (requestDeadline says why not fetch's own). */
  async function attempt(
    url: string,
    path: string,
    bearer: string,
    timeoutMs: number,
  ): Promise<{ response: Response; body: string }> {
    const deadline = requestDeadline(timeoutMs);
    let response: Response;
    let body: string;
    try {
      const answer = doFetch(url, {
        headers: { Authorization: `Bearer ${bearer}`, Accept: 'application/json' },
        signal: deadline.signal,
        // A redirect is reported, never followed: the token would go with it to another address.
        redirect: 'manual',
      });
      try {
        response = await deadline.within(answer);
      } catch (error) {
        // An answer that comes after all is not read: its connection is closed.
        if (deadline.expired())
          void answer.then(
            (late) => late.body?.cancel().catch(() => undefined),
            () => undefined,
          );
        const reason = deadline.expired()
          ? `no answer from ${base} within ${formatTimeout(timeoutMs)}`
          : networkReason(error, base, certificateAuthority !== undefined);
        throw new ClusterSourceError('unreachable', `GET ${path}: ${reason}`, {
          cause: error,
          timedOut: deadline.expired(),
        });
      }
      const reader = response.body?.getReader();
      try {
        body = reader ? await deadline.within(readText(reader)) : '';
      } catch (error) {
        // Cancelling the body closes the connection (a trickling server would hold it open).
        if (deadline.expired()) reader?.cancel().catch(() => undefined);
        const reason = deadline.expired()
          ? `the response from ${base} did not complete within ${formatTimeout(timeoutMs)} (headers came, the body did not)`
          : `the connection to ${base} broke while reading the response: ${(error as Error).message}`;
        throw new ClusterSourceError('unreachable', `GET ${path}: ${reason}`, {
          cause: error,
          timedOut: deadline.expired(),
        });
      }
    } finally {
      deadline.clear();
    }
    return { response, body };
  }

  const namespaceQuery = (appNamespace?: string): Array<[string, string | undefined]> => [
    ['appNamespace', appNamespace ?? options.source.appNamespace],
  ];

  return {
    url: base,
    listApplications: () =>
      get('/api/v1/applications', [
        ['projects', options.source.project],
        ['selector', options.source.selector],
        ['appNamespace', options.source.appNamespace],
      ]),
    // async: a name refused by pathSegment is a rejection, like every other failure of a read.
    getApplication: async (name, appNamespace) =>
      get(`/api/v1/applications/${pathSegment(name, 'application name')}`, namespaceQuery(appNamespace)),
    managedResources: async (name, appNamespace) =>
      get(
        `/api/v1/applications/${pathSegment(name, 'application name')}/managed-resources`,
        namespaceQuery(appNamespace),
      ),
  };
}

/**
 * A token that an HTTP header cannot carry (a line break inside it: a token wrapped when it was
 * pasted, a JSON secret's value ending in a newline) made fetch throw "Headers.append: "Bearer …" is
 * an invalid header value", quoting the token into the finding (redaction took the part before the
 * line break only), under scan.cluster-unreachable. It is a configuration failure naming no value.
 */
function checkSendable(bearer: string): void {
  try {
    http.validateHeaderValue('Authorization', `Bearer ${bearer}`);
  } catch {
    throw new ClusterSourceError(
      'configuration',
      'the Argo CD API token holds a line break or another control character, which an HTTP header cannot carry: put the token on one line where argocd.token keeps it (the environment variable or the Secrets Manager secret)',
    );
  }
}

/** A response body as text (UTF-8, as `Response.text()` reads it), read through a reader the caller can cancel. */
async function readText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

/** Argo CD errors are `{"error": "...", "code": 16, "message": "..."}`. */
const ARGO_MESSAGE_KEYS = ['message', 'error'];

/** `withCertificateAuthority`: the registry gave the server's CA (then it is the wrong one). */
export function networkReason(error: unknown, server: string, withCertificateAuthority = false): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return `no answer from ${server} in time`;
  const code = cause?.code ?? (error as { code?: string }).code;
  // The fetch standard blocks ports of other protocols (9, 22, 25, 6000, 10080…) as browsers do:
  // nothing was tried, and "bad port" alone read as a fault of the server or the network.
  if (cause?.message === 'bad port')
    return `cannot reach ${server}: Node's fetch refuses port ${portOf(server)} (the fetch standard blocks the ports of other protocols, as browsers do): give the port Argo CD serves on (443 by default)`;
  const reason = `cannot reach ${server}${code ? ` (${code})` : ''}: ${cause?.message ?? (error as Error).message}`;
  if (!isUntrustedCertificate(code)) return reason;
  return `${reason}${withCertificateAuthority ? WRONG_CA_FIX : UNTRUSTED_FIX}`;
}

function portOf(server: string): string {
  try {
    return new URL(server).port || 'this';
  } catch {
    return 'this';
  }
}

const UNTRUSTED_FIX =
  "; the server's certificate is not signed by a CA the scanner trusts (Argo CD's default install serves a self-signed one): set clusters[].argocd.certificateAuthority to the base64 of the CA's PEM (`base64 -w0 ca.pem`), or, for `cluster-diff --argocd` without a registry, NODE_EXTRA_CA_CERTS=ca.pem";
const WRONG_CA_FIX =
  "; clusters[].argocd.certificateAuthority did not sign the server's certificate: give the CA that did (`openssl s_client -connect <host>:443 -showcerts` lists the chain)";

/**
 * Node's fetch, or requests through `https` when fetch cannot make them: to a server whose
 * certificate a private CA signed (fetch takes no CA of its own, only NODE_EXTRA_CA_CERTS for every
 * connection of the process), or through the proxy of HTTPS_PROXY (which fetch ignores).
 */
function fetchFor(base: string, certificateAuthority: string | undefined): typeof fetch {
  const ca = certificateAuthority ? { ca: Buffer.from(certificateAuthority, 'base64').toString('utf8') } : {};
  let proxy: HttpsProxy | undefined;
  try {
    proxy = base.startsWith('https:') ? httpsProxyFromEnvironment() : undefined;
  } catch (error) {
    // Every read of this server fails alike, as the cluster's one scan-failed finding says.
    const failure = new ClusterSourceError('configuration', (error as Error).message);
    return () => Promise.reject(failure);
  }
  const { hostname, port } = new URL(base);
  if (proxy && !proxy.bypasses(hostname, Number(port || 443)))
    return fetchThrough(createTunnelingAgent(proxy, ca));
  return certificateAuthority ? fetchThrough(new https.Agent({ ...ca, keepAlive: true })) : fetch;
}

/**
 * fetch over `https` with this agent: the answer is a Response as fetch gives it. Redirects are never
 * followed (as `redirect: 'manual'`), and the signal aborts the request.
 */
function fetchThrough(agent: https.Agent): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const request = https.request(
        String(input),
        {
          agent,
          method: init?.method ?? 'GET',
          headers: init?.headers as Record<string, string> | undefined,
          ...(init?.signal ? { signal: init.signal } : {}),
        },
        (answer) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(answer.headers))
            for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
              headers.append(name, item);
          const status = answer.statusCode ?? 502;
          // A Response of 204, 205 or 304 may have no body.
          const empty = status === 204 || status === 205 || status === 304;
          if (empty) answer.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), {
              status,
              statusText: answer.statusMessage ?? '',
              headers,
            }),
          );
        },
      );
      request.on('error', reject);
      request.end();
    })) as typeof fetch;
}
