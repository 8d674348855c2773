import {
  GetBucketEncryptionCommand,
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
 * the only calls are ListObjectsV2, GetBucketLocation and HeadBucket. A failed listing throws
 * BackendReadError (no such bucket, access denied, unreachable endpoint) with the SDK error as its
 * cause; so does an `env:/` listing that fails, unless it is denied (see listStateObjects).
 */
export async function listStateBucketKeys(s3: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  return (await listStateObjects(s3, bucket, prefix)).keys;
}

/**
 * As listStateBucketKeys, and the CLI workspace prefixes (`env:/`) whose listing was denied: a role
 * allowed to list only its team's prefix (an `s3:prefix` condition, as the S3 backend's docs show)
 * can list `--prefix team-a/` but not `env:/`, and its own states must not be lost for the others'.
 */
export async function listStateObjects(
  s3: S3Client,
  bucket: string,
  prefix = '',
): Promise<{ keys: string[]; unlisted: string[] }> {
  const keys = new Set<string>();
  const unlisted: string[] = [];
  const [asked, ...workspacePrefixes] = listingPrefixes({
    prefix,
    workspaceKeyPrefixes: [DEFAULT_WORKSPACE_KEY_PREFIX],
  });
  await listInto(keys, s3, bucket, asked ?? '');
  for (const listing of workspacePrefixes) {
    try {
      await listInto(keys, s3, bucket, listing);
    } catch (error) {
      if (!(error instanceof BackendReadError) || error.failure.code !== 'AccessDenied') throw error;
      unlisted.push(listing);
    }
  }
  return { keys: [...keys], unlisted };
}

async function listInto(keys: Set<string>, s3: S3Client, bucket: string, listing: string): Promise<void> {
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

/**
 * The bucket's default encryption is SSE-KMS (or DSSE-KMS): its owners meant its states to be, and
 * `requireKms` makes one that is not a finding (init). False when the read fails (no
 * s3:GetEncryptionConfiguration): the backend check reports that read later.
 */
export async function encryptsWithKms(s3: S3Client, bucket: string): Promise<boolean> {
  try {
    const { ServerSideEncryptionConfiguration: configuration } = await s3.send(
      new GetBucketEncryptionCommand({ Bucket: bucket }),
    );
    return (configuration?.Rules ?? []).some((rule) =>
      rule.ApplyServerSideEncryptionByDefault?.SSEAlgorithm?.startsWith('aws:kms'),
    );
  } catch {
    return false;
  }
}
