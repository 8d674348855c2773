import type { BackendResourceRef } from '../../findings/model.js';
import { durationText } from '../../locks/duration-text.js';
import { operationLabel } from '../../locks/lock-info.js';
import type { ObservedLock } from '../../locks/observation.js';
import type { LockVerdict } from '../../locks/proof.js';
import { visibleValue } from '../../text/sanitize.js';
import { type LockSubject, shellWord } from '../rule.js';

/** Helpers shared by the lock rules (not a rule). */

/** A `.tflock` object, or the item of a DynamoDB table that locks the state. */
export function lockResource(bucket: string, lock: ObservedLock): BackendResourceRef {
  const resource: BackendResourceRef =
    lock.source === 's3'
      ? { bucket, key: lock.location }
      : { bucket, key: lock.stateKey, lockTable: lock.table ?? '' };
  if (lock.lock) resource.lockId = lock.lock.id;
  return resource;
}

export function lockWhere(bucket: string, lock: ObservedLock): string {
  return lock.source === 's3'
    ? `s3://${bucket}/${lock.location}`
    : `DynamoDB table ${lock.table} item ${lock.location}`;
}

/**
 * Lock fields and keys are anyone's text (a Who with a line break and a command after it, an escape
 * sequence in a key): prose shows them as values, with invisible characters written out
 * (`"a\u001b[31mb"`), never raw. Evidence keeps the raw value.
 */
export function lockWhereText(bucket: string, lock: ObservedLock): string {
  return lock.source === 's3'
    ? visibleValue(`s3://${bucket}/${lock.location}`)
    : `DynamoDB table ${visibleValue(lock.table ?? '')} item ${visibleValue(lock.location)}`;
}

export function stateWhereText(bucket: string, lock: ObservedLock): string {
  return visibleValue(`s3://${bucket}/${lock.stateKey}`);
}

export function holderOf(lock: ObservedLock): string {
  return lock.lock?.who === undefined ? 'an unknown holder' : visibleValue(lock.lock.who);
}

/** The facts behind every lock finding: who, what, since when, and what the two looks saw. */
export function lockEvidence(subject: LockSubject): Record<string, unknown> {
  const { lock, verdict } = subject;
  const evidence: Record<string, unknown> = {
    lock: lockWhere(subject.bucket, lock),
    lockSource: lock.source,
    stateKey: lock.stateKey,
    lockId: lock.lock?.id ?? null,
    ...(lock.lock?.idIncomplete ? { lockIdIncomplete: true } : {}),
    holder: lock.lock?.who ?? null,
    operation: lock.lock?.operation ?? null,
    terraformVersion: lock.lock?.version ?? null,
    created: lock.lock?.created ?? null,
    // S3's own time for the .tflock: the lock is no older than this, whatever Created says.
    ...(lock.writtenAt ? { lockWrittenAt: lock.writtenAt } : {}),
    path: lock.lock?.path ?? null,
    firstObservedAt: subject.firstObservedAt,
    secondObservedAt: subject.secondObservedAt,
  };
  if ('ageMs' in verdict) {
    evidence.ageMs = verdict.ageMs;
    evidence.age = durationText(verdict.ageMs);
    evidence.staleAfterMs = verdict.thresholdMs;
    evidence.staleAfter = durationText(verdict.thresholdMs);
  }
  evidence.stateLastWrite = stateLastWrite(verdict);
  // The same lock's other places (its DynamoDB item): where, and what that place holds of its own.
  if (subject.alsoHeldIn?.length)
    evidence.alsoHeldIn = subject.alsoHeldIn.map((place) => ({
      lock: lockWhere(subject.bucket, place),
      lockSource: place.source,
      ...(place.table !== undefined ? { lockTable: place.table } : {}),
      ...(place.writtenAt ? { lockWrittenAt: place.writtenAt } : {}),
    }));
  return evidence;
}

