import { type ArgoCdApi, ClusterSourceError } from '../core/gitops/ports.js';
import { redactText } from '../core/redaction/secrets.js';
import type { ArgoCdSource } from '../core/registry/model.js';
import { errorBodyMessage, failureOfStatus } from './http-failure.js';

/**
 * A read-only client of Argo CD's REST API (`/api/v1/applications`...). Only GETs: driftwatch
 * never asks Argo CD to refresh, sync or prune. The token goes in the Authorization header and
 * nowhere else: errors name the path, the status and Argo CD's message, never the token.
 */
export interface ArgoCdClientOptions {
  source: Pick<ArgoCdSource, 'url' | 'project' | 'selector' | 'appNamespace'>;
  /** Resolved once per client (Secrets Manager or an environment variable). */
  token: () => Promise<string>;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function createArgoCdClient(options: ArgoCdClientOptions): ArgoCdApi {
  const base = options.source.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  let token: Promise<string> | undefined;

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
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { Authorization: `Bearer ${bearer}`, Accept: 'application/json' },
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        redirect: 'error',
      });
    } catch (error) {
      throw new ClusterSourceError('unreachable', `GET ${path}: ${networkReason(error, base)}`, {
        cause: error,
      });
    }
    const body = await response.text();
    if (!response.ok) {
      const failure = failureOfStatus(response.status);
      const message = redactText(errorBodyMessage(body, ARGO_MESSAGE_KEYS), [bearer]);
      throw new ClusterSourceError(
        failure,
        `GET ${path}: ${response.status} ${response.statusText || failure}${message ? `: ${message}` : ''}`,
        { status: response.status },
      );
    }
    try {
      return JSON.parse(body);
    } catch (error) {
      const preview = redactText(body.slice(0, 80).replace(/\s+/g, ' '), [bearer]);
      throw new ClusterSourceError(
        'invalid-response',
        `GET ${path}: the response is not JSON (starts with '${preview}')`,
        {
          cause: error,
        },
      );
    }
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
    getApplication: (name, appNamespace) =>
      get(`/api/v1/applications/${encodeURIComponent(name)}`, namespaceQuery(appNamespace)),
    managedResources: (name, appNamespace) =>
      get(`/api/v1/applications/${encodeURIComponent(name)}/managed-resources`, namespaceQuery(appNamespace)),
  };
}

/** Argo CD errors are `{"error": "...", "code": 16, "message": "..."}`. */
const ARGO_MESSAGE_KEYS = ['message', 'error'];

export function networkReason(error: unknown, server: string): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return `no answer from ${server} in time`;
  const code = cause?.code ?? (error as { code?: string }).code;
  return `cannot reach ${server}${code ? ` (${code})` : ''}: ${cause?.message ?? (error as Error).message}`;
}
