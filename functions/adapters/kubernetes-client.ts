import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../core/gitops/kube-object.js';
import { ClusterSourceError, type LiveObjectRequest, type LiveObjectResult } from '../core/gitops/ports.js';
import type { EksAccess } from '../core/registry/model.js';
import { errorBodyMessage, failureOfStatus } from './http-failure.js';

/**
 * Reads live objects from the Kubernetes API, read-only (GET only). @kubernetes/client-node's
 * KubeConfig supplies what it does well (kubeconfig contexts, client certificates, exec plugins,
 * CAs); the requests themselves are plain GETs so the objects arrive exactly as the server sent
 * them (the typed client would drop fields its models do not know).
 */

export interface KubernetesReaderOptions {
  /** A fresh config per request, so short-lived tokens (EKS) are renewed between reads. */
  config: () => Promise<KubeConfig>;
  timeoutMs?: number;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function createKubernetesReader(options: KubernetesReaderOptions) {
  const discovery = new Map<string, Promise<ApiResource[] | undefined>>();

  async function get(path: string): Promise<{ status: number; body: string }> {
    const config = await options.config();
    const server = config.getCurrentCluster()?.server;
    if (!server) throw new ClusterSourceError('configuration', 'the kubeconfig has no current cluster');
    const requestOptions: https.RequestOptions = {};
    try {
      await config.applyToHTTPSOptions(requestOptions);
    } catch (error) {
      throw new ClusterSourceError('configuration', `kubeconfig: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const url = new URL(`${server.replace(/\/+$/, '')}${path}`);
    const transport = url.protocol === 'http:' ? http : https;
    return new Promise((resolve, reject) => {
      const request = transport.request(
        url,
        {
          ...requestOptions,
          method: 'GET',
          headers: { ...requestOptions.headers, Accept: 'application/json' },
          timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer from ${url.host} in time`)));
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          new ClusterSourceError(
            'unreachable',
            `cannot reach ${url.host}${error.code ? ` (${error.code})` : ''}: ${error.message}`,
            { cause: error },
          ),
        ),
      );
      request.end();
    });
  }

  async function getJson(path: string): Promise<unknown | undefined> {
    const { status, body } = await get(path);
    if (status === 404) return undefined;
    if (status < 200 || status > 299) {
      const message = errorBodyMessage(body, ['message']);
      throw new ClusterSourceError(failureOfStatus(status), `GET ${path}: ${status} ${message}`, { status });
    }
    try {
      return JSON.parse(body);
    } catch (error) {
      throw new ClusterSourceError('invalid-response', `GET ${path}: the response is not JSON`, {
        cause: error,
      });
    }
  }

  /** The resources an API group version serves (`GET /apis/apps/v1`), cached for the reader's life. */
  function resourcesOf(apiVersion: string): Promise<ApiResource[] | undefined> {
    let cached = discovery.get(apiVersion);
    if (cached === undefined) {
      cached = getJson(apiRoot(apiVersion)).then((list) => {
        const resources = (list as { resources?: unknown } | undefined)?.resources;
        return Array.isArray(resources) ? (resources as ApiResource[]) : undefined;
      });
      // A failed discovery is retried by the next read instead of failing every read after it.
      cached.catch(() => discovery.delete(apiVersion));
      discovery.set(apiVersion, cached);
    }
    return cached;
  }

  return {
    async readLive(request: LiveObjectRequest): Promise<LiveObjectResult> {
      const resources = await resourcesOf(request.apiVersion);
      const resource = resources?.find(
        (candidate) => candidate.kind === request.kind && !candidate.name.includes('/'),
      );
      if (!resource) return { found: false, reason: 'kind-not-served' };
      let scope = '';
      if (resource.namespaced) {
        const namespace = request.namespace ?? (await defaultNamespace(options.config));
        scope = `/namespaces/${encodeURIComponent(namespace)}`;
      }
      const object = await getJson(
        `${apiRoot(request.apiVersion)}${scope}/${resource.name}/${encodeURIComponent(request.name)}`,
      );
      return object === undefined
        ? { found: false, reason: 'not-found' }
        : { found: true, object: object as KubeObject };
    },
  };
}

function apiRoot(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

async function defaultNamespace(config: () => Promise<KubeConfig>): Promise<string> {
  const kubeConfig = await config();
  return kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
}

/** A kubeconfig context (KUBECONFIG or ~/.kube/config), as kubectl would use it. */
export function kubeConfigForContext(context: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromDefault();
  if (!config.getContextObject(context)) {
    const known = config.getContexts().map((entry) => entry.name);
    throw new ClusterSourceError(
      'configuration',
      `no context '${context}' in the kubeconfig${known.length > 0 ? ` (contexts: ${known.join(', ')})` : ''}`,
    );
  }
  config.setCurrentContext(context);
  return config;
}

/** An EKS cluster reached with a bearer token; plain http is accepted only for loopback test servers. */
export function kubeConfigForEks(
  eks: Pick<EksAccess, 'cluster' | 'server' | 'certificateAuthority'>,
  token: string,
) {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: eks.cluster,
        server: eks.server,
        ...(eks.certificateAuthority ? { caData: eks.certificateAuthority } : {}),
        skipTLSVerify: eks.server.startsWith('http:'),
      },
    ],
    users: [{ name: 'driftwatch', token }],
    contexts: [{ name: eks.cluster, cluster: eks.cluster, user: 'driftwatch' }],
    currentContext: eks.cluster,
  });
  return config;
}
