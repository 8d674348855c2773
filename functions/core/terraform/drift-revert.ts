import { appendTo } from '../collections.js';
import { deepEqual } from './json-values.js';
import { type CompactAttributeChange, type CompactChange, UNKNOWN_VALUE } from './plan-model.js';

/**
 * A normal plan lists drifted resources twice: in `resource_drift` (what changed outside Terraform)
 * and in `resource_changes` (what the apply would do, which includes putting the drift back). The
 * second is not a pending change of the configuration. This module takes the revert out.
 */

/**
 * The part of a `resource_changes` entry that is not the revert of its drift; `undefined` when the
 * entry only reverts drift (or recreates a resource whose deletion was the drift).
 */
export function changesBeyondDriftRevert(
  change: CompactChange,
  drift: CompactChange | undefined,
): CompactAttributeChange[] | undefined {
  if (!drift) return change.changes;
  const driftDeleted = drift.actions.includes('delete') && !drift.actions.includes('create');
  if (driftDeleted && change.actions.includes('create')) return undefined;
  // Removing a drifted resource from the configuration is a decision of its own.
  if (change.actions.includes('delete') && !change.actions.includes('create')) return change.changes;

  const drifted = new Map<string, CompactAttributeChange[]>();
  for (const driftChange of drift.changes) {
    const key = positionFreePath(driftChange);
    appendTo(drifted, key, driftChange);
  }
  let reverted = 0;
  const remaining = change.changes.filter((candidate) => {
    const isRevert = (drifted.get(positionFreePath(candidate)) ?? []).some(
      (driftChange) =>
        deepEqual(driftChange.after, candidate.before) && deepEqual(driftChange.before, candidate.after),
    );
    if (isRevert) reverted++;
    return !isRevert;
  });
  // Replacing to revert (an immutable attribute drifted) also re-computes ids: not a change of intent.
  if (reverted > 0 && remaining.every((candidate) => candidate.after === UNKNOWN_VALUE)) return undefined;
  if (reverted > 0 && remaining.length === 0) return undefined;
  return remaining;
}

/**
 * List positions differ between the two diffs when a set element moved (`ingress[1]` in the drift is
 * `ingress[0]` in the revert), so positions are left out when pairing a revert with its drift.
 */
function positionFreePath(change: CompactAttributeChange): string {
  return change.segments.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('\u0000');
}
