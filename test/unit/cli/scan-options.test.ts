import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { MAX_CONCURRENCY, parseConcurrency } from '../../../cli/commands/scan.js';

describe('scan --concurrency', () => {
  it.each([
    ['1', 1],
    ['2', 2],
    [String(MAX_CONCURRENCY), MAX_CONCURRENCY],
  ])('takes %s', (value, expected) => {
    expect(parseConcurrency(value)).toBe(expected);
  });

  // Each plan holds ~0.8 GB for the AWS provider: a count past the limit is a typo, and forms that
  // Number() reads but nobody types for a count are refused rather than guessed at.
  it.each([
    '0',
    '-1',
    '65',
    '1000',
    '99999999999',
    '1e3',
    '0x10',
    '2.0',
    '2.5',
    ' 2',
    '2 ',
    '',
    'two',
    'Infinity',
  ])('refuses %j with the range', (value) => {
    expect(() => parseConcurrency(value)).toThrow(InvalidArgumentError);
    expect(() => parseConcurrency(value)).toThrow(`from 1 to ${MAX_CONCURRENCY}`);
  });
});
