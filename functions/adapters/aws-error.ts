import { classifyReadFailure } from '../core/backend/failure-cause.js';
import type { ReadFailure } from '../core/backend/ports.js';
import { configuredEndpoint } from './aws-endpoint.js';
import { readFailure } from './aws-read-failure.js';

/**
 * One line for a person out of an AWS SDK (or network) error that reached the CLI: the cause with
 * the SDK's error name and the endpoint it talked to, then the fix. The classification is the one
 * backend reads use (core/backend/failure-cause.ts); only names, codes, hosts and regions are
 * quoted, never request or response bodies.
 */

export interface AwsErrorContext {
  /** The environment the SDK read (AWS_ENDPOINT_URL*, AWS_REGION), to name the endpoint. */
  env?: NodeJS.ProcessEnv;
}

/** Whether the error came from the SDK or the network under it (and so has a known shape). */
export function isAwsError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const shape = error as { $metadata?: unknown; name?: unknown; code?: unknown; message?: unknown };
  return (
    shape.$metadata !== undefined ||
    shape.name === 'CredentialsProviderError' ||
    shape.name === 'TimeoutError' ||
    // A network error (connect, getaddrinfo); a local file's error (open, mkdir, scandir) has a path.
    (typeof shape.code === 'string' &&
      /^E[A-Z_]+$/.test(shape.code) &&
      'syscall' in shape &&
      !('path' in shape)) ||
    shape.message === 'Region is missing'
  );
}

/** The one line, or undefined when the error is not an AWS or network error. */
export function describeAwsError(error: unknown, context: AwsErrorContext = {}): string | undefined {
  if (!isAwsError(error)) return undefined;
  const env = context.env ?? {};
  const failure = readFailure('the AWS resource', 'this request', error, env);
  let cause = classifyReadFailure(failure);
  // A timeout carries no address, nor does an answer: it is the endpoint the SDK was configured to talk to.
  if ((cause.kind === 'unreachable' || cause.kind === 'not-aws') && failure.endpoint === undefined)
    cause = classifyReadFailure({ ...failure, endpoint: configuredEndpoint(env) });
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  // A network failure, or an answer not from AWS, names its host in the summary; any other answer
  // came from the configured endpoint.
  const answered = !['unreachable', 'no-credentials', 'no-region', 'not-aws'].includes(cause.kind);
  const where = answered ? ` (${status ? `HTTP ${status} ` : ''}from ${configuredEndpoint(env)})` : '';
  // The SDK's own name for it (ECONNREFUSED, NoSuchBucket), so it can be searched for.
  const generic = /^(Error|UnknownError)$/.test(failure.code);
  const named = generic || cause.summary.includes(failure.code) ? '' : ` (${failure.code})`;
  return `${cause.summary}${named}${where}: ${ADVICE[cause.kind]?.(failure) ?? cause.advice}`;
}

/**
 * Advice where the backend wording (registry fields of a state bucket) does not fit an error that
 * reached the CLI, which is mostly about the findings store or the bucket a command names.
 */
const ADVICE: Partial<
  Record<ReturnType<typeof classifyReadFailure>['kind'], (failure: ReadFailure) => string>
> = {
  'no-such-bucket': () =>
    'check the bucket name (--store, DRIFTWATCH_STORE, --bucket or the registry), the account the credentials belong to, and AWS_ENDPOINT_URL',
  'not-found': () => 'check the names given (--store, --bucket, the registry) and AWS_ENDPOINT_URL',
  'access-denied': () =>
    'the credentials (or the role they assume) lack a read permission for this call: grant it, or use credentials that have it (`aws sts get-caller-identity` shows whose they are)',
  // The store commands (findings, report, suppress, remediate) take neither backend.region nor
  // --region: the SDK's own AWS_REGION sets their region.
  'no-region': () => regionAdvice(''),
  'wrong-region': ({ bucketRegion }) =>
    bucketRegion
      ? `set AWS_REGION=${bucketRegion}, the bucket's region; check-backend, locks and init also take --region ${bucketRegion}`
      : regionAdvice(' (`aws s3api get-bucket-location --bucket <bucket>` names it)'),
  other: () => 'run again with --debug for the full error',
};

function regionAdvice(howToFind: string): string {
  return `set AWS_REGION to the bucket's region${howToFind} (AWS_DEFAULT_REGION or the AWS profile's region also do); check-backend, locks and init also take --region`;
}
