import type { BucketSettings, PublicGrant } from './settings.js';

/**
 * What the backend and lock checks read, behind a narrow port: S3 and DynamoDB in AWS, plain
 * objects in unit tests. Every method reads; nothing here can create, change or delete anything.
 */
export interface BackendReader {
  /**
   * One cheap read (a one-key listing under `prefix`, the permission the checks need anyway)
   * before anything else: when it fails, the cause concerns the whole bucket (endpoint,
   * credentials, region, a missing bucket) and no rule is run. Throws BackendReadError.
   */
  preflight(bucket: string, prefix: string): Promise<void>;
  /** Every object under a prefix, one ListObjectsV2 page (up to 1,000 keys) at a time. */
  listObjects(bucket: string, prefix: string): AsyncIterable<BackendObject>;
  /** The bucket's versioning, encryption, public access block, policy, ownership and lifecycle. */
  bucketSettings(bucket: string): Promise<BucketSettings>;
  /** Versions and delete markers of exactly this key, newest first, at most about `limit` of them. */
  recentVersions(bucket: string, key: string, limit: number): Promise<ObjectVersionRef[]>;
  /**
   * An object's body (one version of it when `versionId` is given); undefined when it is gone.
   * Throws ObjectTooLargeError, without reading the body, when it is larger than `maxBytes`.
   */
  readObject(bucket: string, key: string, versionId?: string, maxBytes?: number): Promise<string | undefined>;
  /**
   * The first `bytes` bytes of an object (of one version of it when `versionId` is given), by a
   * Range GET: the rest of the object is never transferred, whatever its size. Undefined when it
   * is gone.
   */
  readObjectStart(
    bucket: string,
    key: string,
    versionId: string | undefined,
    bytes: number,
  ): Promise<ObjectStart | undefined>;
  /** The last `bytes` bytes of an object (a suffix Range GET); undefined when it is gone. */
  readObjectEnd(
    bucket: string,
    key: string,
    versionId: string | undefined,
    bytes: number,
  ): Promise<string | undefined>;
  /**
   * The grants of an object's ACL (of one version when `versionId` is given) to everyone (AllUsers)
   * or to any AWS account (AuthenticatedUsers); undefined when the object or version is gone.
   */
  objectPublicGrants(
    bucket: string,
    key: string,
    versionId: string | undefined,
  ): Promise<PublicGrant[] | undefined>;
  /** The lock and digest items of one bucket in a legacy DynamoDB lock table. */
  lockTableItems(table: string, bucket: string): Promise<LockTableItem[]>;
}

export interface BackendObject {
  key: string;
  size: number;
  lastModified?: Date;
  /** Equal ETags of one key mean equal bodies: a lock seen twice with one ETag is read once. */
  etag?: string;
}

export interface ObjectStart {
  /** The bytes read, as UTF-8 (a character cut at the end of the range reads as U+FFFD). */
  text: string;
  /** The size of the whole object. */
  totalBytes: number;
  /** The text is the whole object. */
  complete: boolean;
  /** The server-side encryption S3 reports for the object (`AES256`, `aws:kms`, `aws:kms:dsse`), if any. */
  encryption?: string;
  /** The KMS key of an SSE-KMS object (its ARN), as S3 reports it. */
  kmsKeyId?: string;
}

export interface ObjectVersionRef {
  versionId: string;
  lastModified?: Date;
  deleteMarker: boolean;
}

/** One item of a Terraform DynamoDB lock table: a lock (`Info`) or a state digest (`-md5`, `Digest`). */
export interface LockTableItem {
  lockId: string;
  info?: string;
  /** The DynamoDB type (`N`, `M`…) of an `Info` that is not a string (`info` is then unset). */
  infoType?: string;
  digest?: string;
}

/** Something the scanner could not read, and the IAM action that read needs. */
export interface ReadFailure {
  /** e.g. `s3://tfstate/payments/terraform.tfstate`, `dynamodb:tf-locks` */
  resource: string;
  action: string;
  /**
   * AWS error code (AccessDenied, NoSuchBucket, ResourceNotFoundException), or the network code
   * when no answer came (ECONNREFUSED, ENOTFOUND).
   */
  code: string;
  message: string;
  /** The SDK's error name when it says more than the code (CredentialsProviderError, TimeoutError). */
  errorName?: string;
  /** Where the request went (`http://127.0.0.1:4566`), when known. */
  endpoint?: string;
  /** The bucket's region, when a redirect or a region error names it. */
  bucketRegion?: string;
  /** The HTTP status of an answer that came (absent when nothing answered). */
  httpStatus?: number;
  /**
   * The answer was a bare HTTP status: no error code in it and no AWS request id, which every answer
   * of AWS (and of moto, MinIO, LocalStack) carries. Something else answered: a proxy, another
   * server at AWS_ENDPOINT_URL. Its 404 says nothing about the bucket.
   */
  bareStatus?: true;
  /**
   * The SSE-KMS key the bucket encrypts new objects with (GetBucketEncryption's KMSMasterKeyID:
   * an ARN, a key id or an alias; empty for the AWS managed key aws/s3), for an object read that
   * failed: S3 answers a missing kms:Decrypt with the same AccessDenied as a missing s3:GetObject.
   */
  kmsKeyId?: string;
  /**
   * The storage class S3 names when it refuses to serve an archived object (InvalidObjectState):
   * `GLACIER`, `DEEP_ARCHIVE`, or `INTELLIGENT_TIERING (ARCHIVE_ACCESS)` with its access tier.
   */
  storageClass?: string;
  /**
   * The AWS_PROFILE the SDK read when no credentials came: it looks at that profile alone, so the
   * profile (a typo, an SSO session that ended) is where to look, not the whole chain.
   */
  profile?: string;
}

export class BackendReadError extends Error {
  constructor(
    readonly failure: ReadFailure,
    options?: { cause?: unknown },
  ) {
    super(`${failure.code} reading ${failure.resource} (${failure.action}): ${failure.message}`, options);
    this.name = 'BackendReadError';
  }
}

/**
 * An object larger than its reader takes: anyone who can write the bucket can put a 600 MB `.tflock`
 * there, and reading it whole aborted the check (V8 strings end at ~512 MiB) or took gigabytes.
 */
export class ObjectTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`the object is ${bytes} bytes, more than the ${maxBytes} driftwatch reads`);
    this.name = 'ObjectTooLargeError';
  }
}

/** A read that may have failed; rules that need a failed read are skipped and the failure reported. */
export type Observed<T> = { ok: true; value: T } | { ok: false; failure: ReadFailure };

export function readable<T>(observed: Observed<T>): T | undefined {
  return observed.ok ? observed.value : undefined;
}
