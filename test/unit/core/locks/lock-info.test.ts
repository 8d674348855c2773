import { describe, expect, it } from 'vitest';
import {
  createdProblem,
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

  it('redacts a whole field before capping it: a credential across the cap leaves nothing of itself', () => {
    const pad = 'x'.repeat(170);
    for (const secret of [
      'postgres://admin:CANARYcap-urlpass-123456@db.example.com:5432/app',
      'ghp_CANARYcapAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'AKIACANARYCAP7EXAMPL',
      'password=CANARYcap-hunter2-long-enough',
    ]) {
      const parsed = parseLockInfo(
        lockBody({ Who: `${pad} ${secret}`, Info: `${pad}=${secret}`, Path: `${pad}/${secret}` }),
      );
      if (!parsed.ok) throw new Error(parsed.reason);
      for (const field of [parsed.lock.who, parsed.lock.info, parsed.lock.path]) {
        expect(field).not.toMatch(/CANARY|AKIA|ghp_/);
        expect(field!.length).toBeLessThanOrEqual(201);
      }
    }
  });

  const now = new Date('2026-11-30T00:00:00Z');

  it('reads Created with nanoseconds; a lock without a usable Created has no age', () => {
    expect(lockCreatedAt({ id: 'x', created: '2026-11-29T00:00:00.123456789Z' }, now)?.toISOString()).toBe(
      '2026-11-29T00:00:00.123Z',
    );
    expect(lockCreatedAt({ id: 'x', created: '2026-11-29T02:00:00+02:00' }, now)?.toISOString()).toBe(
      '2026-11-29T00:00:00.000Z',
    );
    expect(lockCreatedAt({ id: 'x' }, now)).toBeUndefined();
    expect(createdProblem({ id: 'x' }, now)).toMatch(/no Created time/);
  });

  it.each([
    ['yesterday'],
    ['1'],
    ['0'],
    ['-1'],
    ['12/31/1999 10:00'],
    ['2026-11-29'],
    ['Sun, 29 Nov 2026 00:00:00 GMT'],
    ['2026-11-29T00:00:00'],
    ['2026-02-30T00:00:00Z'],
    ['2026-02-29T00:00:00Z'],
    ['2026-04-31T00:00:00Z'],
    ['2026-11-28T24:00:00Z'],
  ])('Created %j, which Date.parse may read but Terraform never writes, gives no age', (created) => {
    expect(lockCreatedAt({ id: 'x', created }, now)).toBeUndefined();
    expect(createdProblem({ id: 'x', created }, now)).toMatch(/not an RFC 3339 time/);
  });

  it("Go's unset time, or any Created before Terraform existed, gives no age; a leap day does", () => {
    expect(createdProblem({ id: 'x', created: '0001-01-01T00:00:00Z' }, now)).toMatch(
      /before Terraform existed/,
    );
    expect(lockCreatedAt({ id: 'x', created: '1999-12-31T23:59:59Z' }, now)).toBeUndefined();
    expect(lockCreatedAt({ id: 'x', created: '2024-02-29T12:00:00Z' }, now)?.toISOString()).toBe(
      '2024-02-29T12:00:00.000Z',
    );
  });

  it('a Created in the future beyond clock skew gives no age; a few minutes of skew is allowed', () => {
    expect(lockCreatedAt({ id: 'x', created: '2099-01-01T00:00:00Z' }, now)).toBeUndefined();
    expect(createdProblem({ id: 'x', created: '2026-11-30T01:00:00Z' }, now)).toMatch(/in the future/);
    expect(lockCreatedAt({ id: 'x', created: '2026-11-30T00:02:00Z' }, now)?.toISOString()).toBe(
      '2026-11-30T00:02:00.000Z',
    );
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
