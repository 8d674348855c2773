import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSince, parseUntil } from '../../../cli/since.js';
import { UsageError } from '../../../cli/usage.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

const dir = mkdtempSync(join(tmpdir(), 'driftwatch-date-options-'));
const store = join(dir, 'store');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  const now = new Date();
  await createFindingsStore(createFsObjectStore(store)).recordWorkspace(
    { scanId: 'scan-1', startedAt: now, now },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [driftDraft()],
  );
});
const NOW = new Date('2026-12-05T00:00:00Z');

/**
 * `new Date` reads words after a date, and takes a month name among them as the month:
 * `2026-11-01 dec` was December 11th, and `--until '2027-01-10 feb'` February 1st.
 */
describe('--since and --until take a date or an ISO time and nothing after it', () => {
  it('read the ISO forms as before', () => {
    expect(parseSince('2026-11-01', NOW).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('2026-11-01T08:00:00+01:00', NOW).toISOString()).toBe('2026-11-01T07:00:00.000Z');
    expect(parseSince('7d', NOW).toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(parseUntil('2027-01-31').toISOString()).toBe('2027-01-31T23:59:59.000Z');
    expect(parseUntil('2027-01-31T12:00:00Z').toISOString()).toBe('2027-01-31T12:00:00.000Z');
  });

  it.each([
    ['2026-11-01 dec', () => parseSince('2026-11-01 dec', NOW), '--since'],
    ['2026-11-01 GMT+5', () => parseSince('2026-11-01 GMT+5', NOW), '--since'],
    ['2027-01-10 feb', () => parseUntil('2027-01-10 feb'), '--until'],
  ])('refuse %j, naming the option', (text, parse, name) => {
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(
      `${name}: ${text} is not a date: use YYYY-MM-DD or an ISO time such as 2026-11-01T08:00:00Z`,
    );
  });

  it('as one line and exit 64 from the command', async () => {
    const run = await runCli(['findings', '--since', '2026-11-01 dec', '--store', store]);
    expect(run.stderr).toBe(
      'driftwatch: --since: 2026-11-01 dec is not a date: use YYYY-MM-DD or an ISO time such as 2026-11-01T08:00:00Z\n',
    );
    expect(run.code).toBe(64);
    expect(run.stdout).toBe('');
  });
});
