import type { S3Client } from '@aws-sdk/client-s3';
import type { ObjectStore } from '../../core/findings/object-store.js';
import { createFsObjectStore } from './fs-object-store.js';
import { createS3ObjectStore } from './s3-object-store.js';

/** A findings store: a bucket (the deployed layout at its root) or a local directory with the same layout. */
export type StoreLocation = { bucket: string } | { dir: string };

/** `s3://bucket` (a trailing slash allowed, no key prefix) or a directory path; undefined for `s3://b/x`. */
export function parseStoreLocation(text: string): StoreLocation | undefined {
  // Any other URL (https://, S3://, gs://) is a mistake, not a directory: taken as one, a scan
  // would write its findings under ./https:/… and report success.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return { dir: text };
  const bucket = /^s3:\/\/([^/]+)\/?$/.exec(text)?.[1];
  return bucket ? { bucket } : undefined;
}

export function openStoreAt(location: StoreLocation, s3: () => S3Client): ObjectStore {
  return 'bucket' in location
    ? createS3ObjectStore(s3(), location.bucket)
    : createFsObjectStore(location.dir);
}
