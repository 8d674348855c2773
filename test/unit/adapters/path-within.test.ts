import { describe, expect, it } from 'vitest';
import { isWithin } from '../../../functions/adapters/path-within.js';

describe('isWithin', () => {
  it.each([
    ['/a/b', '/a/b', true],
    ['/a/b/c', '/a/b', true],
    ['/a/b/c', '/a/b/', true],
    ['/a/bc', '/a/b', false],
    ['/a', '/a/b', false],
    ['/etc/passwd', '/', true],
  ])('%s within %s: %s', (path, dir, expected) => {
    expect(isWithin(path, dir)).toBe(expected);
  });
});
