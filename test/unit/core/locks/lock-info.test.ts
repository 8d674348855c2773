import { describe, expect, it } from 'vitest';
import {
  lockCreatedAt,
  operationKind,
  operationLabel,
  parseLockInfo,
} from '../../../../functions/core/locks/lock-info.js';
import { lockBody } from '../../../helpers/backend.js';

describe('parseLockInfo', () => {
  it('reads the lock info Terraform writes', () => {
    expect(parseLockInfo(lockBody())).toEqual({
      ok: true,
      lock: {
        id: 'a1b2c3d4-0000-4000-8000-000000000001',
        operation: 'OperationTypeApply',
        who: 'ci@runner-7',
        version: '1.11.4',
        created: '2026-11-29T00:00:00.123456789Z',
        path: 'tfstate/payments/terraform.tfstate',
      },
    });
  });

  it.each([
    ['', /empty/],
    ['{not json', /not JSON \(9 characters\)/],
    ['null', /not a JSON object/],
    ['[1]', /not a JSON object/],
    [JSON.stringify({ Who: 'someone' }), /no ID/],
    [JSON.stringify({ ID: 42 }), /no ID/],
  ])('an unreadable body gets a reason, never a crash: %j', (body, reason) => {
    const parsed = parseLockInfo(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('caps and redacts what an untrusted writer put in the fields', () => {
    const parsed = parseLockInfo(lockBody({ Info: 'password=hunter2-very-secret', Who: 'x'.repeat(500) }));
    expect(parsed.ok && parsed.lock.info).toBe('password=(redacted)');
    expect(parsed.ok && parsed.lock.who?.length).toBeLessThanOrEqual(201);
  });

  it('reads Created with nanoseconds; a lock without a usable Created has no age', () => {
    expect(lockCreatedAt({ id: 'x', created: '2026-11-29T00:00:00.123456789Z' })?.toISOString()).toBe(
      '2026-11-29T00:00:00.123Z',
    );
    expect(lockCreatedAt({ id: 'x' })).toBeUndefined();
    expect(lockCreatedAt({ id: 'x', created: 'yesterday' })).toBeUndefined();
  });
});

describe('operations', () => {
  it('map to the plan, apply and default thresholds', () => {
    expect(operationKind('OperationTypePlan')).toBe('plan');
    expect(operationKind('OperationTypeApply')).toBe('apply');
    expect(operationKind('OperationTypeRefresh')).toBe('default');
    expect(operationKind('state-push')).toBe('default');
    expect(operationKind(undefined)).toBe('default');
    expect(operationLabel('OperationTypeApply')).toBe('apply');
    expect(operationLabel('state-push')).toBe('state-push');
  });
});
