import type { ReadFailure } from '../core/backend/ports.js';
import { AWS_REGION } from '../core/registry/formats.js';

// What a failed AWS SDK call says about its cause, read from the error object alone: no SDK client is
// imported here, so the CLI's error reporter describes AWS errors without loading the SDK.

/**
 * What a failed SDK call tells about its cause, as plain facts for the core's classifier: the code
 * (or the network code when nothing answered), the SDK's error name, where the request went, and
 * the bucket's region when a redirect or a region error names it.
 */
export function readFailure(
  resource: string,
  action: string,
  error: unknown,
  env: NodeJS.ProcessEnv = process.env,
): ReadFailure {
  const failure: ReadFailure = { resource, action, code: errorCode(error), message: errorMessage(error) };
  const name = (error as { name?: unknown } | undefined)?.name;
  if (typeof name === 'string' && name !== '') failure.errorName = name;
  if (name === 'CredentialsProviderError' && env.AWS_PROFILE) failure.profile = env.AWS_PROFILE;
  const endpoint = networkEndpoint(error);
  if (endpoint) failure.endpoint = endpoint;
  const region = bucketRegion(error);
  if (region) failure.bucketRegion = region;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata
    ?.httpStatusCode;
  if (typeof status === 'number') failure.httpStatus = status;
  if (typeof status === 'number' && isBareStatus(error)) failure.bareStatus = true;
  const storageClass = archiveStorageClass(error);
  if (storageClass) failure.storageClass = storageClass;
  return failure;
}

/**
 * S3's InvalidObjectState error names the storage class (and, for Intelligent-Tiering, the access
 * tier) of an object it will not serve until restored; the SDK puts them on the error.
 */
function archiveStorageClass(error: unknown): string | undefined {
  const { StorageClass, AccessTier } = (error ?? {}) as { StorageClass?: unknown; AccessTier?: unknown };
  const word = (value: unknown) =>
    typeof value === 'string' && /^[A-Z_]{1,40}$/.test(value) ? value : undefined;
  const storageClass = word(StorageClass);
  if (storageClass === undefined) return undefined;
  const tier = word(AccessTier);
  return tier ? `${storageClass} (${tier})` : storageClass;
}

/**
 * An answer with neither an error code of its own (an S3 error body's Code; HEAD answers have no
 * body, so the SDK names them after the status) nor the request id every AWS answer carries
 * (x-amz-request-id, x-amzn-RequestId; moto, MinIO and LocalStack send one too).
 */
function isBareStatus(error: unknown): boolean {
  const { Code, name, $metadata, $response } = (error ?? {}) as {
    Code?: unknown;
    name?: unknown;
    $metadata?: { requestId?: unknown };
    $response?: { headers?: Record<string, unknown> };
  };
  const namedByStatus = typeof name !== 'string' || name === 'NotFound' || GENERIC_CODE.test(name);
  // Any x-amz header (x-amz-bucket-region on a redirect, x-amz-id-2) is S3 speaking too.
  const awsHeaders = Object.keys($response?.headers ?? {}).some((header) => /^x-amzn?-/i.test(header));
  return Code === undefined && namedByStatus && !$metadata?.requestId && !awsHeaders;
}

/** `127.0.0.1:4566` for a refused or timed-out connection, the host name for a failed DNS lookup. */
function networkEndpoint(error: unknown): string | undefined {
  const { address, port, hostname } = (error ?? {}) as {
    address?: unknown;
    port?: unknown;
    hostname?: unknown;
  };
  if (typeof address === 'string') return typeof port === 'number' ? `${address}:${port}` : address;
  return typeof hostname === 'string' ? hostname : undefined;
}

/** S3 names the bucket's region in a header, in the error body, or in the message of a signing error. */
function bucketRegion(error: unknown): string | undefined {
  const fields = (error ?? {}) as {
    $response?: { headers?: Record<string, string | undefined> };
    Region?: unknown;
    Endpoint?: unknown;
    message?: unknown;
  };
  const candidates = [
    fields.$response?.headers?.['x-amz-bucket-region'],
    fields.Region,
    typeof fields.message === 'string' ? fields.message.match(/expecting '([a-z0-9-]+)'/)?.[1] : undefined,
    typeof fields.Endpoint === 'string'
      ? fields.Endpoint.match(/s3[.-]([a-z0-9-]+)\.amazonaws\./)?.[1]
      : undefined,
  ];
  return candidates.find((value): value is string => typeof value === 'string' && AWS_REGION.test(value));
}

/**
 * The AWS error code. S3 answers some errors without a code (HEAD-like responses, moto): the HTTP
 * status says it then. When nothing answered, Node's network code (ECONNREFUSED, ENOTFOUND).
 */
export function errorCode(error: unknown): string {
  const named = (error as { name?: string; Code?: string; code?: unknown }) ?? {};
  const code = named.Code ?? named.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (code && !GENERIC_CODE.test(code)) return code;
  if (typeof named.code === 'string' && /^E[A-Z_]+$/.test(named.code)) return named.code;
  const byStatus = status === undefined ? undefined : STATUS_CODES[status];
  if (byStatus) return byStatus;
  return code ?? 'UnknownError';
}

const GENERIC_CODE = /^(Unknown|Error|UnknownError|S3ServiceException|\d{3})$/;
const STATUS_CODES: Record<number, string> = {
  301: 'PermanentRedirect',
  307: 'TemporaryRedirect',
  400: 'BadRequest',
  403: 'AccessDenied',
  404: 'NotFound',
};

function errorMessage(error: unknown): string {
  const message = (error as Error)?.message;
  return message && message !== 'UnknownError' ? message : 'no message';
}
