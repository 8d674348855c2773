import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { findingsAction } from '../../../cli/commands/findings-action.js';
import { scanDate } from '../../../functions/core/findings/layout.js';
import { actionOutput } from '../../helpers/action-output.js';

/**
 * `findings --health` over a store whose only recent summary is corrupt said "No scans in the last 14
 * days." (a scan did run: its summary could not be read), and its stderr line said "the findings in
 * it are not listed" of a summary, which holds counts, not findings.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-health-unread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findings --health with an unreadable summary', () => {
  it('says the summary could not be read, never "No scans", and what that costs', async () => {
    const folder = join(dir, 'scans', `dt=${scanDate(new Date())}`, 'scan=night-1');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'summary.json'), '');
    let err = '';
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      err += String(chunk);
      return true;
    });
    let run: Awaited<ReturnType<typeof actionOutput>>;
    try {
      run = await actionOutput((exit) => findingsAction(exit, { store: dir, health: true, format: 'table' }));
    } finally {
      stderr.mockRestore();
    }
    expect(run.code).toBe(1);
    expect(run.out).not.toContain('No scans');
    expect(run.out).toContain('No readable scan summary in the last 14 days (1 could not be read).');
    const lines = err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/summary\.json in the findings store is not a valid scan summary \(not JSON/);
    expect(lines[0]).toContain('its scan is not counted');
    expect(lines[0]).not.toContain('findings in it');
  });
});
