/**
 * What the AWS provider's debug log says about API calls that got no usable answer. The provider
 * removes a resource from state ("not found, removing from state") on more than a clean "not found":
 * a HeadBucket answered 403 (the scan role may not read the bucket) or a request that never reached
 * the API (a dead endpoint, DNS, a proxy) ends the same way, and the refresh-only plan reports the
 * resource as deleted outside Terraform. Only the log tells the two apart.
 */
export interface FailedRead {
  /** `S3/HeadBucket`, or the HTTP method and host of a request that was never answered. */
  operation: string;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** The API's error code (`Forbidden`, `AccessDenied`; '' when none) or the network error. */
  error: string;
}

/** Answers that do not prove absence: no answer, not allowed to look, throttled, or the API failing. */
function unreliable(status: number): boolean {
  return status === 0 || status === 401 || status === 403 || status === 429 || status >= 500;
}

const UNRETRYABLE = /request failed with unretryable error https response error StatusCode: (\d+),/;
const NETWORK =
  /networking error: https response error StatusCode: 0,.*?request send failed, (\w+) "(\w+:\/\/[^/"]+)[^"]*": (.*)$/;

/**
 * The failed reads in the lines of a provider log (TF_LOG_PROVIDER=DEBUG), each once. Only codes,
 * operation names and network errors are taken from a line: the log also holds request and response
 * bodies, which can carry secrets, and none of that text is kept.
 */
export function failedReadsIn(lines: Iterable<string>): FailedRead[] {
  const found = new Map<string, FailedRead>();
  const add = (read: FailedRead) => found.set(`${read.operation} ${read.status} ${read.error}`, read);
  for (const line of lines) {
    const unretryable = UNRETRYABLE.exec(line);
    if (unretryable) {
      const status = Number(unretryable[1]);
      if (!unreliable(status)) continue;
      const service = /\brpc\.service=([\w.-]+)/.exec(line)?.[1];
      const method = /\brpc\.method=([\w.-]+)/.exec(line)?.[1];
      const code = /\bapi error ([\w.-]+)/.exec(line)?.[1] ?? '';
      add({ operation: service && method ? `${service}/${method}` : 'an AWS API call', status, error: code });
      continue;
    }
    const network = NETWORK.exec(line);
    if (network) {
      // `dial tcp 127.0.0.1:1: connect: connection refused`: the Go error, without the request's path.
      const error = network[3]!.trim().slice(0, 200);
      add({ operation: `${network[1]!.toUpperCase()} ${network[2]}`, status: 0, error });
    }
  }
  return [...found.values()];
}

/** `S3/HeadBucket: HTTP 403 Forbidden`, `HEAD http://10.0.0.1:443: dial tcp …: i/o timeout` (the first five). */
export function describeFailedReads(reads: readonly FailedRead[]): string {
  const shown = reads
    .slice(0, 5)
    .map((read) =>
      read.status === 0
        ? `${read.operation}: ${read.error}`
        : `${read.operation}: HTTP ${read.status}${read.error ? ` ${read.error}` : ''}`,
    );
  return `${shown.join('; ')}${reads.length > 5 ? `; and ${reads.length - 5} more` : ''}`;
}
