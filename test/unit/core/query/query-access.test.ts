import { describe, expect, it } from 'vitest';
import {
  callerNames,
  callerScope,
  isVisible,
  matchesArnPattern,
  parseQueryAccess,
  type QueryAccess,
  QueryAccessError,
} from '../../../../functions/core/query/query-access.js';
import { storedFinding } from '../../../helpers/findings.js';

const ACCESS: QueryAccess = {
  admins: ['arn:aws:iam::111111111111:role/platform-admin'],
  owners: {
    payments: ['arn:aws:iam::111111111111:role/payments-*', 'arn:aws:iam::222222222222:user/auditor'],
    data: ['arn:aws:iam::111111111111:role/*data-readers'],
  },
  fallbackOwner: 'platform',
};
const session = (role: string) => `arn:aws:sts::111111111111:assumed-role/${role}/someone`;

describe('query access: who sees whose findings', () => {
  it('matches patterns whole, with * across any characters and ? for one, everything else literal', () => {
    expect(
      matchesArnPattern(
        'arn:aws:iam::111111111111:role/payments-*',
        'arn:aws:iam::111111111111:role/payments-ro',
      ),
    ).toBe(true);
    expect(
      matchesArnPattern(
        'arn:aws:iam::111111111111:role/payments-*',
        'arn:aws:iam::111111111111:role/paymentsX',
      ),
    ).toBe(false);
    expect(matchesArnPattern('arn:aws:iam::1111111111?1:role/a', 'arn:aws:iam::111111111101:role/a')).toBe(
      true,
    );
    // A dot in a pattern is a dot, not "any character".
    expect(matchesArnPattern('arn:aws:iam::1:user/a.b', 'arn:aws:iam::1:user/aXb')).toBe(false);
    expect(matchesArnPattern('arn:aws:iam::1:role/a', 'arn:aws:iam::1:role/a-longer')).toBe(false);
  });

  it('knows an assumed-role session by its role ARN too', () => {
    expect(callerNames(session('payments-ro'))).toEqual([
      session('payments-ro'),
      'arn:aws:iam::111111111111:role/payments-ro',
    ]);
    expect(callerNames('arn:aws:iam::1:user/x')).toEqual(['arn:aws:iam::1:user/x']);
  });

  it('gives admins every owner, others the owners their patterns name, strangers nothing', () => {
    expect(callerScope(session('platform-admin'), ACCESS)).toEqual({ all: true });
    expect(callerScope(session('payments-ro'), ACCESS)).toEqual({
      all: false,
      owners: new Set(['payments']),
    });
    expect(callerScope('arn:aws:iam::222222222222:user/auditor', ACCESS)).toEqual({
      all: false,
      owners: new Set(['payments']),
    });
    expect(callerScope(session('team-data-readers'), ACCESS)).toEqual({
      all: false,
      owners: new Set(['data']),
    });
    expect(callerScope(session('platform-admins'), ACCESS)).toBeUndefined();
    expect(callerScope(undefined, ACCESS)).toBeUndefined();
  });

  it('counts a finding without an owner as the fallback owner’s', () => {
    const ownerless = storedFinding({ owner: undefined });
    expect(isVisible(ownerless, { all: false, owners: new Set(['payments']) }, ACCESS)).toBe(false);
    expect(isVisible(ownerless, { all: false, owners: new Set(['platform']) }, ACCESS)).toBe(true);
    expect(
      isVisible(storedFinding({ owner: 'payments' }), { all: false, owners: new Set(['payments']) }, ACCESS),
    ).toBe(true);
    expect(isVisible(ownerless, { all: true }, ACCESS)).toBe(true);
  });

  it('parses the stack’s JSON and names what is wrong', () => {
    expect(parseQueryAccess(JSON.stringify(ACCESS))).toEqual(ACCESS);
    expect(() => parseQueryAccess('{')).toThrow(QueryAccessError);
    expect(() => parseQueryAccess(JSON.stringify({ ...ACCESS, admins: ['payments-admin'] }))).toThrow(
      "query access admins.0: an ARN pattern starts with 'arn:' (or is '*' for every caller)",
    );
    expect(() => parseQueryAccess(JSON.stringify({ admins: [], owners: {} }))).toThrow(/fallbackOwner/);
  });
});
