import type { LockRule } from '../rule.js';
import { holderOf, lockEvidence, lockResource, stateWhereText } from './lock-facts.js';

export const lockLiveWriterRule: LockRule = {
  id: 'lock.live-writer',
  target: 'lock',
  kind: 'stale-lock',
  check: 'locks',
  severity: 'info',
  checks:
    'a lock older than its threshold whose state was written after it was taken: a live, long run (no alert)',
  explanation:
    'Its holder wrote state after taking the lock, so it is alive (a long apply persists state as it goes): nothing to release.',
  iamActions: ['s3:ListBucket', 's3:GetObject', 'dynamodb:Scan'],
  evaluate(subject) {
    if (subject.verdict.kind !== 'live-writer') return [];
    const where = stateWhereText(subject.bucket, subject.lock);
    return [
      {
        resource: lockResource(subject.bucket, subject.lock),
        title: `Long-held lock on ${where}, holder ${holderOf(subject.lock)} still writing state`,
        detail: `The lock on ${where} is older than the threshold for its operation, but the state was written after the lock was taken.`,
        evidence: lockEvidence(subject),
        remediation: {
          summary:
            'No action: the holder is still working. If the run takes longer than it should, look at the run.',
          steps: ['Leave the lock alone; driftwatch looks again on the next scan.'],
        },
      },
    ];
  },
};
