import { visibleValue } from '../../text/sanitize.js';
import type { LockRule } from '../rule.js';
import {
  forceUnlockSteps,
  heldInBothText,
  holderOf,
  lockEvidence,
  lockResource,
  releaseInWords,
  stateWhereText,
} from './lock-facts.js';

export const lockStaleRule: LockRule = {
  id: 'lock.stale',
  target: 'lock',
  kind: 'stale-lock',
  check: 'locks',
  severity: 'high',
  checks:
    'proven stale: the same lock ID in two observations a confirmation window apart, older than its operation threshold, state not written since it was taken',
  explanation:
    'Terraform refuses every plan and apply of the workspace while the lock exists, and nobody is using it: the run that took it was killed or crashed.',
  iamActions: ['s3:ListBucket', 's3:GetObject', 'dynamodb:Scan'],
  evaluate(subject) {
    if (subject.verdict.kind !== 'stale') return [];
    const where = stateWhereText(subject.bucket, subject.lock);
    return [
      {
        resource: lockResource(subject.bucket, subject.lock),
        title: `Stale lock on ${where} held by ${holderOf(subject.lock)}`,
        detail: `The lock on ${where} (ID ${visibleValue(subject.lock.lock?.id ?? '')}) was seen twice with the same ID, is older than the threshold for its operation, and the state has not been written since it was taken.${heldInBothText(subject)}`,
        evidence: lockEvidence(subject),
        remediation: {
          // Quoted as a shell word: the ID is whatever the lock's writer put there (`0000; curl … | sh`).
          summary: `Confirm the holder is gone, then run ${releaseInWords(subject)}, then a fresh plan.`,
          steps: forceUnlockSteps(subject),
        },
      },
    ];
  },
};
