import {
  GetBucketLocationCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { BackendReadError } from '../../core/backend/ports.js';
import { DEFAULT_WORKSPACE_KEY_PREFIX, listingPrefixes } from '../../core/backend/target.js';
import { readFailure } from '../aws-read-failure.js';
import { listedKey, URL_ENCODED_LISTING } from '../s3-list-encoding.js';

/**
 * The keys of a state bucket for `driftwatch init`: ListObjectsV2 pages under the prefix and, with a
 * prefix, under `env:/` too (where the S3 backend keeps the states of CLI workspaces). Read-only:
 * the only calls are ListObjectsV2, GetBucketLocation and HeadBucket. A failed listing throws BackendReadError
 * (no such bucket, access denied, unreachable endpoint) with the SDK error as its cause.
 */
export async function listStateBucketKeys(s3: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys = new Set<string>();
  for (const listing of listingPrefixes({ prefix, workspaceKeyPrefixes: [DEFAULT_WORKSPACE_KEY_PREFIX] })) {
    let continuationToken: string | undefined;
    do {
      const page = await read(`s3://${bucket}/${listing}`, 's3:ListBucket', () =>
        s3.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: listing || undefined,
            ContinuationToken: continuationToken,
            ...URL_ENCODED_LISTING,
          }),
        ),
      );
      for (const object of page.Contents ?? []) {
        const key = listedKey(object.Key, page.EncodingType);
        if (key) keys.add(key);
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  }
  return [...keys];
}

/**
 * The bucket's region, for backend.region: GetBucketLocation answers an empty constraint for
 * us-east-1 and the legacy `EU` for eu-west-1. Least-privilege roles often lack
 * s3:GetBucketLocation: HeadBucket (which s3:ListBucket, already used by the listing, allows) names
 * the region too. Undefined when neither answers: the caller falls back to its configured region,
 * which is right only if the bucket happens to be there, and says so.
 */
export async function bucketRegion(s3: S3Client, bucket: string): Promise<string | undefined> {
  try {
    const { LocationConstraint } = await s3.send(new GetBucketLocationCommand({ Bucket: bucket }));
    if (!LocationConstraint) return 'us-east-1';
    return LocationConstraint === 'EU' ? 'eu-west-1' : LocationConstraint;
  } catch {
    try {
      return (await s3.send(new HeadBucketCommand({ Bucket: bucket })))?.BucketRegion || undefined;
    } catch {
      return undefined;
    }
  }
}

async function read<T>(resource: string, action: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw new BackendReadError(readFailure(resource, action, error), { cause: error });
  }
}
