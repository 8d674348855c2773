import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/**
 * A local HTTP server speaking the part of Argo CD's REST API driftwatch reads (list, get,
 * managed-resources), with the bearer check and the error bodies Argo CD sends.
 */

/** Our own Argo CD objects, shaped like upstream test data (see the folder's README.md). */
export const ARGO_FIXTURES_DIR = fileURLToPath(new URL('../fixtures/argo-cd/', import.meta.url));

/** A fixture file as JSON (YAML converted, as the API returns the same object model as JSON). */
export function readArgoFixture(relative: string): Record<string, unknown> {
  const text = readFileSync(`${ARGO_FIXTURES_DIR}${relative}`, 'utf8');
  return (relative.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown>;
}

export interface FakeApplication {
  /** The Application object (`kubectl get application -o yaml`, as JSON). */
  application: Record<string, unknown>;
  /** `managed-resources` items (states as JSON strings); default none. */
  managedResources?: Array<Record<string, unknown>>;
  /** Listed, but deleted before driftwatch reads it (GET answers 404). */
  vanishes?: boolean;
  /** GET of the application answers with a body that is not JSON. */
  malformed?: boolean;
}

export interface FakeArgoCd {
  url: string;
  requests: Array<{ method: string; path: string; authorized: boolean }>;
  close(): Promise<void>;
}

export async function startFakeArgoCd(options: {
  token: string;
  applications: FakeApplication[];
}): Promise<FakeArgoCd> {
  const requests: FakeArgoCd['requests'] = [];
  const byName = new Map(options.applications.map((entry) => [nameOf(entry.application), entry]));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const authorized = request.headers.authorization === `Bearer ${options.token}`;
    requests.push({ method: request.method ?? '', path: `${url.pathname}${url.search}`, authorized });
    if (request.method !== 'GET')
      return send(response, 405, { error: 'read-only fake', code: 12, message: 'method not allowed' });
    if (!authorized) {
      const message = 'invalid session: token signature is invalid';
      return send(response, 401, { error: message, code: 16, message });
    }
    if (url.pathname === '/api/v1/applications') {
      const projects = url.searchParams.getAll('projects');
      const selector = url.searchParams.get('selector');
      const items = [...byName.values()]
        .map((entry) => entry.application)
        .filter((app) => projects.length === 0 || projects.includes(String(spec(app).project)))
        .filter((app) => selector === null || matchesSelector(app, selector))
        .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
      return send(response, 200, { metadata: { resourceVersion: '123456' }, items });
    }
    const match = /^\/api\/v1\/applications\/([^/]+)(\/managed-resources)?$/.exec(url.pathname);
    const entry = match ? byName.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !entry || entry.vanishes) {
      const name = match ? decodeURIComponent(match[1]!) : url.pathname;
      const message = `applications.argoproj.io "${name}" not found`;
      return send(response, 404, { error: message, code: 5, message });
    }
    if (match[2]) return send(response, 200, { items: entry.managedResources ?? [] });
    if (entry.malformed) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end('{"metadata": {"name": "truncat');
    }
    return send(response, 200, entry.application);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function nameOf(application: Record<string, unknown>): string {
  return String((application.metadata as { name?: unknown } | undefined)?.name);
}

function spec(application: Record<string, unknown>): Record<string, unknown> {
  return (application.spec as Record<string, unknown> | undefined) ?? {};
}

function matchesSelector(application: Record<string, unknown>, selector: string): boolean {
  const labels = ((application.metadata as { labels?: Record<string, string> }).labels ?? {}) as Record<
    string,
    string
  >;
  return selector.split(',').every((requirement) => {
    const [key, value] = requirement.split('=');
    return key !== undefined && labels[key.trim()] === value?.trim();
  });
}

/**
 * A `managed-resources` item as Argo CD's controller builds it (controller/appcontroller.go
 * `getResourceDiffs`… `item.PredictedLiveState = string(resDiff.PredictedLive)`): each state is a JSON
 * string, "null" when the object is absent. `predicted` is what Argo CD predicts a sync would leave
 * (the live object with git's fields applied, server defaults and metadata included: use
 * `predictFromLive`), never git's raw manifest; it is required whenever git declares the object.
 * `modified` is Argo CD's own verdict (default: the states differ).
 */
export function resourceDiff(options: {
  group?: string;
  kind: string;
  namespace?: string;
  name: string;
  target?: unknown;
  live?: unknown;
  predicted?: unknown;
  modified?: boolean;
}): Record<string, unknown> {
  if (options.target !== undefined && options.predicted === undefined)
    throw new Error(
      `resourceDiff ${options.kind}/${options.name}: give the predicted live state (predictFromLive), not git's manifest`,
    );
  const state = (value: unknown) => (value === undefined ? 'null' : JSON.stringify(value));
  const predicted = state(options.predicted);
  const live = state(options.live);
  return {
    group: options.group ?? '',
    kind: options.kind,
    namespace: options.namespace ?? '',
    name: options.name,
    targetState: state(options.target),
    liveState: live,
    normalizedLiveState: live,
    predictedLiveState: predicted,
    hook: false,
    modified: options.modified ?? predicted !== live,
    resourceVersion: String(
      ((options.live as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata
        ?.resourceVersion ?? '') as string,
    ),
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * What Argo CD predicts a sync leaves (gitops-engine's three-way merge `ThreeWayDiff`, or the
 * server-side dry-run): the live object with the fields git declares applied. Maps merge, lists of
 * named things merge by name, everything else git sets replaces the live value; server metadata,
 * defaults and status stay as they are live.
 */
export function predictFromLive(live: unknown, declared: unknown): unknown {
  return merge(structuredClone(live) as Json, declared as Json);
}

function merge(live: Json, declared: Json): Json {
  if (isMap(live) && isMap(declared)) {
    const result = { ...live };
    for (const [key, value] of Object.entries(declared))
      result[key] = key in live ? merge(live[key]!, value) : value;
    return result;
  }
  if (
    Array.isArray(live) &&
    Array.isArray(declared) &&
    declared.every((item) => isMap(item) && 'name' in item)
  ) {
    return declared.map((item) => {
      const match = live.find(
        (candidate) => isMap(candidate) && candidate.name === (item as { name: Json }).name,
      );
      return match === undefined ? item : merge(match, item);
    });
  }
  return declared;
}

function isMap(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
