import { createHash } from 'node:crypto';
import type { FindingDraft, ResourceRef } from './model.js';

/**
 * Stable identity of a finding across scans: what is wrong and where, never the values.
 * Changing the inputs here changes every finding id in every store, so treat it as a contract.
 */
export function findingId(
  draft: Pick<FindingDraft, 'kind' | 'ruleId' | 'workspace' | 'resource' | 'drift'>,
): string {
  const paths = (draft.drift?.changes ?? []).map((change) => change.path).sort();
  const identity = [draft.kind, draft.ruleId, draft.workspace, resourceIdentity(draft.resource), ...paths];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

export function resourceIdentity(resource: ResourceRef | undefined): string {
  if (!resource) return '';
  if ('address' in resource) return `tf:${resource.address}`;
  if ('bucket' in resource) {
    // The lock part is appended only when present, so ids of findings without a lock never change.
    const lock = resource.lockId === undefined ? '' : `!lock=${resource.lockId}`;
    return `backend:${resource.bucket}/${resource.key ?? ''}#${resource.lockTable ?? ''}${lock}`;
  }
  return `k8s:${resource.app ?? ''}:${resource.group}/${resource.kind}:${resource.namespace ?? ''}/${resource.name}`;
}
