/**
 * The port every findings writer and reader goes through: S3 in AWS, a directory locally. Writes
 * can be conditional so concurrent workspace scans never lose each other's updates.
 */
export interface StoredObject {
  body: string;
  etag: string;
}

export interface ListedObject {
  key: string;
  size: number;
  lastModified?: Date;
}

export interface PutOptions {
  /** Write only if the object still has this ETag (optimistic concurrency). */
  ifMatch?: string;
  /** Write only if the object does not exist yet. */
  ifNoneMatch?: '*';
  contentType?: string;
}

export interface ObjectStore {
  /** Human-readable location, e.g. `s3://bucket/` or a directory path. */
  readonly location: string;
  get(key: string): Promise<StoredObject | undefined>;
  /** Throws PreconditionFailedError when a condition does not hold. */
  put(key: string, body: string, options?: PutOptions): Promise<{ etag: string }>;
  list(prefix: string): AsyncIterable<ListedObject>;
  /**
   * Deletes an object of driftwatch's own (the notification outbox, a quarantined object); a
   * missing key is fine. With `ifMatch`, deletes only that version (PreconditionFailedError otherwise).
   */
  delete(key: string, options?: { ifMatch?: string }): Promise<void>;
}

/**
 * Writes `body` at `key` only if nothing is there (a conditional create: of two writers, one wins);
 * whether this call wrote it.
 */
export async function putIfAbsent(
  store: ObjectStore,
  key: string,
  body: string,
  options: Omit<PutOptions, 'ifMatch' | 'ifNoneMatch'> = {},
): Promise<boolean> {
  try {
    await store.put(key, body, { ...options, ifNoneMatch: '*' });
    return true;
  } catch (error) {
    if (error instanceof PreconditionFailedError) return false;
    throw error;
  }
}

export class PreconditionFailedError extends Error {
  constructor(key: string) {
    super(`${key} changed since it was read`);
    this.name = 'PreconditionFailedError';
  }
}
