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

/** The findings bucket. Conditional writes use S3's If-Match / If-None-Match on PutObject. */
export function createS3ObjectStore(
  s3: S3Client,
  bucket: string,
  options: { kmsKeyId?: string } = {},
): ObjectStore {
  return {
    location: `s3://${bucket}/`,

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
      try {
        const response = await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentType: putOptions.contentType ?? contentTypeOf(key),
            IfMatch: putOptions.ifMatch,
            IfNoneMatch: putOptions.ifNoneMatch,
            ...(options.kmsKeyId ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: options.kmsKeyId } : {}),
          }),
        );
        return { etag: response.ETag ?? '' };
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        // 412: the condition failed; 409: a concurrent conditional write won the race.
        if (status === 412 || status === 409) throw new PreconditionFailedError(key);
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    async *list(prefix: string): AsyncIterable<ListedObject> {
      let continuationToken: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: continuationToken }),
        );
        for (const object of page.Contents ?? []) {
          if (object.Key)
            yield { key: object.Key, size: object.Size ?? 0, lastModified: object.LastModified };
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
