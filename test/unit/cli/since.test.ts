import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/context.js';
import { parseSince, parseUntil } from '../../../cli/since.js';

const NOW = new Date('2026-12-02T06:00:00Z');

describe('--since and --until dates', () => {
  it('read real days as given', () => {
    expect(parseSince('2024-02-29', NOW).toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseSince('2026-11-30T08:00:00Z', NOW).toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(parseUntil('2027-01-31').toISOString()).toBe('2027-01-31T23:59:59.000Z');
  });

  // JavaScript's Date rolls 2026-02-30 over to March 2nd; such a typo must not become another day.
  it.each(['2026-02-30', '2026-04-31', '2025-02-29', '2026-02-30T08:00:00Z', '2026-00-10'])(
    'reject %s, a day that does not exist, as a usage error',
    (text) => {
      expect(() => parseSince(text, NOW)).toThrow(UsageError);
      expect(() => parseSince(text, NOW)).toThrow(/--since: \d{4}-\d{2}-\d{2} is not a day of the calendar/);
      expect(() => parseUntil(text)).toThrow(/--until: \d{4}-\d{2}-\d{2} is not a day of the calendar/);
    },
  );
});
