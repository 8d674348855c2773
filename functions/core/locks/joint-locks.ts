import type { ObservedLock } from './observation.js';
import type { LockVerdict } from './proof.js';

/** One lock place of the first look, and what the proof made of it. */
export interface JudgedLock {
  lock: ObservedLock;
  verdict: LockVerdict;
}

/** One lock as a person releases it: the place its finding names, and the other places it is held. */
export interface JointLock extends JudgedLock {
  /** The same lock in other places (a DynamoDB item beside the `.tflock`), each with its own proof. */
  alsoHeldIn: JudgedLock[];
}

/**
 * How much a verdict alerts, least first. A lock held in several places is proven only as far as
 * every place proves it (DESIGN.md principle 6 holds for each): its verdict is the least of theirs.
 */
const ALERT_ORDER: readonly LockVerdict['kind'][] = [
  'gone',
  'replaced',
  'unconfirmed',
  'young',
  'live-writer',
  'unreadable',
  'orphaned',
  'stale',
];

/**
 * Joins the places of one lock. With `use_lockfile` and `dynamodb_table` both set (the migration
 * Terraform 1.10 and 1.11 support), Terraform writes one lock info, with one ID and one Created, to
 * the `.tflock` object and to the DynamoDB item, and `terraform force-unlock` releases both: they are
 * one lock, and one finding. Places join when they lock the same state with the same shown ID and
 * Created (as two looks prove the same lock); unreadable bodies never join. The finding is made from
 * the `.tflock` (its resource, so its id is the one a `.tflock`-only finding had) with the verdict
 * every place proves; the order of `judged` is kept.
 */
export function joinLockPlaces(judged: readonly JudgedLock[]): JointLock[] {
  const groups = new Map<string, JudgedLock[]>();
  const order: Array<string | JudgedLock> = [];
  for (const entry of judged) {
    const info = entry.lock.lock;
    if (info === undefined) {
      order.push(entry);
      continue;
    }
    const key = JSON.stringify([entry.lock.stateKey, info.id, info.created ?? null]);
    const group = groups.get(key);
    if (group) group.push(entry);
    else {
      groups.set(key, [entry]);
      order.push(key);
    }
  }
  return order.map((item) => {
    if (typeof item !== 'string') return { ...item, alsoHeldIn: [] };
    const group = groups.get(item)!;
    const primary = group.find((entry) => entry.lock.source === 's3') ?? group[0]!;
    const others = group.filter((entry) => entry !== primary);
    return { lock: primary.lock, verdict: leastAlerting(group), alsoHeldIn: others };
  });
}

function leastAlerting(group: readonly JudgedLock[]): LockVerdict {
  return group
    .map((entry) => entry.verdict)
    .reduce((least, verdict) => {
      const rank = ALERT_ORDER.indexOf(verdict.kind) - ALERT_ORDER.indexOf(least.kind);
      if (rank !== 0) return rank < 0 ? verdict : least;
      // The same kind: the youngest age (a `.tflock` S3 stored later than Created is younger).
      return 'ageMs' in verdict && 'ageMs' in least && verdict.ageMs < least.ageMs ? verdict : least;
    });
}
