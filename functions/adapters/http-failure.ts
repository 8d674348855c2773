import type { SourceFailure } from '../core/gitops/ports.js';

/** What an HTTP error status of Argo CD or the Kubernetes API means for a cluster scan. */
export function failureOfStatus(status: number): SourceFailure {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  return 'failed';
}

/**
 * The message of a JSON error body (the first of `keys` that is a string, e.g. Kubernetes' Status
 * `message`, Argo CD's `message` or `error`); anything else is shown briefly.
 */
export function errorBodyMessage(body: string, keys: readonly string[]): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const message = keys.map((key) => parsed[key]).find((value) => value !== undefined && value !== null);
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return body.slice(0, 120).replace(/\s+/g, ' ').trim();
}
