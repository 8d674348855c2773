import { describe, expect, it } from 'vitest';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import { MAX_RUN_OVERLAP_MS } from '../../../../functions/core/findings/lifecycle.js';
import { memoryObjectStore } from '../../../helpers/backend.js';
import { driftDraft } from '../../../helpers/findings.js';

const DAY = 24 * 60 * 60_000;
const night = (n: number) => new Date(Date.parse('2026-11-01T02:00:00Z') + n * DAY);
const target = { workspace: 'payments-prod', check: 'terraform' as const, outcome: 'ok' as const };
const ledger = driftDraft();
const other = driftDraft({
  resource: { address: 'aws_s3_bucket.audit', type: 'aws_s3_bucket', provider: 'aws' },
  title: 'aws_s3_bucket.audit changed outside Terraform: tags.Owner',
});

describe('a run recorded by a clock far ahead (clock going backwards between scans)', () => {
  for (const ahead of [2 * DAY, 365 * DAY]) {
    it(`does not freeze the scope: later nights still resolve and open findings (${ahead / DAY} days ahead)`, async () => {
      const store = createFindingsStore(memoryObjectStore());
      // One run on a machine whose clock was ahead, then the nightly scans with the right time.
      const skewed = new Date(night(1).getTime() + ahead);
      await store.recordWorkspace({ scanId: 'laptop', startedAt: skewed, now: skewed }, target, [ledger]);
      const fixed = await store.recordWorkspace(
        { scanId: 'n2', startedAt: night(1), now: night(1) },
        target,
        [other],
      );
      expect(fixed.history.map((line) => [line.title, line.status])).toEqual([
        [other.title, 'new'],
        [ledger.title, 'resolved'],
      ]);
      const current = (await store.readCurrent('payments-prod'))!.document;
      expect(current.findings.map((finding) => [finding.title, finding.status])).toEqual([
        [other.title, 'new'],
      ]);
      expect(current.checks.terraform?.scanId).toBe('n2');
    });
  }

  it('a finding first seen by a clock ahead is never first seen after it is last seen (no negative age)', async () => {
    const store = createFindingsStore(memoryObjectStore());
    const skewed = new Date(night(1).getTime() + 3 * DAY);
    await store.recordWorkspace({ scanId: 'laptop', startedAt: skewed, now: skewed }, target, [ledger]);
    const seen = await store.recordWorkspace({ scanId: 'n2', startedAt: night(1), now: night(1) }, target, [
      ledger,
    ]);
    expect(seen.history.map((line) => [line.status, line.firstSeenAt, line.ageDays])).toEqual([
      ['ongoing', night(1).toISOString(), 0],
    ]);
  });

  it('a run recorded within the overlap window of a later run is still superseded by it', async () => {
    const store = createFindingsStore(memoryObjectStore());
    const later = new Date(night(1).getTime() + MAX_RUN_OVERLAP_MS);
    await store.recordWorkspace({ scanId: 'rescan', startedAt: later, now: later }, target, [ledger]);
    const older = await store.recordWorkspace({ scanId: 'n1', startedAt: night(1), now: night(1) }, target, [
      other,
    ]);
    expect(older.history.map((line) => line.status)).toEqual(['ongoing']);
    expect((await store.readCurrent('payments-prod'))!.document.checks.terraform?.scanId).toBe('rescan');
  });
});
