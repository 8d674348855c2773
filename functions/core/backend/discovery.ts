import { type BackendObject, BackendReadError, type BackendReader, type ReadFailure } from './ports.js';
import { type BackendTarget, inPrefix, listingPrefixes } from './target.js';

/** Terraform's S3 backend keeps a workspace's lock next to its state: `<state key>.tflock`. */
export const LOCK_SUFFIX = '.tflock';
export const STATE_SUFFIX = '.tfstate';

/** What one listing of a state bucket shows. */
export interface Discovery {
  /** Every object that is not a lock, by key (to look up a state's last write without a request). */
  objects: Map<string, BackendObject>;
  /** State objects: every `*.tfstate`, the keys the registry or command line name, and locked keys. */
  stateKeys: string[];
  locks: Array<BackendObject & { stateKey: string }>;
}

/**
 * Lists the bucket (or the run's prefixes) with ListObjectsV2 pages, never a request per key, and
 * sorts what it finds into states and locks. Read failures (no such bucket, access denied) throw
 * BackendReadError: without a listing nothing else about the bucket can be trusted.
 */
export async function discoverBackend(reader: BackendReader, target: BackendTarget): Promise<Discovery> {
  const objects = new Map<string, BackendObject>();
  const locks: Discovery['locks'] = [];
  const lockKeys = new Set<string>();
  for (const prefix of listingPrefixes(target)) {
    for await (const object of reader.listObjects(target.bucket, prefix)) {
      if (!inPrefix(target, object.key)) continue;
      if (object.key.endsWith(LOCK_SUFFIX)) {
        // Listing prefixes may overlap (`env:/blue/` under `env:/`): each lock once.
        if (lockKeys.has(object.key)) continue;
        lockKeys.add(object.key);
        locks.push({ ...object, stateKey: object.key.slice(0, -LOCK_SUFFIX.length) });
      } else {
        objects.set(object.key, object);
      }
    }
  }
  // A state key need not end in .tfstate: the registry names some, and a lock names its own.
  const named = new Set([
    ...target.contentKeys,
    ...target.owners.map((owner) => owner.stateKey),
    ...locks.map((lock) => lock.stateKey),
  ]);
  const stateKeys = [...objects.keys()].filter((key) => key.endsWith(STATE_SUFFIX) || named.has(key));
  return { objects, stateKeys, locks };
}

/**
 * The preflight of a target: one cheap read that every check needs anyway. Its failure is the
 * target's failure (returned, not thrown); undefined when the bucket answered.
 */
export async function preflightTarget(
  reader: BackendReader,
  target: BackendTarget,
): Promise<ReadFailure | undefined> {
  try {
    await reader.preflight(target.bucket, listingPrefixes(target)[0] ?? '');
    return undefined;
  } catch (error) {
    if (!(error instanceof BackendReadError)) throw error;
    return error.failure;
  }
}
