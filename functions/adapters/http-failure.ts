import { ClusterSourceError, type SourceFailure } from '../core/gitops/ports.js';
import { redactedExcerpt } from '../core/redaction/secrets.js';
import { parseDuration } from '../core/registry/duration.js';

/** What an HTTP error status of Argo CD or the Kubernetes API means for a cluster scan. */
export function failureOfStatus(status: number): SourceFailure {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  return 'failed';
}

/**
 * The message of a JSON error body (the first of `keys` that is a string, e.g. Kubernetes' Status
 * `message`, Argo CD's `message` or `error`); anything else is shown briefly. Redacted, with
 * `knownSecrets` (the request's token), before it is cut.
 */
export function errorBodyMessage(
  body: string,
  keys: readonly string[],
  knownSecrets: readonly string[] = [],
): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const message = keys.map((key) => parsed[key]).find((value) => value !== undefined && value !== null);
    if (typeof message === 'string') return redactedExcerpt(message, 300, knownSecrets);
  } catch {
    // not JSON: fall through
  }
  return redactedExcerpt(body.replace(/\s+/g, ' ').trim(), 120, knownSecrets);
}

/** How long one request to Argo CD or the Kubernetes API may take, response body included. */
export const DEFAULT_CLUSTER_TIMEOUT_MS = 30_000;
/** Overrides DEFAULT_CLUSTER_TIMEOUT_MS (a duration: `90s`, `2m`): a slow server, or a test's short wait. */
export const CLUSTER_TIMEOUT_ENV = 'DRIFTWATCH_CLUSTER_TIMEOUT';

/** The request timeout of the cluster clients: CLUSTER_TIMEOUT_ENV when set, else the default. */
export function clusterTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[CLUSTER_TIMEOUT_ENV]?.trim();
  if (!text) return DEFAULT_CLUSTER_TIMEOUT_MS;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (error) {
    throw new ClusterSourceError('configuration', `${CLUSTER_TIMEOUT_ENV}: ${(error as Error).message}`);
  }
  if (ms <= 0)
    throw new ClusterSourceError('configuration', `${CLUSTER_TIMEOUT_ENV} must be longer than 0s, e.g. 30s`);
  return ms;
}

/** `30000` → `30s`, `90000` → `90s`, `120000` → `2m` (for messages). */
export function formatTimeout(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 120_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * A deadline for one whole request: connecting, the headers and every byte of the body. A server
 * that sends its headers and then trickles the body (a byte now and then) defeats an idle timeout,
 * and an abort signal given to fetch does not reliably end a body read: undici's Request follows the
 * caller's signal through a weak reference, so once the garbage collector has run, aborting it
 * reaches nothing and the read waits for ever. `within` therefore settles on its own when the time
 * is up (and the signal is aborted too, for whatever still listens). The timer is held until `clear()`.
 */
export function requestDeadline(ms: number): {
  signal: AbortSignal;
  expired: () => boolean;
  /** `work`, or a TimeoutError rejection once the deadline has passed, whichever comes first. */
  within: <T>(work: Promise<T>) => Promise<T>;
  clear: () => void;
} {
  const controller = new AbortController();
  let expired = false;
  let expire: (error: Error) => void = () => undefined;
  const expiry = new Promise<never>((_, reject) => {
    expire = reject;
  });
  expiry.catch(() => undefined);
  const timer = setTimeout(() => {
    expired = true;
    const error = new DOMException(`no complete answer in ${formatTimeout(ms)}`, 'TimeoutError');
    controller.abort(error);
    expire(error);
  }, ms);
  return {
    signal: controller.signal,
    expired: () => expired,
    within: (work) => Promise.race([work, expiry]),
    clear: () => clearTimeout(timer),
  };
}

/** How many times a request the server asked to repeat later is repeated (then it fails). */
export const MAX_RETRIES = 3;
/** The longest wait before one repeat, whatever Retry-After says (a scan has many reads to do). */
const MAX_RETRY_WAIT_MS = 10_000;

/**
 * How long to wait before repeating a request the server asked to repeat later, as client-go does:
 * a 429 (the API server's Priority and Fairness under load, a rate-limiting proxy or ingress), or a
 * 5xx that says when with Retry-After (a restarting server). Retry-After in seconds or as an HTTP
 * date; a 429 without it waits a second. undefined: the answer stands.
 */
export function retryDelayMs(
  status: number,
  retryAfter: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = retryAfter?.trim() ?? '';
  let wait: number | undefined;
  if (/^\d+$/.test(text)) wait = Number(text) * 1000;
  else if (text !== '' && !Number.isNaN(Date.parse(text))) wait = Math.max(0, Date.parse(text) - now);
  if (status === 429) return Math.min(wait ?? 1000, MAX_RETRY_WAIT_MS);
  if (status >= 500 && status <= 599 && wait !== undefined) return Math.min(wait, MAX_RETRY_WAIT_MS);
  return undefined;
}

/**
 * `attempt()`, repeated while its answer asks to be repeated later (retryDelayMs), at most MAX_RETRIES
 * times: the answer that stands is returned, a rate-limited one included.
 */
export async function repeatWhenAsked<T>(
  attempt: () => Promise<T>,
  statusOf: (answer: T) => { status: number; retryAfter?: string | null },
): Promise<T> {
  let answer = await attempt();
  for (let retry = 1; retry <= MAX_RETRIES; retry++) {
    const { status, retryAfter } = statusOf(answer);
    const wait = retryDelayMs(status, retryAfter);
    if (wait === undefined) break;
    await sleep(wait);
    answer = await attempt();
  }
  return answer;
}

/** Said after the status of a rate-limited request that failed all the same. */
export function stillRefused(status: number): string {
  return status === 429 ? ` (rate limited: still refused after ${MAX_RETRIES} retries)` : '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status <= 399;
}

/**
 * A redirect is never followed (the token would go with it to another address, e.g. a login
 * proxy's): the reason names where it pointed, without its query (a login URL carries state).
 */
export function redirectReason(status: number, location: string | null | undefined): string {
  let target = 'no Location';
  if (location) {
    try {
      const url = new URL(location, 'http://relative.invalid');
      target = url.host === 'relative.invalid' ? url.pathname : `${url.protocol}//${url.host}${url.pathname}`;
    } catch {
      target = 'an unreadable Location';
    }
  }
  return `answered ${status}, a redirect to ${target} (not followed: the credentials would go with it)`;
}

/** TLS errors of a certificate no trusted CA signed (OpenSSL's verify codes as Node names them). */
const UNTRUSTED_CERTIFICATE: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** A connection refused because no CA the client trusts signed the server's certificate. */
export function isUntrustedCertificate(code: string | undefined): boolean {
  return code !== undefined && UNTRUSTED_CERTIFICATE.has(code);
}
