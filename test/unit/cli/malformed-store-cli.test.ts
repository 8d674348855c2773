import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/**
 * A store edited by hand (or written by a tool that is not driftwatch) with a finding whose times
 * are no times: every command that shows findings says which object and field, in one line, exit 1,
 * instead of an unexpected error (the report) or an age of `NaNd` (the table).
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-malformed-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BAD_TIMES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['firstSeenAt', { firstSeenAt: 'yesterday' }],
  ['lastSeenAt', { lastSeenAt: '' }],
  ['resolvedAt', { resolvedAt: 'soon' }],
  [
    'suppression.until',
    {
      status: 'suppressed',
      suppression: { reason: 'r', by: 'b', until: 'never', at: '2026-11-01T00:00:00Z' },
    },
  ],
];
const stores = new Map<string, string>();

beforeAll(async () => {
  for (const [field, changed] of BAD_TIMES) {
    const store = join(dir, field);
    const at = new Date(Date.now() - 60_000);
    await createFindingsStore(createFsObjectStore(store)).recordWorkspace(
      { scanId: 'scan-1', startedAt: at, now: at },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    const file = join(store, 'current', 'payments-prod.json');
    const document = JSON.parse(readFileSync(file, 'utf8'));
    document.findings[0] = { ...document.findings[0], ...changed };
    writeFileSync(file, JSON.stringify(document));
    stores.set(field, store);
  }
});

describe.each(BAD_TIMES)('a stored finding whose %s is no time', (field) => {
  it.each([
    ['findings', []],
    ['findings --format json', ['--format', 'json']],
    ['report', ['--out', join(dir, `${field}.html`)]],
  ] as const)('%s: one line naming the object and field, exit 1', async (command, extra) => {
    const run = await runCli([...command.split(' ').slice(0, 1), '--store', stores.get(field)!, ...extra]);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/unexpected error|NaN/);
    expect(run.stdout).not.toMatch(/NaN|No findings/);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`current/payments-prod.json`);
    expect(lines[0]).toContain(`findings[0].${field}: not a date and time`);
  });
});
