import { describe, expect, it } from 'vitest';
import { findingId, resourceIdentity } from '../../../../functions/core/findings/fingerprint.js';

describe('backend resource identity', () => {
  it('is unchanged for findings without a lock (existing ids stay valid)', () => {
    expect(resourceIdentity({ bucket: 'tfstate', key: 'a.tfstate' })).toBe('backend:tfstate/a.tfstate#');
    expect(resourceIdentity({ bucket: 'tfstate', lockTable: 'locks' })).toBe('backend:tfstate/#locks');
  });

  it('includes the lock ID: the same lock keeps its finding, a new lock is a new finding', () => {
    const draft = (lockId: string) => ({
      kind: 'stale-lock' as const,
      ruleId: 'lock.stale',
      workspace: 'payments-prod',
      resource: { bucket: 'tfstate', key: 'a.tfstate.tflock', lockId },
    });
    expect(findingId(draft('lock-1'))).toBe(findingId(draft('lock-1')));
    expect(findingId(draft('lock-1'))).not.toBe(findingId(draft('lock-2')));
  });
});
