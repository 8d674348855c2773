import { redactText } from '../redaction/secrets.js';
import type { ReadFailure } from './ports.js';
import { shellWord } from './rule.js';

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
  | 'not-bucket-owner'
  | 'kms-key'
  | 'customer-key'
  | 'archived'
  | 'throttled'
  | 'not-aws'
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

/** The error name of a failure of the proxy itself (unreachable, refusing, silent), not of the endpoint behind it. */
export const PROXY_TUNNEL_ERROR = 'ProxyTunnelError';

export function classifyReadFailure(failure: ReadFailure): FailureCause {
  const { code, action, resource } = failure;
  const names = [code, failure.errorName ?? ''];
  const is = (set: ReadonlySet<string>) => names.some((name) => set.has(name));
  const where = failure.endpoint ?? 'the AWS endpoint';

  // The proxy of HTTPS_PROXY failed (adapters/https-proxy.ts): its message names the proxy, never its password.
  if (failure.errorName === PROXY_TUNNEL_ERROR)
    return {
      kind: 'unreachable',
      summary: failure.message,
      advice:
        'Check HTTPS_PROXY and NO_PROXY: the proxy must be reachable from here and allow CONNECT to the endpoint (port 443); an endpoint reached without it goes in NO_PROXY.',
    };
  if (is(CONNECTION_REFUSED)) return unreachable(`connection refused to ${where}`, failure.endpoint);
  if (is(NO_DNS)) return unreachable(`cannot resolve the host of ${where} (${code})`, failure.endpoint);
  if (is(TIMEOUT)) return unreachable(`no answer from ${where} (timeout)`, failure.endpoint);
  if (is(NO_ROUTE)) return unreachable(`cannot connect to ${where} (${code})`, failure.endpoint);
  if (is(NO_CREDENTIALS))
    return {
      kind: 'no-credentials',
      summary: 'no AWS credentials found (CredentialsProviderError)',
      advice: failure.profile
        ? profileAdvice(failure.profile)
        : "Give driftwatch credentials through the AWS SDK's own chain: AWS_PROFILE (after `aws sso login`), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the Lambda or instance role; a registry workspace's roleArn is assumed with them.",
    };
  // An answer that did not come from AWS: a proxy's HTML page, another service at that address, a
  // bare status without a request id. Its 404 says nothing about the bucket (it was "does not
  // exist: fix the registry" when AWS_ENDPOINT_URL pointed at a web server).
  if (
    failure.httpStatus !== undefined &&
    (failure.bareStatus ||
      /^(Unknown|UnknownError|Error)$/.test(code) ||
      /XML parse error|Deserialization error/i.test(failure.message))
  ) {
    const service = action.startsWith('s3:') ? 'S3' : 'AWS';
    return {
      kind: 'not-aws',
      summary: `HTTP ${failure.httpStatus} from ${where} on ${action}, not an answer ${service} gives`,
      advice: `Check what answers at ${where} (a proxy, a captive portal, another service on that port, AWS_ENDPOINT_URL): the answer had no ${service} error code${failure.bareStatus ? ' and no AWS request id' : ''} in it.${failure.httpStatus >= 500 ? ' A server error may pass: the next scan tries again.' : ''}`,
    };
  }
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
  const kms = kmsCause(failure);
  if (kms) return kms;
  const unservable = objectNotServedCause(failure);
  if (unservable) return unservable;
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
  // S3 answers GetBucketPolicy only to identities of the bucket owner's account: any other account's
  // role gets 405 MethodNotAllowed, whatever IAM and the bucket policy allow (a central state bucket
  // read with a workload account's role). No permission fixes it and no retry will pass.
  if (action === 's3:GetBucketPolicy' && (code === 'MethodNotAllowed' || failure.httpStatus === 405)) {
    const bucket = resource.match(/^s3:\/\/([^/]+)/)?.[1] ?? '<bucket>';
    return {
      kind: 'not-bucket-owner',
      summary: `${code} on ${action}: not the bucket owner's account`,
      advice: `S3 gives a bucket's policy only to identities of the account that owns the bucket (HTTP 405 MethodNotAllowed to any other, whatever IAM allows), and the role driftwatch reads with (the registry workspace's roleArn, or the CLI's credentials) belongs to another account: check the policy with credentials of the owner account (\`driftwatch check-backend --bucket ${shellWord(bucket)}\`), or \`aws s3api get-bucket-policy --bucket ${shellWord(bucket)}\` there.`,
    };
  }
  if (DENIED.test(code)) {
    const objectRead = action.startsWith('s3:GetObject');
    return {
      kind: 'access-denied',
      summary: `${code} on ${action}`,
      advice: `Allow ${action} on ${resourceName(resource, action)} to the role driftwatch reads with (the registry workspace's roleArn, or the CLI's credentials), or remove the Deny that blocks it (bucket policy, SCP, permissions boundary)${objectRead ? '; for an object encrypted with SSE-KMS, S3 gives the same AccessDenied when the role may not use the key: allow kms:Decrypt on that key too (`aws s3api head-object` by an admin shows SSEKMSKeyId)' : ''}.`,
    };
  }
  if (is(THROTTLED))
    return {
      kind: 'throttled',
      summary: `${code} on ${action} (throttled)`,
      advice:
        'AWS throttled the reads: the next scan tries again; if it keeps happening, scan fewer buckets at once.',
    };
  return {
    kind: 'other',
    summary: /^(Error|UnknownError)$/.test(code)
      ? `${firstLine(redactText(failure.message), 80)} on ${action}`
      : `${code} on ${action}`,
    advice: `An unexpected error reading ${resource}: the next scan tries again; the detail has the full message.`,
  };
}

