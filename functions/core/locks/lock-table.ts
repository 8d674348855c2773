import type { LockTableItem } from '../backend/ports.js';

/**
 * Terraform's DynamoDB locking: the lock item's LockID is `<bucket>/<state key>` and holds the lock
 * info in `Info`; the digest item's LockID is `<bucket>/<state key>-md5` and holds `Digest`.
 */
const DIGEST_SUFFIX = '-md5';

export type TableItemKind = { kind: 'lock'; stateKey: string } | { kind: 'digest'; stateKey: string };

export function classifyTableItem(bucket: string, item: LockTableItem): TableItemKind | undefined {
  const prefix = `${bucket}/`;
  if (!item.lockId.startsWith(prefix)) return undefined;
  const rest = item.lockId.slice(prefix.length);
  if (item.info !== undefined) return { kind: 'lock', stateKey: rest };
  if (rest.endsWith(DIGEST_SUFFIX)) return { kind: 'digest', stateKey: rest.slice(0, -DIGEST_SUFFIX.length) };
  return undefined;
}
