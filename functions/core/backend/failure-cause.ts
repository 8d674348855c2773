import { redactText } from '../redaction/secrets.js';
import type { ReadFailure } from './ports.js';

/**
 * Why a backend read failed, in words a person can act on. The AWS error code alone ("Error",
 * "UnknownError") says nothing when the endpoint is down or no credentials were found; the
 * classification looks at the network code, the SDK's error name and the HTTP answer the reader
 * recorded, and each kind comes with the fix for that kind (never "look at the error above").
 */
export type FailureCauseKind =
  | 'unreachable'
  | 'no-credentials'
  | 'rejected-credentials'
  | 'no-region'
  | 'wrong-region'
  | 'no-such-bucket'
  | 'not-found'
  | 'access-denied'
  | 'throttled'
  | 'other';

export interface FailureCause {
  kind: FailureCauseKind;
  /** One line, stable from run to run (it becomes part of a title): "AccessDenied on s3:GetBucketPolicy". */
  summary: string;
  /** What to change so the next scan can read it. */
  advice: string;
}

const CONNECTION_REFUSED = new Set(['ECONNREFUSED']);
const NO_DNS = new Set(['ENOTFOUND', 'EAI_AGAIN']);
const TIMEOUT = new Set(['ETIMEDOUT', 'TimeoutError', 'ESOCKETTIMEDOUT', 'RequestTimeout']);
const NO_ROUTE = new Set(['ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED', 'EPROTO']);
const NO_CREDENTIALS = new Set(['CredentialsProviderError']);
const REJECTED_CREDENTIALS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidToken',
  'TokenRefreshRequired',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'RequestTimeTooSkewed',
]);
const WRONG_REGION = new Set([
  'PermanentRedirect',
  'TemporaryRedirect',
  'Redirect',
  'AuthorizationHeaderMalformed',
  'IllegalLocationConstraintException',
]);
const DENIED = /denied|forbidden|unauthori[sz]ed/i;
const THROTTLED = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  'ServiceUnavailable',
]);

