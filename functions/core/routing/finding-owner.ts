import type { Finding } from '../findings/model.js';
import { SAFE_ID } from '../registry/model.js';

/** What decides whose a finding is: the registry's fallback owner and, when known, its team ids. */
export interface OwnerRegistry {
  fallbackOwner: string;
  /** Unset: any owner that is a valid id is its own. */
  teamIds?: ReadonlySet<string> | undefined;
}

/**
 * Whose a finding is, for its digest and for every owner filter (the API's `owner=`, `findings --owner`
 * with a registry): its owner when that is a team of the registry, else the fallback owner (as for a
 * finding without one, such as a store.corrupt-object finding). A team removed from the registry has
 * no destination left, so its findings' news would reach no one. Deployed, the owner comes from a
 * scanner's pending record, which code driftwatch does not control can write (docs/security.md); the
 * owner becomes a key part (`notifications/outbox/<scanId>.<owner>.json`, which S3 ends at 1024
 * bytes) and an SNS attribute (SNS refuses an empty one for good), so one such owner would otherwise
 * keep every team's digest from going out, or keep a digest in the outbox for ever.
 */
export function effectiveOwner(finding: Pick<Finding, 'owner'>, registry: OwnerRegistry): string {
  const { owner } = finding;
  if (owner === undefined || !SAFE_ID.test(owner)) return registry.fallbackOwner;
  return registry.teamIds === undefined || registry.teamIds.has(owner) ? owner : registry.fallbackOwner;
}
