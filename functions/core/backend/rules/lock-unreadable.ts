import type { LockRule } from '../rule.js';
import {
  forceUnlockSteps,
  heldInBothText,
  lockEvidence,
  lockResource,
  lockWhereText,
  stateWhereText,
} from './lock-facts.js';

export const lockUnreadableRule: LockRule = {
  id: 'lock.unreadable',
  target: 'lock',
  kind: 'stale-lock',
  check: 'locks',
  severity: 'medium',
  checks:
    'a lock present in both observations whose body is not Terraform lock info, or has no usable Created time',
  explanation:
    'Terraform treats any object at the lock key as a held lock, so the workspace is blocked, and without an ID and a creation time driftwatch cannot prove the lock stale.',
  iamActions: ['s3:ListBucket', 's3:GetObject', 'dynamodb:Scan'],
  evaluate(subject) {
    const { verdict } = subject;
    if (verdict.kind !== 'unreadable') return [];
    const where = lockWhereText(subject.bucket, subject.lock);
    return [
      {
        resource: lockResource(subject.bucket, subject.lock),
        title: `Unreadable lock ${where}`,
        detail: `${where} blocks ${stateWhereText(subject.bucket, subject.lock)}, but ${verdict.reason}.${heldInBothText(subject)}`,
        evidence: { ...lockEvidence(subject), reason: verdict.reason },
        remediation: {
          summary: 'Find out what wrote the lock; once nothing runs against the workspace, release it.',
          steps: forceUnlockSteps(subject),
        },
      },
    ];
  },
};