export function classifyReadFailure(failure: ReadFailure): FailureCause {
  const { code, action, resource } = failure;
  const names = [code, failure.errorName ?? ''];
  const is = (set: ReadonlySet<string>) => names.some((name) => set.has(name));
  const where = failure.endpoint ?? 'the AWS endpoint';

  if (is(CONNECTION_REFUSED)) return unreachable(`connection refused to ${where}`, failure.endpoint);
  if (is(NO_DNS)) return unreachable(`cannot resolve the host of ${where} (${code})`, failure.endpoint);
  if (is(TIMEOUT)) return unreachable(`no answer from ${where} (timeout)`, failure.endpoint);
  if (is(NO_ROUTE)) return unreachable(`cannot connect to ${where} (${code})`, failure.endpoint);
  if (is(NO_CREDENTIALS))
    return {
      kind: 'no-credentials',
      summary: 'no AWS credentials found (CredentialsProviderError)',
      advice:
        "Give driftwatch credentials through the AWS SDK's own chain: AWS_PROFILE (after `aws sso login`), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the Lambda or instance role; a registry workspace's roleArn is assumed with them.",
    };
  if (is(REJECTED_CREDENTIALS))
    return {
      kind: 'rejected-credentials',
      summary: `credentials rejected (${code})`,
      advice:
        'Refresh or replace the credentials (an expired session, a deleted key, a wrong secret or a skewed clock); `aws sts get-caller-identity` shows what the SDK chain finds.',
    };
  if (/region not accepted/i.test(failure.message))
    return {
      kind: 'no-region',
      summary: 'the region configured is not an AWS region (Region not accepted)',
      advice:
        "Name the bucket's region as AWS writes it (eu-west-1): backend.region in the registry, --region, or AWS_REGION.",
    };
  if (/region is missing/i.test(failure.message))
    return {
      kind: 'no-region',
      summary: 'no AWS region configured (Region is missing)',
      advice: "Name the bucket's region: backend.region in the registry, --region, or AWS_REGION.",
    };
  if (
    is(WRONG_REGION) ||
    (failure.bucketRegion !== undefined && /^(BadRequest|MovedPermanently)$/.test(code))
  ) {
    const region = failure.bucketRegion;
    return {
      kind: 'wrong-region',
      summary: region
        ? `the bucket is in ${region}, not the region configured (${code})`
        : `the bucket is in another region than the one configured (${code})`,
      advice: region
        ? `Set the bucket's region: backend.region: ${region} in the registry, or --region ${region}.`
        : "Set the bucket's region (backend.region in the registry, or --region): `aws s3api get-bucket-location` names it.",
    };
  }
  if (code === 'NoSuchBucket')
    return {
      kind: 'no-such-bucket',
      summary: 'the bucket does not exist (NoSuchBucket)',
      advice:
        'Check the bucket name and the account the credentials belong to: fix backend.bucket in the registry (or --bucket), or remove the workspaces that point there.',
    };
  if (/NoSuch|NotFound/i.test(code))
    return {
      kind: 'not-found',
      summary: `${resource} does not exist (${code})`,
      advice: `${resource} does not exist: fix the registry (the backend's bucket, key, lockTable or region), or remove the workspaces that point there.`,
    };
  if (DENIED.test(code))
    return {
      kind: 'access-denied',
      summary: `${code} on ${action}`,
      advice: `Allow ${action} on ${resourceName(resource, action)} to the role driftwatch reads with (the registry workspace's roleArn, or the CLI's credentials), or remove the Deny that blocks it (bucket policy, SCP, permissions boundary).`,
    };
  if (is(THROTTLED))
    return {
      kind: 'throttled',
      summary: `${code} on ${action} (throttled)`,
      advice:
        'AWS throttled the reads: the next scan tries again; if it keeps happening, scan fewer buckets at once.',
    };
  // An answer without an S3 error in it: a proxy's HTML page, another service at that address.
  if (
    failure.httpStatus !== undefined &&
    (/^(Unknown|UnknownError|Error)$/.test(code) ||
      /XML parse error|Deserialization error/i.test(failure.message))
  ) {
    const where = failure.endpoint ?? 'the AWS endpoint';
    return {
      kind: 'other',
      summary: `HTTP ${failure.httpStatus} from ${where} on ${action}, not an answer S3 gives`,
      advice: `Check what answers at ${where} (a proxy, a captive portal, another service on that port, AWS_ENDPOINT_URL): the answer had no S3 error code in it.${failure.httpStatus >= 500 ? ' A server error may pass: the next scan tries again.' : ''}`,
    };
  }
  return {
    kind: 'other',
    summary: /^(Error|UnknownError)$/.test(code)
      ? `${firstLine(redactText(failure.message), 80)} on ${action}`
      : `${code} on ${action}`,
    advice: `An unexpected error reading ${resource}: the next scan tries again; the detail has the full message.`,
  };
}

/** Log fields for a bucket whose preflight failed (the cause, one line), or none. */
export function notChecked(preflight: ReadFailure | undefined): { notChecked?: string } {
  return preflight ? { notChecked: classifyReadFailure(preflight).summary } : {};
}

function unreachable(summary: string, endpoint: string | undefined): FailureCause {
  const target = endpoint ? ` (${endpoint})` : '';
  return {
    kind: 'unreachable',
    summary,
    advice: `Check where the SDK sends requests${target}: driftwatch uses the SDK's own endpoint settings (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3 or endpoint_url in the profile); unset them for AWS or start the service they name, then check the network path (DNS, proxy, VPC endpoint) from where the scan runs.`,
  };
}

/**
 * The name an IAM policy grants the action on: object reads on the object's ARN, everything else
 * (listings, bucket settings) on the bucket's, or the table's name.
 */
function resourceName(resource: string, action: string): string {
  const s3 = resource.match(/^s3:\/\/([^/]+)\/?(.*)$/);
  if (s3)
    return s3[2] && action.startsWith('s3:GetObject')
      ? `arn:aws:s3:::${s3[1]}/${s3[2]}`
      : `arn:aws:s3:::${s3[1]}`;
  const table = resource.match(/^dynamodb:(.+)$/);
  return table ? `the DynamoDB table ${table[1]}` : resource;
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n')[0]?.trim() || 'no message';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
