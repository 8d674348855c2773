import type { FindingDraft } from './model.js';
import { type ObjectStore, putIfAbsent, type StoredObject } from './object-store.js';

export const QUARANTINE_PREFIX = 'quarantine/';

/**
 * Scope of store findings that belong to no workspace (the outbox, sent markers): a name the
 * registry cannot give a workspace would not be a valid key part, so it is a plain, documented one.
 */
export const STORE_SCOPE = 'findings-store';

/** An object of the store that did not match its schema, and where its bytes went. */
export interface CorruptObject {
  key: string;
  /** What the object should have been: "current document", "outbox digest". */
  what: string;
  reason: string;
  /** Where the bytes are now; absent when even the copy failed (the original is then kept). */
  quarantinedAs?: string;
  /** ETag of the corrupt version: a writer that replaces it overwrites exactly that version. */
  etag: string;
  /**
   * False when the original is still in place: the copy failed, the role may not delete (only the
   * notification functions may, deployed), or a writer replaced it meanwhile.
   */
  removed: boolean;
}

/**
 * Moves a corrupt object out of the way so no later run trips over it: copy first, then a reason
 * record next to the copy, then delete the original only if it is still the version that was read.
 * A crash in between leaves the original in place (the next run quarantines it again); a writer that
 * replaced the object meanwhile keeps its newer version. Nothing is ever lost.
 */
export async function quarantineObject(
  store: ObjectStore,
  key: string,
  stored: StoredObject,
  problem: { what: string; reason: string },
): Promise<CorruptObject> {
  const corrupt: CorruptObject = {
    key,
    what: problem.what,
    reason: problem.reason,
    etag: stored.etag,
    removed: false,
  };
  const copy = `${QUARANTINE_PREFIX}${key}`;
  let quarantinedAs = copy;
  try {
    if (!(await putIfAbsent(store, copy, stored.body, { contentType: 'application/octet-stream' }))) {
      // The same key was quarantined before: keep that copy too, this one goes next to it.
      quarantinedAs = `${copy}.${stored.etag.replace(/[^0-9A-Za-z]/g, '') || 'copy'}`;
      await store.put(quarantinedAs, stored.body, { contentType: 'application/octet-stream' });
    }
    await store.put(
      `${quarantinedAs}.reason.json`,
      JSON.stringify({ key, what: problem.what, reason: problem.reason, etag: stored.etag }, null, 2),
    );
  } catch {
    // Without a copy the original stays where it is; the finding still says what is wrong.
    return corrupt;
  }
  corrupt.quarantinedAs = quarantinedAs;
  try {
    await store.delete(key, { ifMatch: stored.etag });
    corrupt.removed = true;
  } catch {
    // Rewritten meanwhile (412), or no delete permission: the copy is safe either way, and the
    // next write of the key replaces the corrupt version (writers use `overwriteCondition`).
  }
  return corrupt;
}

/**
 * The condition for writing a fresh object in place of a corrupt one: create it if the corrupt one
 * is gone, else overwrite exactly the corrupt version (a newer valid one written meanwhile wins).
 */
export function overwriteCondition(corrupt: CorruptObject): { ifNoneMatch: '*' } | { ifMatch: string } {
  return corrupt.removed ? { ifNoneMatch: '*' } : { ifMatch: corrupt.etag };
}

/**
 * The finding a quarantined object leaves behind. Kind `scan-failed` (the closed kind list of the
 * finding contract is unchanged: part of the run's input was unusable), rule `store.corrupt-object`.
 * No owner: digests route it to the registry's fallback owner, who runs driftwatch and its store.
 */
export function corruptObjectFinding(corrupt: CorruptObject, scope: string, location: string): FindingDraft {
  const where = corrupt.quarantinedAs ?? corrupt.key;
  return {
    kind: 'scan-failed',
    ruleId: 'store.corrupt-object',
    severity: 'high',
    workspace: scope,
    resource: { bucket: location, key: corrupt.key },
    title: `${corrupt.key}: corrupt ${corrupt.what} in the findings store`,
    detail:
      `${corrupt.key} is not a valid ${corrupt.what}: ${corrupt.reason}. ` +
      (corrupt.quarantinedAs
        ? `It was ${corrupt.removed ? 'moved' : 'copied'} to ${corrupt.quarantinedAs} and the run went on without it.`
        : 'It could not be copied to quarantine/ and was left in place; the run went on without it.'),
    evidence: { key: corrupt.key, quarantinedAs: corrupt.quarantinedAs ?? null, reason: corrupt.reason },
    remediation: {
      summary: `Inspect ${where}; restore a good version of ${corrupt.key} or let the next scan rewrite it.`,
      steps: [
        `Read ${where} and ${where}.reason.json to see what is wrong.`,
        'If the bucket keeps versions, restore the last good version of the object; otherwise nothing to do: the next scan writes it again.',
        'Find out what wrote it (the bucket access logs or CloudTrail data events) if driftwatch did not.',
      ],
    },
  };
}
