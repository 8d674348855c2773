import { describe, expect, it } from 'vitest';
import { assertFindingIdShape, resolveFindingId } from '../../../cli/finding-ref.js';
import { UsageError } from '../../../cli/usage.js';

/**
 * An id typed with an invisible character (an escape sequence pasted from a coloured table, a zero
 * width space) is refused, and the refusal shows that character escaped: stripped, `4f5f<ESC>[31m`
 * read "4f5f is not a finding id", which names a valid prefix as the culprit.
 */
describe('a typed id with invisible characters', () => {
  it.each([
    ['4f5f\u001b[31m', '"4f5f\\u001b[31m" is not a finding id or prefix'],
    ['4f5f\u200b', '"4f5f\\u200b" is not a finding id or prefix'],
  ])('%j is refused with the character shown', (typed, message) => {
    for (const check of [() => assertFindingIdShape(typed), () => resolveFindingId(typed, [], 'store')]) {
      const refused = (() => {
        try {
          check();
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toContain(message);
    }
  });
});