/** KMS's own errors, passed through by S3 when the object's key cannot be used. */
const KMS_STATES: Record<string, { what: string; fix: (key: string) => string }> = {
  'KMS.DisabledException': {
    what: 'is disabled',
    fix: (key) =>
      `Enable the key (aws kms enable-key --key-id ${key}) if it was disabled by mistake; Terraform cannot read the state either until it is.`,
  },
  'KMS.KMSInvalidStateException': {
    what: 'is pending deletion or not usable',
    fix: (key) =>
      `Cancel its deletion if it was scheduled by mistake (aws kms cancel-key-deletion --key-id ${key}, then enable-key); Terraform cannot read the state either until it is usable.`,
  },
  'KMS.NotFoundException': {
    what: 'does not exist (deleted, or in another account or region)',
    fix: () =>
      'The key the state was encrypted with is gone: the state versions written with it cannot be decrypted by anyone; restore from a version written with another key and re-encrypt, or import the key material again if it was imported.',
  },
};

/**
 * A state object whose SSE-KMS key the scanner may not use, or that cannot be used at all: the
 * cause is the key, and the fix is on the key (kms:Decrypt on its ARN, or its state), never
 * "no state". S3 names the key in KMS errors; a plain AccessDenied names nothing, so the bucket's
 * default key (`kmsKeyId`, when the caller knows it) is named as the likely one.
 */
