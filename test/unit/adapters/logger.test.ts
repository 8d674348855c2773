import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../functions/adapters/logger.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const HOSTILE = 'a\u001b[2J\u001b]0;title\u0007b\u202ec\u009b31md\re\u2028f';

/** Log lines carry data (addresses, keys, AWS error messages) to a terminal or to CloudWatch. */
describe('logger output safety', () => {
  it('prints text lines with no escape sequence, control or bidi control from data', () => {
    const lines: string[] = [];
    const logger = createLogger({ format: 'text', write: (line) => lines.push(line) });
    logger.warn(`plan of ${HOSTILE}`, { address: HOSTILE, error: new Error(HOSTILE) });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(ACTIVE);
    expect(lines[0]).toContain('plan of ab');
  });

  it('escapes in JSON lines what JSON.stringify leaves raw, keeping the same data', () => {
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', write: (line) => lines.push(line) });
    logger.info('scan', { address: HOSTILE });
    expect(lines[0]).not.toMatch(ACTIVE);
    expect((JSON.parse(lines[0]!) as { address: string }).address).toBe(HOSTILE);
  });
});
