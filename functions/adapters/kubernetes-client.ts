import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../core/gitops/kube-object.js';
import {
  ClusterSourceError,
  type DryRunResult,
  type ListRequest,
  type LiveObjectRequest,
  type LiveObjectResult,
} from '../core/gitops/ports.js';
import { apiVersionsOf, kubeVersionOf } from '../core/gitops/render.js';
import type { EksAccess } from '../core/registry/model.js';
import {
  clusterTimeoutMs,
  errorBodyMessage,
  failureOfStatus,
  formatTimeout,
  isRedirect,
  isUntrustedCertificate,
  redirectReason,
  repeatWhenAsked,
  stillRefused,
} from './http-failure.js';
import { pathSegment } from './url-path.js';

/**
 * Reads live objects from the Kubernetes API, read-only: GETs, and server-side apply dry-runs
 * (`PATCH ...?dryRun=All`, which the API server answers without storing anything; no other PATCH
 * is ever sent). @kubernetes/client-node's KubeConfig supplies what it does well (kubeconfig
 * contexts, client certificates, exec plugins, CAs); the requests themselves are plain HTTP so the
 * objects arrive exactly as the server sent them (the typed client would drop fields its models do
 * not know).
 */

export interface KubernetesReaderOptions {
  /** A fresh config per request, so short-lived tokens (EKS) are renewed between reads. */
  config: () => Promise<KubeConfig>;
  /** The whole request, body included (default: DRIFTWATCH_CLUSTER_TIMEOUT, else 30 s). */
  timeoutMs?: number;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** What a cluster scan reads through the Kubernetes API (cluster-ports.ts loads this module on first use). */
export type KubernetesReader = Pick<
  ReturnType<typeof createKubernetesReader>,
  'clusterCapabilities' | 'readLive' | 'dryRunApply' | 'openApiDocument' | 'listObjects'
>;

export function createKubernetesReader(options: KubernetesReaderOptions) {
  const discovery = new Map<string, Promise<ApiResource[] | undefined>>();
  // Read from the environment at the first request (a malformed one fails each request alike).
  let timeout: number | undefined;

  async function get(path: string, accept?: string): Promise<Answer> {
    return send('GET', path, undefined, accept);
  }

  /**
   * Only GET, and PATCH with dryRun=All (checked here, so no caller can send a write by mistake).
   * A request the server asks to repeat later (429 from Priority and Fairness) is repeated, as
   * client-go does; a redirect is not followed.
   */
  async function send(
    method: 'GET' | 'PATCH',
    path: string,
    payload?: { body: string; contentType: string },
    accept = 'application/json',
  ): Promise<Answer> {
    const answer = await repeatWhenAsked(
      () => sendOnce(method, path, payload, accept),
      (sent) => sent,
    );
    if (isRedirect(answer.status))
      throw new ClusterSourceError(
        'invalid-response',
        `${method} ${path.split('?')[0]}: ${redirectReason(answer.status, answer.location)}`,
        { status: answer.status },
      );
    return answer;
  }

  async function sendOnce(
    method: 'GET' | 'PATCH',
    path: string,
    payload: { body: string; contentType: string } | undefined,
    accept: string,
  ): Promise<Answer> {
    if (method === 'PATCH' && new URL(path, 'http://x').searchParams.get('dryRun') !== 'All')
      throw new Error('refusing a PATCH without dryRun=All: driftwatch never writes to a cluster');
    const config = await options.config();
    const cluster = config.getCurrentCluster();
    const server = cluster?.server;
    if (!server) throw new ClusterSourceError('configuration', 'the kubeconfig has no current cluster');
    const requestOptions: https.RequestOptions = {};
    try {
      await config.applyToHTTPSOptions(requestOptions);
    } catch (error) {
      throw new ClusterSourceError('configuration', credentialsProblem(config, error), { cause: error });
    }
    requestOptions.headers = sendableHeaders(requestOptions.headers) as https.RequestOptions['headers'];
    const credentials = credentialsOf(requestOptions);
    const url = new URL(`${server.replace(/\/+$/, '')}${path}`);
    const transport = url.protocol === 'http:' ? http : https;
    timeout ??= options.timeoutMs ?? clusterTimeoutMs();
    const timeoutMs = timeout;
    return new Promise((resolve, reject) => {
      // One deadline for the whole request, body included: the socket's idle `timeout` alone never
      // fires while a server trickles its body a byte at a time.
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let answered = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const fail = (reason: string, cause?: unknown) =>
        settle(() => reject(new ClusterSourceError('unreachable', reason, { cause })));
      const request = transport.request(
        url,
        {
          ...requestOptions,
          method,
          headers: {
            ...requestOptions.headers,
            Accept: accept,
            ...(payload
              ? {
                  'Content-Type': payload.contentType,
                  'Content-Length': String(Buffer.byteLength(payload.body)),
                }
              : {}),
          },
          timeout: timeoutMs,
        },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            settle(() =>
              resolve({
                status: response.statusCode ?? 0,
                body: Buffer.concat(chunks).toString('utf8'),
                credentials,
                retryAfter: response.headers['retry-after'],
                location: response.headers.location,
              }),
            ),
          );
          const broken = (error?: Error) =>
            fail(
              `${method} ${url.pathname}: the connection to ${url.host} broke while reading the response${error ? `: ${error.message}` : ''}`,
              error,
            );
          response.on('error', broken);
          response.on('aborted', () => broken());
        },
      );
      // Started once the request exists (a request that cannot be built leaves no timer behind).
      timer = setTimeout(() => {
        const where = `${method} ${url.pathname}`;
        fail(
          answered
            ? `${where}: the response from ${url.host} did not complete within ${formatTimeout(timeoutMs)} (headers came, the body did not)`
            : `${where}: no answer from ${url.host} within ${formatTimeout(timeoutMs)}`,
        );
        request.destroy();
      }, timeoutMs);
      request.on('timeout', () => request.destroy(new Error(`no answer from ${url.host} in time`)));
      request.on('error', (error: NodeJS.ErrnoException) =>
        fail(
          `cannot reach ${url.host}${error.code ? ` (${error.code})` : ''}: ${error.message}${
            isUntrustedCertificate(error.code)
              ? cluster?.caData || cluster?.caFile
                ? WRONG_CA_FIX
                : NO_CA_FIX
              : ''
          }`,
          error,
        ),
      );
      request.end(payload?.body);
    });
  }

  async function getJson(path: string, accept?: string): Promise<unknown | undefined> {
    const { status, body, credentials } = await get(path, accept);
    if (status === 404) return undefined;
    if (status < 200 || status > 299) {
      const message = errorBodyMessage(body, ['message'], credentials);
      throw new ClusterSourceError(
        failureOfStatus(status),
        `GET ${path}: ${status} ${message}${stillRefused(status)}`,
        { status },
      );
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
      const path = apiRoot(apiVersion);
      cached = getJson(path).then((list) => {
        const resources = (list as { resources?: unknown } | null | undefined)?.resources;
        if (Array.isArray(resources)) return resources as ApiResource[];
        // 404: a group version the server does not serve (a CRD not installed). Not so the core
        // group version: every API server serves `/api/v1`, so a 404 there, or an answer that is
        // no APIResourceList anywhere, is a server that is not Kubernetes' (a wrong address, a
        // proxy's default page). Taken for "not served", it made every object `cluster.missing`.
        if (list === undefined && apiVersion !== CORE_VERSION) return undefined;
        throw new ClusterSourceError(
          'invalid-response',
          list === undefined
            ? `GET ${path} answered 404, and every Kubernetes API server serves the core API there: the server is not a Kubernetes API server, or not at this address`
            : `GET ${path}: the answer is not an APIResourceList (no resources): the server is not a Kubernetes API server, or not at this address`,
          { serverWide: apiVersion === CORE_VERSION },
        );
      }, notKubernetesIfCore(apiVersion));
      // A failed discovery is retried by the next read instead of failing every read after it.
      cached.catch(() => discovery.delete(apiVersion));
      discovery.set(apiVersion, cached);
    }
    return cached;
  }

  /** The resource that serves a kind (not a subresource); undefined when the server does not serve it. */
  async function resourceOf(apiVersion: string, kind: string): Promise<ApiResource | undefined> {
    const resources = await resourcesOf(apiVersion);
    return resources?.find((candidate) => candidate.kind === kind && !candidate.name.includes('/'));
  }

  /** The object's URL path; undefined when the server does not serve its kind. */
  async function objectPath(request: LiveObjectRequest): Promise<string | undefined> {
    const resource = await resourceOf(request.apiVersion, request.kind);
    if (!resource) return undefined;
    let scope = '';
    if (resource.namespaced) {
      const namespace = request.namespace ?? (await defaultNamespace(options.config));
      scope = `/namespaces/${pathSegment(namespace, 'namespace')}`;
    }
    return `${apiRoot(request.apiVersion)}${scope}/${resource.name}/${pathSegment(request.name, 'name')}`;
  }

  let openApiPaths: Promise<Record<string, string> | undefined> | undefined;
  const openApiDocuments = new Map<string, Promise<unknown | undefined>>();

  /** `GET /openapi/v3`: group version → the document's URL (with its hash, so caches stay valid). */
  function openApiIndex(): Promise<Record<string, string> | undefined> {
    openApiPaths ??= optionalJson('/openapi/v3').then((index) => {
      const paths = (index as { paths?: unknown } | undefined)?.paths;
      if (typeof paths !== 'object' || paths === null) return undefined;
      const result: Record<string, string> = {};
      for (const [key, value] of Object.entries(paths as Record<string, unknown>)) {
        const url = (value as { serverRelativeURL?: unknown } | null)?.serverRelativeURL;
        if (typeof url === 'string' && url.startsWith('/openapi/v3/')) result[key] = url;
      }
      return result;
    });
    openApiPaths.catch(() => {
      openApiPaths = undefined;
    });
    return openApiPaths;
  }

  /** A document that may not exist or be readable (404, 403): undefined, and the caller falls back. */
  async function optionalJson(path: string): Promise<unknown | undefined> {
    try {
      return await getJson(path);
    } catch (error) {
      if (error instanceof ClusterSourceError && error.failure === 'forbidden') return undefined;
      throw error;
    }
  }

  let capabilities: Promise<ClusterCapabilities> | undefined;

  /**
   * The server's version (`GET /version`) and what it serves (`GET /api`, `GET /apis`, then each
   * group version's resources, which later reads reuse), read once per reader. A group version
   * whose discovery fails (e.g. an aggregated API answering 503) is left out and named in
   * `unavailable`, as kubectl and Argo CD carry on without it; /version, /api or /apis failing
   * rejects.
   */
  function clusterCapabilities(): Promise<ClusterCapabilities> {
    capabilities ??= (async () => {
      const [version, core, groups] = await Promise.all([
        getJson('/version'),
        getJson('/api'),
        getJson('/apis'),
      ]);
      const groupVersions = [...coreVersions(core), ...servedGroupVersions(groups)];
      const unavailable: string[] = [];
      const served = await Promise.all(
        groupVersions.map(async (groupVersion) => {
          try {
            return { groupVersion, resources: (await resourcesOf(groupVersion)) ?? [] };
          } catch (error) {
            unavailable.push(
              error instanceof ClusterSourceError
                ? error.reason
                : `${groupVersion}: ${(error as Error).message}`,
            );
            return { groupVersion, resources: [] };
          }
        }),
      );
      return {
        kubeVersion: kubeVersionOf(version),
        apiVersions: apiVersionsOf(served),
        unavailable: unavailable.sort(),
      };
    })();
    capabilities.catch(() => {
      capabilities = undefined;
    });
    return capabilities;
  }

  return {
    clusterCapabilities,

    async readLive(request: LiveObjectRequest): Promise<LiveObjectResult> {
      const path = await objectPath(request);
      if (path === undefined) return { found: false, reason: 'kind-not-served' };
      const object = await getJson(path);
      return object === undefined
        ? { found: false, reason: 'not-found' }
        : { found: true, object: object as KubeObject };
    },

    /**
     * What `kubectl diff --server-side` sends: an apply patch (JSON is YAML) with dryRun=All and
     * force=true (a dry-run takes the fields other managers own instead of failing on conflicts).
     */
    async dryRunApply(
      request: LiveObjectRequest,
      manifest: KubeObject,
      fieldManager: string,
    ): Promise<DryRunResult> {
      const path = await objectPath(request);
      if (path === undefined)
        return {
          outcome: 'refused',
          status: 404,
          reason: `${request.apiVersion} ${request.kind} is not served`,
        };
      const query = new URLSearchParams({ dryRun: 'All', fieldManager, force: 'true' });
      const { status, body, credentials } = await send('PATCH', `${path}?${query}`, {
        body: JSON.stringify(manifest),
        contentType: 'application/apply-patch+yaml',
      });
      if (status === 200 || status === 201) {
        try {
          return { outcome: 'applied', object: JSON.parse(body) as KubeObject, created: status === 201 };
        } catch (error) {
          throw new ClusterSourceError(
            'invalid-response',
            `dry-run PATCH ${path}: the response is not JSON`,
            {
              cause: error,
            },
          );
        }
      }
      const message = errorBodyMessage(body, ['message'], credentials);
      if (REFUSALS.has(status)) return { outcome: 'refused', status, reason: message };
      // The status comes before the path: after `…/secrets/<name>:` a word reads like a secret's value.
      throw new ClusterSourceError(
        failureOfStatus(status),
        `dry-run apply answered ${status} for ${path}: ${message}${stillRefused(status)}`,
        {
          status,
        },
      );
    },

    /**
     * The objects' metadata only (a PartialObjectMetadataList, as `kubectl get -o name` reads it):
     * what extraneous detection decides on (names, labels, annotations, ownerReferences). A full
     * LIST of Secrets brings every value into memory, and a namespace of Helm release Secrets
     * (`sh.helm.release.v1.*`, up to 1 MiB each) is hundreds of MiB that ran past the request
     * deadline. Read in pages (`limit`, `continue`) as kubectl does; a server that cannot answer
     * metadata only (an aggregated API) answers the full list, which is read the same way.
     */
    async listObjects(target: ListRequest): Promise<KubeObject[] | undefined> {
      const resource = await resourceOf(target.apiVersion, target.kind);
      if (!resource) return undefined;
      const scope =
        resource.namespaced && target.namespace !== undefined
          ? `/namespaces/${pathSegment(target.namespace, 'namespace')}`
          : '';
      const collection = `${apiRoot(target.apiVersion)}${scope}/${resource.name}`;
      const objects: KubeObject[] = [];
      let next: string | undefined;
      for (let page = 1; ; page++) {
        const query = new URLSearchParams({ limit: String(LIST_PAGE_SIZE) });
        if (target.labelSelector) query.set('labelSelector', target.labelSelector);
        if (next !== undefined) query.set('continue', next);
        const list = (await getJson(`${collection}?${query}`, METADATA_ONLY)) as
          | { items?: unknown; metadata?: { continue?: unknown } }
          | undefined;
        const items = Array.isArray(list?.items) ? list.items : [];
        // A LIST leaves apiVersion and kind out of its items (metadata-only ones say
        // PartialObjectMetadata); the request knows them.
        for (const item of items)
          if (typeof item === 'object' && item !== null && !Array.isArray(item))
            objects.push({ ...(item as KubeObject), apiVersion: target.apiVersion, kind: target.kind });
        const token = list?.metadata?.continue;
        if (typeof token !== 'string' || token === '') return objects;
        if (token === next || page >= MAX_LIST_PAGES)
          throw new ClusterSourceError(
            'invalid-response',
            `GET ${collection}: the list did not end after ${page} pages of ${LIST_PAGE_SIZE} (its continue token ${token === next ? 'repeats' : 'goes on'})`,
          );
        next = token;
      }
    },

    async openApiDocument(apiVersion: string): Promise<unknown | undefined> {
      let cached = openApiDocuments.get(apiVersion);
      if (cached === undefined) {
        cached = openApiIndex().then((index) => {
          const url = index?.[apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`];
          return url === undefined ? undefined : optionalJson(url);
        });
        cached.catch(() => openApiDocuments.delete(apiVersion));
        openApiDocuments.set(apiVersion, cached);
      }
      return cached;
    },
  };
}

/**
 * A certificate the scanner does not trust. EKS serves one of the cluster's own CA, which an `eks`
 * entry without `certificateAuthority` (it is optional) did not give: every read failed as
 * "cannot reach", and cluster-diff advised checking the address and the network.
 */
const NO_CA_FIX =
  "; the server's certificate is not signed by a CA the scanner trusts: give the cluster's CA (an EKS cluster: clusters[].kubernetes.eks.certificateAuthority, from `aws eks describe-cluster --name <cluster> --query cluster.certificateAuthority.data --output text`; a kubeconfig context: its cluster's certificate-authority-data)";
const WRONG_CA_FIX =
  "; the cluster's CA (clusters[].kubernetes.eks.certificateAuthority, or the kubeconfig cluster's certificate-authority-data) did not sign the server's certificate: give the one that did (`aws eks describe-cluster --name <cluster> --query cluster.certificateAuthority.data --output text`)";

/** The core group version, which every API server serves at `/api/v1`. */
const CORE_VERSION = 'v1';

/** A core discovery answer that is not JSON (a login page, a proxy's HTML) fails every read alike. */
function notKubernetesIfCore(apiVersion: string): (error: unknown) => never {
  return (error) => {
    if (
      apiVersion === CORE_VERSION &&
      error instanceof ClusterSourceError &&
      error.failure === 'invalid-response'
    )
      throw new ClusterSourceError(error.failure, error.reason, {
        cause: error,
        ...(error.status === undefined ? {} : { status: error.status }),
        serverWide: true,
      });
    throw error;
  };
}

/** Objects per page of a LIST (kubectl's chunk size). */
const LIST_PAGE_SIZE = 500;
/** 500 pages of 500: more objects than one kind in one namespace holds; a server that never ends is refused. */
const MAX_LIST_PAGES = 500;
/** A LIST's items as metadata only, else (a server that cannot) the full list. */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** An answer of the API server, with the credentials the request carried (to redact from its text). */
interface Answer {
  status: number;
  body: string;
  credentials: string[];
  retryAfter?: string;
  location?: string;
}

/**
 * The kubeconfig's headers as HTTP can carry them. A token is trimmed, as client-go trims a token
 * file (a token pasted with its newline, a `token: |` block, a file ending in a newline); one that
 * still holds a control character made Node throw "Invalid character in header content" for every
 * object on its own, without saying where to look: it is one configuration failure now, naming the
 * header, never its value.
 */
function sendableHeaders(headers: https.RequestOptions['headers']): Record<string, unknown> {
  const result: Record<string, unknown> = { ...(headers as Record<string, unknown> | undefined) };
  for (const [name, value] of Object.entries(result)) {
    if (typeof value !== 'string') continue;
    const sent = name.toLowerCase() === 'authorization' ? value.trim() : value;
    try {
      http.validateHeaderValue(name, sent);
    } catch {
      const what = name.toLowerCase() === 'authorization' ? "user's token" : `${name} header`;
      throw new ClusterSourceError(
        'configuration',
        `the kubeconfig ${what} holds a line break or another control character, which an HTTP header cannot carry: correct it in the kubeconfig (or the token file or exec plugin that supplies it)`,
      );
    }
    result[name] = sent;
  }
  return result;
}

/**
 * The secrets a request sends, as the kubeconfig applied them: the bearer token (a `token`,
 * `tokenFile`, exec plugin or EKS token) and a basic-auth password. A server or a proxy in front
 * of it may quote them in an error body (`invalid bearer token …`), and no value rule recognises
 * every token shape (an EKS `k8s-aws-v1.…` token, a static token), so they are redacted literally.
 */
function credentialsOf(requestOptions: https.RequestOptions): string[] {
  const credentials: string[] = [];
  const headers = requestOptions.headers as Record<string, unknown> | undefined;
  const authorization = headers?.Authorization ?? headers?.authorization;
  if (typeof authorization === 'string') {
    credentials.push(authorization);
    const scheme = /^\S+\s+(\S+)$/.exec(authorization);
    if (scheme?.[1]) credentials.push(scheme[1]);
  }
  if (typeof requestOptions.auth === 'string') {
    const colon = requestOptions.auth.indexOf(':');
    credentials.push(requestOptions.auth, requestOptions.auth.slice(colon + 1));
  }
  return credentials;
}

/**
 * Answers that mean "this server will not dry-run this apply" rather than "the scan failed":
 * 403 no `patch` permission on the kind; 404/405 no such verb (an aggregated API); 415 a server
 * older than server-side apply; 400 a webhook without `sideEffects: None|NoneOnDryRun` ("does not
 * support dry run") or an apply patch the server cannot take. The object falls back to OpenAPI.
 * A 422 (the manifest is invalid: applying it would fail) is not a refusal: it fails the object.
 */
const REFUSALS: ReadonlySet<number> = new Set([400, 403, 404, 405, 415]);

/** What a cluster tells `helm template` (render.ts HelmCapabilities), from discovery. */
export interface ClusterCapabilities {
  kubeVersion?: string;
  apiVersions: string[];
  /** Why a group version's discovery failed (`GET /apis/<gv>: 503 …`): it is left out of apiVersions. */
  unavailable: string[];
}

/** `GET /api` (APIVersions): its `versions` (`["v1"]`). */
function coreVersions(body: unknown): string[] {
  const versions = (body as { versions?: unknown } | undefined)?.versions;
  return Array.isArray(versions)
    ? versions.filter((version): version is string => typeof version === 'string')
    : [];
}

/** `GET /apis` (APIGroupList): every version of every group (`apps/v1`), not only the preferred. */
function servedGroupVersions(body: unknown): string[] {
  const groups = (body as { groups?: unknown } | undefined)?.groups;
  if (!Array.isArray(groups)) return [];
  return groups.flatMap((group) => {
    const versions = (group as { versions?: unknown } | null)?.versions;
    if (!Array.isArray(versions)) return [];
    return versions.flatMap((version) => {
      const groupVersion = (version as { groupVersion?: unknown } | null)?.groupVersion;
      return typeof groupVersion === 'string' ? [groupVersion] : [];
    });
  });
}

/** `/api/v1`, `/apis/apps/v1`; an apiVersion that is not `[group/]version` is refused (pathSegment). */
function apiRoot(apiVersion: string): string {
  const parts = apiVersion.split('/');
  if (parts.length > 2)
    throw new ClusterSourceError(
      'failed',
      `the apiVersion ${JSON.stringify(apiVersion)} is not <group>/<version> or <version>: correct it in the manifests`,
    );
  const path = parts.map((part) => pathSegment(part, 'apiVersion part')).join('/');
  return parts.length === 2 ? `/apis/${path}` : `/api/${path}`;
}

async function defaultNamespace(config: () => Promise<KubeConfig>): Promise<string> {
  const kubeConfig = await config();
  return kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
}

/**
 * Why the kubeconfig's user gave no credentials (its exec plugin failed or printed no
 * ExecCredential, a token file is unreadable). Worded without a `kubeconfig:` prefix: redaction
 * takes `<secret-looking name>: <word>` for a credential and would eat the reason's first word.
 */
function credentialsProblem(config: KubeConfig, error: unknown): string {
  const user = config.getCurrentUser();
  const exec = user?.exec as { command?: unknown } | undefined;
  const plugin = typeof exec?.command === 'string' ? `its exec plugin (${exec.command}) ` : '';
  const message = (error as Error).message?.trim() || String(error);
  const reason =
    error instanceof SyntaxError && plugin
      ? `${plugin}did not print an ExecCredential (JSON with status.token)`
      : `${plugin}failed: ${message}`;
  return `the credentials of kubeconfig user ${user?.name ?? '(none)'} could not be obtained, ${reason}`;
}

/** A kubeconfig context (KUBECONFIG or ~/.kube/config), as kubectl would use it. */
export function kubeConfigForContext(context: string, env: NodeJS.ProcessEnv = process.env): KubeConfig {
  // With no file at all, the client loads a made-up `loaded-context` for localhost:8080, so the
  // context would be reported missing among contexts nobody wrote: say that there is no kubeconfig.
  if (!env.KUBECONFIG && !env.KUBERNETES_SERVICE_HOST && !existsSync(join(homedir(), '.kube', 'config')))
    throw new ClusterSourceError(
      'configuration',
      `no kubeconfig to read context '${context}' from: KUBECONFIG is not set and ~/.kube/config does not exist; set KUBECONFIG to the file that has the context (kubectl config get-contexts lists them)`,
    );
  const config = new KubeConfig();
  try {
    config.loadFromDefault();
  } catch (error) {
    // A missing or malformed file fails the cluster once, as configuration: not each object.
    // "KUBECONFIG=<path>" would read as a credential to redaction (see credentialsProblem).
    const where = env.KUBECONFIG ? `${env.KUBECONFIG} (from KUBECONFIG)` : '~/.kube/config';
    throw new ClusterSourceError(
      'configuration',
      `cannot load the kubeconfig from ${where}: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
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
