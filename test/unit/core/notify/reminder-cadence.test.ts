import { describe, expect, it } from 'vitest';
import { type CurrentDocument, recordWorkspaceScan } from '../../../../functions/core/findings/lifecycle.js';
import { buildDigests } from '../../../../functions/core/notify/digest.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { driftDraft } from '../../../helpers/findings.js';

const DAY = 86_400_000;
const FIRST_NIGHT = Date.parse('2026-11-01T02:00:00Z');

/**
 * Reminders through the real lifecycle: runs of one workspace that keeps one drift open, each
 * recorded on the document the run before left, and the digest each run's history gives. Returns
 * the runs (day and hour after the first night) whose digest reminded the owner.
 */
function remindedRuns(runs: Array<{ day: number; hour?: number }>): string[] {
  let document: CurrentDocument | undefined;
  const reminded: string[] = [];
  for (const { day, hour = 0 } of runs) {
    const now = new Date(FIRST_NIGHT + day * DAY + hour * 3_600_000);
    const recorded = recordWorkspaceScan(document, [driftDraft()], {
      workspace: 'payments-prod',
      scanId: `scan-${day}-${hour}`,
      now,
      outcome: 'ok',
      check: 'terraform',
    });
    document = recorded.current;
    const [digest] = buildDigests({
      scanId: `scan-${day}-${hour}`,
      now,
      findings: recorded.history,
      fallbackOwner: 'platform',
      settings: DEFAULT_NOTIFICATION_SETTINGS,
    });
    if (digest && digest.counts.reminders > 0) reminded.push(hour ? `day ${day} +${hour}h` : `day ${day}`);
  }
  return reminded;
}

const nights = (days: number[]) => days.map((day) => ({ day }));

describe('reminders of a finding still open (weekly)', () => {
  it('come once a week on nightly scans', () => {
    expect(remindedRuns(nights([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]))).toEqual([
      'day 7',
      'day 14',
    ]);
  });

  it('come with the next scan when the night a week completes had none (a broken registry, a failed run), not a week later', () => {
    expect(remindedRuns(nights([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 15, 16]))).toEqual([
      'day 8',
      'day 15',
    ]);
  });

  it('come once when the finding is re-scanned on the day a reminder was sent', () => {
    expect(
      remindedRuns([
        ...nights([0, 1, 2, 3, 4, 5, 6, 7]),
        { day: 7, hour: 9 },
        { day: 7, hour: 15 },
        { day: 8 },
      ]),
    ).toEqual(['day 7']);
  });
});