/**
 * Where a lock is held, in prose: its place, or all its places when Terraform took it in two
 * (`s3://b/k.tflock and DynamoDB table t item b/k`).
 */
export function lockPlacesText(subject: LockSubject): string {
  return [subject.lock, ...(subject.alsoHeldIn ?? [])]
    .map((place) => lockWhereText(subject.bucket, place))
    .join(' and ');
}

/**
 * The sentence a finding of a lock held in two places adds to its detail (empty for one place):
 * both places, and that they are one lock with one release.
 */
export function heldInBothText(subject: LockSubject): string {
  if (!subject.alsoHeldIn?.length) return '';
  return ` The lock is held in ${subject.alsoHeldIn.length + 1} places, ${lockPlacesText(subject)}, with the same ID: Terraform took both (use_lockfile with dynamodb_table), each was proven on its own, and terraform force-unlock releases both.`;
}

function stateLastWrite(verdict: LockVerdict): string | null {
  if (verdict.kind === 'stale' || verdict.kind === 'live-writer') return verdict.stateLastWrite.toISOString();
  return null;
}

/**
 * Principle 6's remediation: make sure the holder is gone, then a human force-unlocks, then plans.
 * The step that releases the lock is a sentence, then one command per line (the digest's advice
 * and the report show them so): data in the sentence and every command word stay on one line.
 */
export function forceUnlockSteps(subject: LockSubject): string[] {
  const { lock } = subject;
  const info = lock.lock;
  const select = subject.cliWorkspace
    ? `terraform workspace select ${shellWord(subject.cliWorkspace)}\n`
    : '';
  const ran = info
    ? `${holderOf(lock)} ran terraform ${operationLabel(info.operation)}${info.version ? ` (Terraform ${visibleValue(info.version)})` : ''}${info.created ? ` and took the lock at ${visibleValue(info.created)}` : ''}`
    : 'the lock names no holder';
  let release: string;
  const places = [lock, ...(subject.alsoHeldIn ?? [])];
  const both =
    places.length > 1
      ? ` (force-unlock removes ${places.length === 2 ? 'both' : 'all of'} ${lockPlacesText(subject)})`
      : '';
  if (info && !info.idIncomplete)
    release = `From that workspace's configuration (backend ${visibleValue(`s3://${subject.bucket}/${lock.stateKey}`)}), release the lock${both}:\n${select}terraform force-unlock ${shellWord(info.id)}`;
  else
    release = `${info ? 'The lock ID is not shown whole (it is longer than driftwatch shows, or holds text that looks like a secret), so no force-unlock can name it' : 'The lock has no ID Terraform could use'}: after confirming nothing runs, remove ${places.length > 1 ? `it from all ${places.length} places` : 'it'} with the AWS CLI:\n${places.map((place) => removeCommand(subject.bucket, place)).join('\n')}`;
  return [
    `Confirm that the holder is gone: ${ran}. Check that the pipeline run has ended or ask the person; taking the lock from a running apply can corrupt the state.`,
    release,
    'Then run a fresh terraform plan for the workspace and review it: an interrupted apply may have changed infrastructure without recording it in state.',
    'driftwatch never releases a lock: a person decides.',
  ];
}

/** How a summary says to release the lock: the force-unlock command, or where the steps say how. */
export function releaseInWords(subject: LockSubject): string {
  const info = subject.lock.lock;
  return info && !info.idIncomplete
    ? `terraform force-unlock ${shellWord(info.id)} from the workspace`
    : 'the AWS CLI command in the steps (the lock ID is not shown whole)';
}

function removeCommand(bucket: string, lock: ObservedLock): string {
  if (lock.source === 's3')
    return `aws s3api delete-object --bucket ${shellWord(bucket)} --key ${shellWord(lock.location)}`;
  const key = JSON.stringify({ LockID: { S: lock.location } });
  return `aws dynamodb delete-item --table-name ${shellWord(lock.table ?? '')} --key ${shellWord(key)}`;
}
