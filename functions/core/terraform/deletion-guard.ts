import type { Policies } from '../registry/model.js';
import type { CompactPlan } from './plan-model.js';

export interface DeletionGuard {
  triggered: boolean;
  ratio: number;
  deletions: number;
  managed: number;
}

/**
 * Principle 3: a plan reporting the deletion of a large share of a workspace is confirmed by a
 * second plan before anyone is told. This computes the share; the scanner decides to re-plan.
 * Resources deleted outside Terraform are absent from a refresh-only plan's prior_state, so they are
 * added back to the denominator.
 */
export function computeDeletionGuard(plan: CompactPlan, policies: Policies): DeletionGuard {
  const deleted = new Set<string>();
  for (const change of plan.drift) {
    // A deposed object's deletion is not the deletion of the resource at its address.
    if (change.mode === 'managed' && change.deposed === undefined && change.actions.includes('delete'))
      deleted.add(change.address);
  }
  let managed = plan.managedResources.length;
  if (deleted.size > 0) {
    let deletedStillInState = 0;
    for (const resource of plan.managedResources) if (deleted.has(resource.address)) deletedStillInState++;
    managed += deleted.size - deletedStillInState;
  }
  const deletions = deleted.size;
  const ratio = managed === 0 ? 0 : deletions / managed;
  return { triggered: deletions > 0 && ratio >= policies.deletionGuard.ratio, ratio, deletions, managed };
}
