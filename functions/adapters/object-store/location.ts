import type { ObjectStore } from '../../core/findings/object-store.js';
import { createFsObjectStore } from './fs-object-store.js';

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

/** How a bucket store names itself in messages: `s3://bucket/`. */
export function bucketLocation(bucket: string): string {
  return `s3://${bucket}/`;
}

/**
 * The store at `location`. A bucket's is built by `bucketStore`, so this module does not load the
 * AWS SDK: the CLI reading a local directory never imports it (~0.4 s of CPU per command).
 */
export function openStoreAt(
  location: StoreLocation,
  bucketStore: (bucket: string) => ObjectStore,
): ObjectStore {
  return 'bucket' in location ? bucketStore(location.bucket) : createFsObjectStore(location.dir);
}

/** A store whose implementation is loaded at its first call (once, whoever calls first). */
export function lazyObjectStore(location: string, load: () => Promise<ObjectStore>): ObjectStore {
  let loading: Promise<ObjectStore> | undefined;
  const store = () => {
    loading ??= load();
    return loading;
  };
  return {
    location,
    get: async (key) => (await store()).get(key),
    put: async (key, body, options) => (await store()).put(key, body, options),
    delete: async (key, options) => (await store()).delete(key, options),
    async *list(prefix) {
      yield* (await store()).list(prefix);
    },
  };
}
