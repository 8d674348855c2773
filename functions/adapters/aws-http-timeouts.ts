import type { Agent } from 'node:https';
import { proxiedHttpsAgent } from './https-proxy.js';

/**
 * The HTTP timeouts of every AWS SDK client driftwatch builds. The SDK sets none by default: an
 * endpoint that accepts the connection and never answers (a black-holed VPC endpoint, a proxy that
 * hangs, a mistyped AWS_ENDPOINT_URL pointing at some listening port) would hold a command, or a
 * Lambda until its own timeout, forever. With these, such a request fails as a TimeoutError, which
 * the SDK retries (3 attempts in all) and aws-error.ts reports as "no answer from <endpoint>".
 *
 * socketTimeout is inactivity, not total time: a large state object that keeps streaming is never
 * cut off. (requestTimeout, the total, only logs a warning unless told to throw, so it is not used.)
 */
export const AWS_HTTP_TIMEOUTS = {
  /** TCP connect: AWS answers in milliseconds; 5 s covers a slow VPN. */
  connectionTimeout: 5_000,
  /** No byte for this long on an open connection: the endpoint is not answering. */
  socketTimeout: 20_000,
} as const;

/**
 * `config` with the request handler options that bound each request (merge into any client's
 * config), and the proxy of HTTPS_PROXY for https:// endpoints when one is set (https-proxy.ts).
 */
export function withHttpTimeouts<T extends object>(
  config: T = {} as T,
): T & { requestHandler: typeof AWS_HTTP_TIMEOUTS & { httpsAgent?: Agent } } {
  const httpsAgent = proxiedHttpsAgent();
  return { ...config, requestHandler: httpsAgent ? { ...AWS_HTTP_TIMEOUTS, httpsAgent } : AWS_HTTP_TIMEOUTS };
}
