import { describe, expect, it } from 'vitest';
import type { ScanSummary } from '../../../../functions/core/findings/findings-store.js';
import {
  scanHealth,
  scanMissingAlertId,
  scanMissingFinding,
} from '../../../../functions/core/scan/health.js';

const summary = (scanId: string, finishedAt: string) =>
  ({ scanId, startedAt: finishedAt, finishedAt }) as ScanSummary;
const HOUR = 3_600_000;

describe('scan health', () => {
  const now = new Date('2026-11-29T12:00:00Z');
  it('is fine while the last completed scan is recent enough', () => {
    const health = scanHealth(
      [summary('a', '2026-11-28T02:30:00Z'), summary('b', '2026-11-29T02:30:00Z')],
      now,
      26 * HOUR,
    );
    expect(health).toMatchObject({ missing: false, lastCompleted: { scanId: 'b' } });
  });
  it('reports a missing scan when the last one is too old, or when there never was one', () => {
    expect(scanHealth([summary('a', '2026-11-28T02:30:00Z')], now, 26 * HOUR).missing).toBe(true);
    expect(scanHealth([], now, 26 * HOUR)).toEqual({ missing: true });
  });
  it('alerts again every alertAfter period the outage lasts, once when no scan ever completed', () => {
    const lastNight = [summary('20261128T020000Z', '2026-11-28T02:30:00Z')];
    const idAt = (at: string) => {
      const health = scanHealth(lastNight, new Date(at), 26 * HOUR);
      expect(health.missing).toBe(true);
      return scanMissingAlertId(health, 26 * HOUR);
    };
    // The hourly check: the same id through the first period, a new one as each period completes.
    expect(idAt('2026-11-29T05:00:00Z')).toBe('missing-after-20261128T020000Z');
    expect(idAt('2026-11-30T04:29:00Z')).toBe('missing-after-20261128T020000Z');
    expect(idAt('2026-11-30T06:30:00Z')).toBe('missing-after-20261128T020000Z-2');
    expect(idAt('2026-12-05T12:00:00Z')).toBe('missing-after-20261128T020000Z-6');
    expect(scanMissingAlertId(scanHealth([], now, 26 * HOUR), 26 * HOUR)).toBe('missing-after-none');
    const week = scanHealth(lastNight, new Date('2026-12-05T12:00:00Z'), 26 * HOUR);
    expect(scanMissingFinding(week, 'platform', 26 * HOUR).detail).toContain(
      'finished at 2026-11-28T02:30:00Z (177h ago)',
    );
  });

  it('alerts the fallback owner with a stable title', () => {
    const finding = scanMissingFinding(scanHealth([], now, 26 * HOUR), 'platform', 26 * HOUR);
    expect(finding).toMatchObject({
      kind: 'scan-failed',
      ruleId: 'scan.missing',
      owner: 'platform',
      severity: 'high',
    });
    expect(finding.title).toBe('No driftwatch scan completed within 26h');
  });
});
