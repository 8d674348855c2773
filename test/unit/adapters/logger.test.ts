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

/**
 * JSON lines were redacted only as serialised text, where a secret inside a field's string sits
 * between escaped quotes: `{"password":"x"}` in an error message, `DB_PASSWORD="x"` (only the
 * backslash was redacted, and the line was no longer JSON), a command's `--api-key x`. Each string
 * is now redacted on its own, and every line still parses.
 */
describe('logger redaction of JSON lines', () => {
  it('keeps secrets in field strings out, and each line valid JSON', () => {
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', write: (line) => lines.push(line) });
    logger.error('request failed', { body: '{"password":"CNRYLOGA1"}' });
    logger.error('command failed', { command: 'export DB_PASSWORD="CNRYLOGB2"' });
    logger.error('command failed', { args: ['serve', '--api-key', 'CNRYLOGC3'] });
    logger.error('login failed', { password: 'CNRYLOGD4', error: new Error('token=CNRYLOGE5 rejected') });
    logger.error('backup failed', { args: ['mysqldump', '-uroot', '-pCNRYLOGF6', 'app'] });
    logger.error('copy failed', { args: ['sshpass', '-p', 'CNRYLOGG7', 'scp', 'a', 'b'] });
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      expect(line).not.toContain('CNRYLOG');
      expect(() => JSON.parse(line), line).not.toThrow();
    }
    expect(JSON.parse(lines[3]!)).toMatchObject({
      password: '(redacted)',
      error: { message: 'token=(redacted) rejected' },
    });
    expect(JSON.parse(lines[4]!).args).toEqual(['mysqldump', '-uroot', '-p(redacted)', 'app']);
    expect(JSON.parse(lines[5]!).args).toEqual(['sshpass', '-p', '(redacted)', 'scp', 'a', 'b']);
  });
});
