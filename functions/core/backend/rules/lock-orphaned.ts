import type { LockRule } from '../rule.js';
import {
  forceUnlockSteps,
  heldInBothText,
  lockEvidence,
  lockResource,
  lockWhereText,
  releaseInWords,
  stateWhereText,
} from './lock-facts.js';

export const lockOrphanedRule: LockRule = {
  id: 'lock.orphaned',
  target: 'lock',
  kind: 'stale-lock',
  check: 'locks',
  severity: 'medium',
  checks: 'a lock whose state object does not exist, proven the same way as a stale lock',
  explanation:
    'A lock left behind by a workspace whose state was moved or deleted, or by a first apply that died before it wrote state: it blocks that key until someone removes it.',
  iamActions: ['s3:ListBucket', 's3:GetObject', 'dynamodb:Scan'],
  evaluate(subject) {
    if (subject.verdict.kind !== 'orphaned') return [];
    const where = lockWhereText(subject.bucket, subject.lock);
    return [
      {
        resource: lockResource(subject.bucket, subject.lock),
        title: `Lock without a state object: ${where}`,
        detail: `${where} locks ${stateWhereText(subject.bucket, subject.lock)}, which does not exist; the lock was seen twice with the same ID and is older than its threshold.${heldInBothText(subject)}`,
        evidence: lockEvidence(subject),
        remediation: {
          summary: `Confirm no first apply or migration is still running, then release the lock with ${releaseInWords(subject)}.`,
          steps: forceUnlockSteps(subject),
        },
      },
    ];
  },
};
