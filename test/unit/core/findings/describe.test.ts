import { describe, expect, it } from 'vitest';
import { changeSummary } from '../../../../functions/core/findings/describe.js';

describe('changeSummary', () => {
  it('names the path of each change, and only the values for a whole value (an output)', () => {
    expect(
      changeSummary({
        title: 't',
        drift: {
          action: 'update',
          changes: [{ path: 'tags.Owner', before: 'a', after: 'b', sensitive: false }],
        },
      }),
    ).toBe('tags.Owner: a → b');
    expect(
      changeSummary({
        title: 'Output url changed',
        drift: { action: 'update', changes: [{ path: '', before: null, after: 'baz', sensitive: false }] },
      }),
    ).toBe('null → baz');
  });
});
