import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../../functions/core/registry/duration.js';

describe('parseDuration', () => {
  it.each([
    ['30m', 30 * 60_000],
    ['1h', 3_600_000],
    ['2h30m', 9_000_000],
    ['90s', 90_000],
    ['1d', 86_400_000],
    ['1h0m30s', 3_630_000],
    ['0s', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '',
    '30',
    'm',
    '1 h',
    ' 1h',
    '1h ',
    '30m1h',
    '1h1h',
    '1.5h',
    '-5m',
    '1w',
    '1H',
    '10ms',
    'PT1H',
    '1h30',
  ])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/is not a duration: use a number and a unit \(d, h, m, s\)/);
  });

  it('rejects a duration too long to count in milliseconds exactly', () => {
    expect(() => parseDuration('99999999999999999d')).toThrow(/too long/);
  });
});
