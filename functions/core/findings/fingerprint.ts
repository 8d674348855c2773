import * as crypto from 'node:crypto';
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
  return sha256Hex(JSON.stringify(identity));
}

/** What findingId returns: 64 lowercase hex. Stores, keys and the API check ids against it. */
export const FINDING_ID_PATTERN = /^[0-9a-f]{64}$/;

/**
 * SHA-256 of a text as hex. The one-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object a
 * digest otherwise builds, which counts at two digests per finding of a 50,000-finding plan.
 */
export const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

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