function kmsCause(failure: ReadFailure): FailureCause | undefined {
  const { code, action, message } = failure;
  const fromKms = /^KMS\./.test(code) || /\bkms:|\bKMS\b|customer master key/i.test(message);
  const deniedWithKmsBucket =
    failure.kmsKeyId !== undefined && action.startsWith('s3:GetObject') && DENIED.test(code);
  if (!fromKms && !deniedWithKmsBucket) return undefined;
  const named = message.match(/arn:aws[\w-]*:kms:[a-z0-9-]+:\d{12}:(?:key|alias)\/[\w/-]+/)?.[0];
  const key = named ?? (failure.kmsKeyId || undefined);
  const keyName = key
    ? /:key\//.test(key)
      ? key
      : `the key behind ${key} (aws kms describe-key --key-id ${key} shows its ARN)`
    : "the bucket's KMS key (the AWS managed key aws/s3 when the bucket names none; it cannot be shared with another account)";
  const state = KMS_STATES[code];
  if (state) {
    const id = key ?? '<key ARN>';
    return {
      kind: 'kms-key',
      summary: `the KMS key of the state ${state.what} (${code}) on ${action}`,
      advice: state.fix(id),
    };
  }
  const certain = fromKms
    ? ''
    : ' (S3 answers a missing kms:Decrypt with the same AccessDenied as a missing s3:GetObject)';
  return {
    kind: 'kms-key',
    summary: fromKms
      ? `${code} using the KMS key of the state on ${action}`
      : `${code} on ${action} of an SSE-KMS object: ${action} or kms:Decrypt on its key`,
    advice: `Allow kms:Decrypt on ${keyName} to the role driftwatch reads with (its IAM policy, and the key policy for a key in another account), and ${action} on ${resourceName(failure.resource, action)}${certain}.`,
  };
}

/**
 * An object S3 keeps but will not serve to a plain GET, whoever asks and however often: one written
 * with a customer-provided key (SSE-C: the S3 backend's `sse_customer_key`), which S3 answers 400
 * InvalidRequest without the key, or one in an archive storage class (a lifecycle transition to
 * GLACIER or DEEP_ARCHIVE, an Intelligent-Tiering archive tier), which S3 answers 403
 * InvalidObjectState until it is restored. Neither is a permission to add or a fault the next scan
 * gets past ("an unexpected error … tries again" sent people to wait for a scan that never passes).
 */
function objectNotServedCause(failure: ReadFailure): FailureCause | undefined {
  const { code, action, resource, message } = failure;
  if (!action.startsWith('s3:GetObject')) return undefined;
  const where = resourceName(resource, action);
  if (code === 'InvalidRequest' && /stored using a form of Server Side Encryption/i.test(message))
    return {
      kind: 'customer-key',
      summary: `${code} on ${action}: the object is encrypted with a customer-provided key (SSE-C)`,
      advice: `${where} was written with a customer-provided key (SSE-C: the S3 backend's sse_customer_key, or AWS_SSE_CUSTOMER_KEY), and S3 returns such an object only to a request that carries the key; driftwatch holds no customer key, so no IAM permission or retry lets it read the object, and the checks that need its content cannot run. To have it checked, move the backend to SSE-KMS (kms_key_id instead of sse_customer_key): \`terraform state pull\` with the current settings, \`terraform init -reconfigure\` with the new ones, then \`terraform state push\`, after review.`,
    };
  if (code === 'InvalidObjectState') {
    const storageClass = failure.storageClass ?? 'an archive storage class';
    return {
      kind: 'archived',
      summary: `${code} on ${action}: the object is archived (${storageClass}) and must be restored before anyone can read it`,
      advice: `${where} is in ${storageClass}, where S3 serves no GET until the object is restored (Terraform cannot read it either): restore it (aws s3api restore-object; for GLACIER and DEEP_ARCHIVE with --restore-request Days=7,GlacierJobParameters={Tier=Standard}), copy it onto itself with --storage-class STANDARD once restored, and stop whatever put it there (a lifecycle rule, which backend.lifecycle-removes-state names, or an upload with --storage-class).`,
    };
  }
  return undefined;
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

/**
 * With AWS_PROFILE set the SDK reads that profile alone, and says "Could not load credentials from
 * any providers" alike for a name with a typo and for a profile whose SSO session ended.
 */
function profileAdvice(profile: string): string {
  const name = shellWord(profile);
  return `AWS_PROFILE is ${name} and gave no credentials: check that the profile exists (\`aws configure list-profiles\`) and, for SSO, log in to it (\`aws sso login --profile ${name}\`); or unset AWS_PROFILE to use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the instance role.`;
}
