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

export const lockLiveWriterRule: LockRule = {
  id: 'lock.live-writer',
  target: 'lock',
  kind: 'stale-lock',
  check: 'locks',
  severity: 'info',
  checks:
    'a lock older than its threshold whose state was written after it was taken: a live, long run (no alert)',
  explanation:
    'Its holder wrote state after taking the lock, so it was alive then (a long apply persists state as it goes): nothing is alerted.',
  iamActions: ['s3:ListBucket', 's3:GetObject', 'dynamodb:Scan'],
  evaluate(subject) {
    const { verdict } = subject;
    if (verdict.kind !== 'live-writer') return [];
    const where = stateWhereText(subject.bucket, subject.lock);
    const holder = holderOf(subject.lock);
    // DESIGN.md principle 6 proves a lock stale only when its state was not written since it was
    // taken. An apply killed after it saved state fails that proof for ever, so such a lock is not
    // alerted either; but "still writing" would be false, and the reader gets the release path to review.
    const silent =
      Date.parse(subject.secondObservedAt) - verdict.stateLastWrite.getTime() >= verdict.thresholdMs;
    return [
      {
        resource: lockResource(subject.bucket, subject.lock),
        title: silent
          ? `Long-held lock on ${where}: holder ${holder} wrote state after taking it, then nothing for longer than the threshold`
          : `Long-held lock on ${where}, holder ${holder} still writing state`,
        detail: silent
          ? `The lock on ${where} is older than the threshold for its operation. Its holder wrote the state after taking the lock (evidence.stateLastWrite), and nothing since for longer than that threshold. A write proves the holder was alive then, so driftwatch does not call the lock stale; an apply killed after it saved state leaves exactly this.${heldInBothText(subject)}`
          : `The lock on ${where} is older than the threshold for its operation, but the state was written after the lock was taken, less than that threshold ago.${heldInBothText(subject)}`,
        evidence: lockEvidence(subject),
        remediation: silent
          ? {
              summary: `If no run of this workspace is active, the lock is abandoned: confirm the holder is gone, then run ${releaseInWords(subject)}, then a fresh plan.`,
              steps: forceUnlockSteps(subject),
            }
          : {
              summary:
                'No action: the holder is still working. If the run takes longer than it should, look at the run.',
              steps: ['Leave the lock alone; driftwatch looks again on the next scan.'],
            },
      },
    ];
  },
};
