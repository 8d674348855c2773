import type { LockTableItem } from '../backend/ports.js';

/**
 * Terraform's DynamoDB locking: the lock item's LockID is `<bucket>/<state key>` and holds the lock
 * info in `Info`; the digest item's LockID is `<bucket>/<state key>-md5` and holds `Digest`.
 */
const DIGEST_SUFFIX = '-md5';

export type TableItemKind = { kind: 'lock'; stateKey: string } | { kind: 'digest'; stateKey: string };

/**
 * Any item of the bucket that is not a digest is a lock, whatever its Info holds: Terraform's lock
 * is a conditional put on `attribute_not_exists(LockID)`, so an item without Info (or with a number
 * there) blocks every plan and apply of its state as surely as a well-formed one.
 */
export function classifyTableItem(bucket: string, item: LockTableItem): TableItemKind | undefined {
  const prefix = `${bucket}/`;
  if (!item.lockId.startsWith(prefix)) return undefined;
  const rest = item.lockId.slice(prefix.length);
  if (item.info === undefined && rest.endsWith(DIGEST_SUFFIX))
    return { kind: 'digest', stateKey: rest.slice(0, -DIGEST_SUFFIX.length) };
  return { kind: 'lock', stateKey: rest };
}
