import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in of the Kubernetes API for direct mode, answering from recorded responses:
 * the server's version (`/version`), discovery (`/api`, `/apis`, `/api/v1`,
 * `/apis/<group>/<version>`), GET of single objects, LIST by label
 * (`?labelSelector=a=b,c=d`, in chunks with `limit`/`continue`, metadata only when asked), `GET /openapi/v3` and its group-version documents, and server-side
 * apply dry-runs (`PATCH ...?dryRun=All` with `application/apply-patch+yaml`), with Status bodies
 * as the API server sends them. Any other write is recorded in `writes` and refused: a test
 * asserts that list stays empty (driftwatch never writes to a cluster).
 */

const RESOURCES: Record<string, ApiResource[]> = {
  v1: [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'secrets', kind: 'Secret', namespaced: true },
    { name: 'services', kind: 'Service', namespaced: true },
    { name: 'services/status', kind: 'Service', namespaced: true },
    { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
  ],
  'apps/v1': [
    { name: 'deployments', kind: 'Deployment', namespaced: true },
    { name: 'deployments/scale', kind: 'Scale', namespaced: true },
  ],
  // Argo CD's CRD: direct mode reads the tracking Application's ignoreDifferences.
  'argoproj.io/v1alpha1': [{ name: 'applications', kind: 'Application', namespaced: true }],
};

type ApiResource = { name: string; kind: string; namespaced: boolean };

/**
 * `GET /version` (version.Info of k8s.io/apimachinery, as `kubectl get --raw /version` prints it):
 * an EKS server, whose minor carries a `+` and whose gitVersion a platform suffix.
 */
export const EKS_VERSION_INFO = {
  major: '1',
  minor: '29+',
  gitVersion: 'v1.29.8-eks-a737599',
  gitCommit: '2f1f3c0d9f9a5c2e8d0a6e1b7c4d3f2a1b0c9d8e',
  gitTreeState: 'clean',
  buildDate: '2024-08-26T21:27:41Z',
  goVersion: 'go1.22.5',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  authorization?: string;
  accept?: string;
}

export interface FakeKubernetes {
  server: string;
  requests: FakeRequest[];
  /** Requests that would change the cluster (anything but GET and PATCH with dryRun=All). */
  writes: FakeRequest[];
  close(): Promise<void>;
}

/** A recorded answer of the API server: status and body. */
export interface RecordedResponse {
  status: number;
  body: unknown;
}

