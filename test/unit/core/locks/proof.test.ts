import { describe, expect, it } from 'vitest';
import type { ObservedLock } from '../../../../functions/core/locks/observation.js';
import {
  decideLock,
  type LockProofInput,
  needsConfirmation,
} from '../../../../functions/core/locks/proof.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const STALE_AFTER = { plan: HOUR, apply: 2 * HOUR, default: 30 * MINUTE };
const created = new Date('2026-11-29T00:00:00.400Z');

function lock(
  overrides: Partial<ObservedLock> = {},
  id = 'lock-1',
  operation = 'OperationTypeApply',
): ObservedLock {
  return {
    source: 's3',
    location: 'payments/terraform.tfstate.tflock',
    stateKey: 'payments/terraform.tfstate',
    etag: '"e1"',
    lock: { id, operation, who: 'ci@runner', created: created.toISOString() },
    ...overrides,
  };
}

/** First look 3 h after the lock was taken, second look 10 min later; state last written before the lock. */
function input(overrides: Partial<LockProofInput> = {}): LockProofInput {
  const first = lock();
  return {
    first,
    firstObservedAt: new Date(created.getTime() + 3 * HOUR),
    second: first,
    secondObservedAt: new Date(created.getTime() + 3 * HOUR + 10 * MINUTE),
    confirmAfterMs: 10 * MINUTE,
    staleAfterMs: STALE_AFTER,
    state: { exists: true, lastModified: new Date('2026-11-28T23:59:59.000Z') },
    ...overrides,
  };
}

describe('the stale-lock proof', () => {
  it('is stale only with the same ID twice, the window passed, past the threshold, state not written since', () => {
    expect(decideLock(input())).toEqual({
      kind: 'stale',
      ageMs: 3 * HOUR + 10 * MINUTE,
      thresholdMs: 2 * HOUR,
      stateLastWrite: new Date('2026-11-28T23:59:59.000Z'),
    });
  });

  it('a lock gone at the second look proves nothing', () => {
    expect(decideLock(input({ second: undefined }))).toEqual({ kind: 'gone' });
  });

  it('a lock released and retaken (new ID) proves nothing', () => {
    expect(decideLock(input({ second: lock({ etag: '"e2"' }, 'lock-2') }))).toEqual({
      kind: 'replaced',
      byLockId: 'lock-2',
    });
  });

  it('looks less than the window apart prove nothing', () => {
    const verdict = decideLock(
      input({ secondObservedAt: new Date(created.getTime() + 3 * HOUR + 9 * MINUTE) }),
    );
    expect(verdict.kind).toBe('unconfirmed');
  });

  it('uses the threshold of the operation', () => {
    const young = new Date(created.getTime() + 90 * MINUTE);
    const first = new Date(young.getTime() - 10 * MINUTE);
    const at = { firstObservedAt: first, secondObservedAt: young };
    expect(decideLock(input(at)).kind).toBe('young');
    const plan = lock({}, 'lock-1', 'OperationTypePlan');
    expect(decideLock(input({ ...at, first: plan, second: plan })).kind).toBe('stale');
    const push = lock({}, 'lock-1', 'state-push');
    expect(decideLock(input({ ...at, first: push, second: push }))).toMatchObject({
      kind: 'stale',
      thresholdMs: 30 * MINUTE,
    });
  });

  it('a state written after the lock was taken means a live writer', () => {
    const written = new Date(created.getTime() + HOUR);
    expect(decideLock(input({ state: { exists: true, lastModified: written } }))).toMatchObject({
      kind: 'live-writer',
      stateLastWrite: written,
    });
  });

  it('a lock S3 wrote recently is young whatever its Created says (a holder clock hours behind)', () => {
    // Created says 3 h before the first look; S3 stored the .tflock 20 minutes before the second.
    const recent = lock({ writtenAt: new Date(created.getTime() + 2 * HOUR + 50 * MINUTE).toISOString() });
    expect(decideLock(input({ first: recent, second: recent }))).toEqual({
      kind: 'young',
      ageMs: 20 * MINUTE,
      thresholdMs: 2 * HOUR,
    });
    expect(needsConfirmation(recent, new Date(created.getTime() + 3 * HOUR), 10 * MINUTE, STALE_AFTER)).toBe(
      false,
    );
    // S3 keeps seconds: a .tflock stored in the second Created names is as old as Created.
    const same = lock({ writtenAt: '2026-11-29T00:00:00.000Z' });
    expect(decideLock(input({ first: same, second: same })).kind).toBe('stale');
  });

  it("a write in the lock's own second is the one before it (apply && plan); a later second is the holder's", () => {
    // S3 keeps seconds: the lock was taken at …00.5Z, the state last written within that second.
    const sameSecond = new Date('2026-11-29T00:00:00.000Z');
    expect(decideLock(input({ state: { exists: true, lastModified: sameSecond } })).kind).toBe('stale');
    const nextSecond = new Date('2026-11-29T00:00:01.000Z');
    expect(decideLock(input({ state: { exists: true, lastModified: nextSecond } })).kind).toBe('live-writer');
  });

  it.each([
    ['"1" (Date.parse: 2001)', '1', /not an RFC 3339 time/],
    ['a US date', '12/31/1999 10:00', /not an RFC 3339 time/],
    ['far in the future', '2099-01-01T00:00:00Z', /in the future/],
  ])('a Created time %s is unreadable once seen twice, never young or live', (_name, created, reason) => {
    const odd = lock({ lock: { id: 'lock-1', operation: 'OperationTypeApply', created } });
    const verdict = decideLock(input({ first: odd, second: odd }));
    expect(verdict.kind).toBe('unreadable');
    if (verdict.kind === 'unreadable') expect(verdict.reason).toMatch(reason);
    // The second look is waited for: an unreadable lock is only reported when it stays.
    expect(
      needsConfirmation(odd, new Date('2026-11-29T10:00:00Z'), 60_000, { plan: 1, apply: 1, default: 1 }),
    ).toBe(true);
  });

  it('an old lock on a state that does not exist is orphaned', () => {
    expect(decideLock(input({ state: { exists: false } })).kind).toBe('orphaned');
  });

  it('a lock without Created, or an unreadable body, seen twice is unreadable', () => {
    const noCreated = lock({ lock: { id: 'lock-1', operation: 'OperationTypeApply' } });
    expect(decideLock(input({ first: noCreated, second: noCreated }))).toEqual({
      kind: 'unreadable',
      reason: 'the lock has no Created time, so its age cannot be proven',
    });
    const { lock: _info, ...withoutInfo } = lock();
    const garbage: ObservedLock = { ...withoutInfo, unreadable: 'the lock body is not JSON (7 characters)' };
    expect(decideLock(input({ first: garbage, second: garbage }))).toEqual({
      kind: 'unreadable',
      reason: 'the lock body is not JSON (7 characters)',
    });
    expect(decideLock(input({ first: garbage, second: { ...garbage, etag: '"other"' } })).kind).toBe(
      'replaced',
    );
  });
});

describe('needsConfirmation', () => {
  it('is false when the lock cannot be past its threshold by the end of the window', () => {
    const observedAt = new Date(created.getTime() + HOUR);
    expect(needsConfirmation(lock(), observedAt, 10 * MINUTE, STALE_AFTER)).toBe(false);
    expect(needsConfirmation(lock(), observedAt, 61 * MINUTE, STALE_AFTER)).toBe(true);
    expect(needsConfirmation(lock({ lock: { id: 'x' } }), observedAt, MINUTE, STALE_AFTER)).toBe(true);
  });
});
