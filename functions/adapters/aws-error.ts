/**
 * One line for a person out of an AWS SDK (or network) error: what failed, the SDK's error name,
 * the endpoint it talked to, and what to do about it. The CLI prints it instead of a stack trace.
 * Only names, codes, hosts and regions are quoted, never request or response bodies.
 */

export interface AwsErrorContext {
  /** The environment the SDK read (AWS_ENDPOINT_URL*, AWS_REGION), to name the endpoint. */
  env?: NodeJS.ProcessEnv;
  /** The S3 service id for AWS_ENDPOINT_URL_<SERVICE> (`S3`, `DYNAMODB`, `STS`...). */
  service?: string;
  /** The bucket the call was about, when known. */
  bucket?: string;
}

interface SdkErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  BucketName?: unknown;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

const REJECTED_CREDENTIALS: ReadonlySet<string> = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidToken',
  'TokenRefreshRequired',
]);

const WRONG_REGION: ReadonlySet<string> = new Set([
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
  'IllegalLocationConstraintException',
  'MovedPermanently',
]);

/** Whether the error came from the SDK or the network under it (and so has a known shape). */
export function isAwsError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const shape = error as SdkErrorShape;
  return (
    shape.$metadata !== undefined ||
    shape.name === 'CredentialsProviderError' ||
    shape.name === 'TimeoutError' ||
    (typeof shape.code === 'string' && NETWORK_CODES.has(shape.code)) ||
    (shape.name === 'Error' && shape.message === 'Region is missing')
  );
}

/** The one line, or undefined when the error is not an AWS or network error. */
export function describeAwsError(error: unknown, context: AwsErrorContext = {}): string | undefined {
  if (!isAwsError(error)) return undefined;
  const shape = error as SdkErrorShape;
  const env = context.env ?? {};
  const name = typeof shape.name === 'string' ? shape.name : 'Error';
  const message = firstLine(shape.message);
  const status = shape.$metadata?.httpStatusCode;
  const endpoint = endpointOf(shape, env, context.service);
  const at = `${status ? `HTTP ${status} ` : ''}at ${endpoint}`;
  const bucket = context.bucket ?? (typeof shape.BucketName === 'string' ? shape.BucketName : undefined);

  if (name === 'CredentialsProviderError') {
    return `no AWS credentials (CredentialsProviderError: ${message}): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run where a role is attached`;
  }
  if (message === 'Region is missing') {
    return 'no AWS region (Region is missing): set AWS_REGION (or pass --region where the command has it)';
  }
  const code = networkCode(shape);
  if (code !== undefined || name === 'TimeoutError') {
    const cause = code ?? name;
    return `cannot reach ${endpoint} (${cause}): check AWS_ENDPOINT_URL, the network and AWS_REGION`;
  }
  if (name === 'NoSuchBucket' || (status === 404 && bucket !== undefined && name === 'NotFound')) {
    return `bucket ${bucket ?? '(unnamed)'} does not exist (${name}, ${at}): check the bucket name, the account and AWS_ENDPOINT_URL`;
  }
  if (WRONG_REGION.has(name) || status === 301) {
    const expected = /expecting '([a-z0-9-]+)'/.exec(message)?.[1];
    const hint = expected ? `the bucket is in ${expected}: ` : '';
    return `${bucket ? `bucket ${bucket}` : 'the resource'} is in another region (${name}, ${at}): ${hint}set AWS_REGION${expected ? `=${expected}` : ''} or pass --region`;
  }
  if (REJECTED_CREDENTIALS.has(name)) {
    return `AWS rejected the credentials (${name}, ${at}): refresh them (aws sso login, new keys) or check AWS_PROFILE`;
  }
  if (name === 'AccessDenied' || name === 'AccessDeniedException' || status === 403) {
    return `access denied (${name}, ${at}): the credentials or role lack a read permission for this call${message ? ` (${message})` : ''}`;
  }
  return `AWS call failed (${name}, ${at})${message ? `: ${message}` : ''}`;
}

function networkCode(shape: SdkErrorShape): string | undefined {
  for (let current: unknown = shape, depth = 0; current && depth < 4; depth++) {
    const code = (current as SdkErrorShape).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as SdkErrorShape).cause;
  }
  return undefined;
}

/**
 * Where the call went: the host of a network error, else the endpoint the SDK was configured with
 * (AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL), else AWS in the configured region.
 */
function endpointOf(shape: SdkErrorShape, env: NodeJS.ProcessEnv, service: string | undefined): string {
  if (typeof shape.address === 'string')
    return typeof shape.port === 'number' ? `${shape.address}:${shape.port}` : shape.address;
  if (typeof shape.hostname === 'string') return shape.hostname;
  const configured = (service && env[`AWS_ENDPOINT_URL_${service}`]) || env.AWS_ENDPOINT_URL;
  if (configured) return configured;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  return region ? `AWS ${region}` : 'AWS';
}

function firstLine(value: unknown): string {
  if (typeof value !== 'string') return '';
  const line = value.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
