import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  type ListedObject,
  type ObjectStore,
  PreconditionFailedError,
  type PutOptions,
  type StoredObject,
} from '../../core/findings/object-store.js';
import { isNoSuchKey } from '../s3-bundle.js';
import { listedKey, URL_ENCODED_LISTING } from '../s3-list-encoding.js';
import { bucketLocation } from './location.js';

export interface S3ObjectStoreOptions {
  kmsKeyId?: string;
  /** Backoff of a write S3 answered with 409 ConditionalRequestConflict. */
  conflicts?: { baseMs?: number; capMs?: number; totalMs?: number };
  sleep?: (ms: number) => Promise<void>;
  /** [0, 1): the jitter; injected so tests see the delays. */
  random?: () => number;
}

/** A conditional write that kept colliding with concurrent ones for longer than the retry budget. */
export class StoreConflictError extends Error {
  constructor(location: string, attempts: number, budgetMs: number, options?: { cause?: unknown }) {
    super(
      `${location}: S3 kept answering 409 ConditionalRequestConflict (another writer of the same key) ` +
        `for ${attempts} attempts over ${Math.round(budgetMs / 1000)}s: run again once the other writer is done`,
      options,
    );
    this.name = 'StoreConflictError';
  }
}

/**
 * The findings bucket. Conditional writes use S3's If-Match / If-None-Match on PutObject (and
 * If-Match on DeleteObject). 412 means the condition no longer holds: the caller re-reads. 409 means
 * a concurrent conditional write of the same key was in flight: the same request is retried with
 * full-jitter backoff (a retry whose condition has meanwhile failed gets its 412), within a bounded
 * total delay, then fails with StoreConflictError naming the key.
 */
export function createS3ObjectStore(
  s3: S3Client,
  bucket: string,
  options: S3ObjectStoreOptions = {},
): ObjectStore {
  const baseMs = options.conflicts?.baseMs ?? 50;
  const capMs = options.conflicts?.capMs ?? 2_000;
  const totalMs = options.conflicts?.totalMs ?? 15_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;

  async function conditional<T>(key: string, send: () => Promise<T>): Promise<T> {
    let slept = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 412) throw new PreconditionFailedError(key);
        if (status !== 409) throw error;
        if (slept >= totalMs)
          throw new StoreConflictError(`${bucketLocation(bucket)}${key}`, attempt, totalMs, { cause: error });
        const delay = Math.min(totalMs - slept, random() * Math.min(capMs, baseMs * 2 ** (attempt - 1)));
        slept += Math.max(delay, 1);
        await sleep(delay);
      }
    }
  }

  return {
    location: bucketLocation(bucket),

    async get(key: string): Promise<StoredObject | undefined> {
      try {
        const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return { body: (await response.Body?.transformToString('utf8')) ?? '', etag: response.ETag ?? '' };
      } catch (error) {
        if (isNoSuchKey(error)) return undefined;
        throw error;
      }
    },

    async put(key: string, body: string, putOptions: PutOptions = {}): Promise<{ etag: string }> {
      return conditional(key, async () => {
        const response = await s3
          .send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: key,
              Body: body,
              ContentType: putOptions.contentType ?? contentTypeOf(key),
              IfMatch: putOptions.ifMatch,
              IfNoneMatch: putOptions.ifNoneMatch,
              ...(options.kmsKeyId ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: options.kmsKeyId } : {}),
            }),
          )
          .catch((error: unknown) => {
            // If-Match on a key that is gone is 404 NoSuchKey in S3, not 412: the version read is no
            // longer there, an unmet condition like any other (the caller reads again). Passed on raw,
            // a compare-and-swap racing a delete (a quarantine by another run) stopped the run.
            if (putOptions.ifMatch !== undefined && isNoSuchKey(error))
              throw new PreconditionFailedError(key);
            throw error;
          });
        return { etag: response.ETag ?? '' };
      });
    },

    async delete(key: string, deleteOptions: { ifMatch?: string } = {}): Promise<void> {
      try {
        await conditional(key, () =>
          s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, IfMatch: deleteOptions.ifMatch })),
        );
      } catch (error) {
        // With If-Match, a key that is already gone is a 404: gone is what was asked for.
        if (!isNoSuchKey(error) && (error as { name?: string }).name !== 'NotFound') throw error;
      }
    },

    async *list(prefix: string): AsyncIterable<ListedObject> {
      let continuationToken: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: prefix,
            ContinuationToken: continuationToken,
            ...URL_ENCODED_LISTING,
          }),
        );
        for (const object of page.Contents ?? []) {
          const key = listedKey(object.Key, page.EncodingType);
          if (key) yield { key, size: object.Size ?? 0, lastModified: object.LastModified };
        }
        continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (continuationToken);
    },
  };
}

function contentTypeOf(key: string): string {
  if (key.endsWith('.jsonl')) return 'application/x-ndjson';
  if (key.endsWith('.json')) return 'application/json';
  return 'application/octet-stream';
}