export async function startFakeKubernetes(options: {
  /** Live objects (as the API server returns them). */
  objects: Array<Record<string, unknown>>;
  /** Accepts a request when this returns true for its Authorization header. */
  authorize: (authorization: string | undefined) => boolean;
  /**
   * The recorded answer to a dry-run apply of `<apiVersion>/<resource>/<namespace>/<name>`
   * (e.g. `apps/v1/deployments/shop/api`); without it the fake answers 405 like a read-only proxy.
   */
  dryRun?: (key: string, patch: Record<string, unknown>) => RecordedResponse | undefined;
  /** `GET /openapi/v3` (index) and the documents it names, by path without the query. */
  openapi?: { index: unknown; documents: Record<string, unknown> };
  /**
   * Recorded error answers by `<METHOD> <path>` (e.g. `GET /apis/apps/v1/namespaces/shop/deployments/api`,
   * `PATCH /api/v1/namespaces/shop/services/web`): the Status the API server sent for that one request.
   */
  failures?: Record<string, RecordedResponse>;
  /** Group versions served besides the built-in v1 and apps/v1 ones (e.g. `policy/v1`). */
  resources?: Record<string, ApiResource[]>;
  /** The `GET /version` answer; EKS_VERSION_INFO unless given. */
  version?: unknown;
}): Promise<FakeKubernetes> {
  const served: Record<string, ApiResource[]> = { ...RESOURCES, ...options.resources };
  const requests: FakeKubernetes['requests'] = [];
  const writes: FakeKubernetes['writes'] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const recorded: FakeRequest = {
      method: request.method ?? 'GET',
      path,
      query: Object.fromEntries(url.searchParams),
      ...(request.headers['content-type'] ? { contentType: request.headers['content-type'] } : {}),
      authorization: request.headers.authorization,
      ...(request.headers.accept ? { accept: request.headers.accept } : {}),
    };
    requests.push(recorded);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const isDryRun = request.method === 'PATCH' && url.searchParams.get('dryRun') === 'All';
    if (request.method !== 'GET' && !isDryRun) {
      writes.push(recorded);
      return status(response, 405, 'MethodNotAllowed', 'read-only fake: only GET and dry-run PATCH');
    }
    if (!options.authorize(request.headers.authorization))
      return status(response, 401, 'Unauthorized', 'Unauthorized');
    const failure = options.failures?.[`${recorded.method} ${path}`];
    if (failure) return send(response, failure.status, failure.body);
    if (path.startsWith('/openapi/v3')) {
      if (!options.openapi)
        return status(response, 404, 'NotFound', 'the server could not find the requested resource');
      const document = path === '/openapi/v3' ? options.openapi.index : options.openapi.documents[path];
      if (document === undefined) return status(response, 404, 'NotFound', 'not found');
      return send(response, 200, document);
    }
    if (path === '/version') return send(response, 200, options.version ?? EKS_VERSION_INFO);
    // APIVersions and APIGroupList, in the shapes of the Kubernetes API reference ("Discovery").
    if (path === '/api')
      return send(response, 200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:443' }],
      });
    if (path === '/apis') return send(response, 200, apiGroupList(Object.keys(served)));
    const discovery = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))$/.exec(path);
    if (discovery) {
      const groupVersion = discovery[1] ?? discovery[2]!;
      const resources = served[groupVersion];
      if (!resources)
        return status(response, 404, 'NotFound', 'the server could not find the requested resource');
      return send(response, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources });
    }
    const list = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(path);
    if (list && request.method === 'GET') {
      const apiVersion = list[1] ?? list[2]!;
      const kind = served[apiVersion]?.find((resource) => resource.name === list[4])?.kind;
      if (!kind) return status(response, 404, 'NotFound', 'the server could not find the requested resource');
      const selector = parseSelector(url.searchParams.get('labelSelector') ?? '');
      const items = options.objects.filter((object) => {
        const metadata = object.metadata as { namespace?: string; labels?: Record<string, string> };
        return (
          object.apiVersion === apiVersion &&
          object.kind === kind &&
          (list[3] === undefined || metadata.namespace === list[3]) &&
          Object.entries(selector).every(([key, value]) => metadata.labels?.[key] === value)
        );
      });
      // Chunked as the API server chunks (`limit`, an opaque `continue`), and metadata only
      // (PartialObjectMetadataList) when the Accept header asks for it.
      const limit = Number(url.searchParams.get('limit') ?? '0');
      const start = Number(
        Buffer.from(url.searchParams.get('continue') ?? '', 'base64url').toString() || '0',
      );
      const page = limit > 0 ? items.slice(start, start + limit) : items;
      const rest = limit > 0 && start + limit < items.length;
      const metadata = {
        resourceVersion: '99999',
        ...(rest ? { continue: Buffer.from(String(start + limit)).toString('base64url') } : {}),
      };
      if (request.headers.accept?.split(',')[0]?.includes('as=PartialObjectMetadataList'))
        return send(response, 200, {
          kind: 'PartialObjectMetadataList',
          apiVersion: 'meta.k8s.io/v1',
          metadata,
          items: page.map((item) => ({
            kind: 'PartialObjectMetadata',
            apiVersion: 'meta.k8s.io/v1',
            metadata: item.metadata,
          })),
        });
      return send(response, 200, { kind: `${kind}List`, apiVersion, metadata, items: page });
    }
    const read = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)\/([^/]+)$/.exec(
      path,
    );
    if (read) {
      const apiVersion = read[1] ?? read[2]!;
      const kind = served[apiVersion]?.find((resource) => resource.name === read[4])?.kind;
      if (isDryRun) {
        if (request.headers['content-type'] !== 'application/apply-patch+yaml')
          return status(
            response,
            415,
            'UnsupportedMediaType',
            'the body of the request was in an unknown format',
          );
        if (!options.dryRun) return status(response, 405, 'MethodNotAllowed', 'read-only fake');
        const patch = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const answer = options.dryRun(`${apiVersion}/${read[4]}/${read[3] ?? ''}/${read[5]}`, patch);
        if (!answer) return status(response, 500, 'InternalError', `no recorded dry-run for ${path}`);
        return send(response, answer.status, answer.body);
      }
      const found = options.objects.find((object) => {
        const metadata = object.metadata as { name?: string; namespace?: string };
        return (
          object.apiVersion === apiVersion &&
          object.kind === kind &&
          metadata.name === read[5] &&
          (metadata.namespace ?? undefined) === (read[3] ?? undefined)
        );
      });
      if (found) return send(response, 200, found);
      return status(response, 404, 'NotFound', `${read[4]} "${read[5]}" not found`);
    }
    return status(response, 404, 'NotFound', 'the server could not find the requested resource');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    requests,
    writes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `GET /apis`: one group per served group version here (each group serves one version). */
function apiGroupList(groupVersions: string[]): unknown {
  const groups = groupVersions
    .filter((groupVersion) => groupVersion.includes('/'))
    .map((groupVersion) => {
      const [name, version] = groupVersion.split('/') as [string, string];
      const entry = { groupVersion, version };
      return { name, versions: [entry], preferredVersion: entry };
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

function send(response: ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Equality selectors only (`a=b,c==d`): what the scans send. */
function parseSelector(text: string): Record<string, string> {
  const selector: Record<string, string> = {};
  for (const term of text.split(',').filter(Boolean)) {
    const [key, value] = term.split(/==?/);
    if (key !== undefined && value !== undefined) selector[key.trim()] = value.trim();
  }
  return selector;
}

function status(response: ServerResponse, code: number, reason: string, message: string): void {
  send(response, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
}

/** A kubeconfig with one context for a fake server (plain http on loopback needs insecure-skip-tls-verify). */
export function writeKubeconfig(path: string, server: string, token: string, context = 'fake'): string {
  const text = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${context}`,
    'clusters:',
    `  - name: ${context}`,
    `    cluster: { server: "${server}", insecure-skip-tls-verify: true }`,
    'users:',
    `  - name: ${context}-user`,
    `    user: { token: "${token}" }`,
    'contexts:',
    `  - name: ${context}`,
    `    context: { cluster: ${context}, user: ${context}-user }`,
    '',
  ].join('\n');
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}
