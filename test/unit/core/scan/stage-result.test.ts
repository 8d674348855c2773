import { describe, expect, it } from 'vitest';
import { bucketResult } from '../../../../functions/core/backend/bucket-event.js';
import type { Digest } from '../../../../functions/core/notify/digest.js';
import { type NotifyResult, notifySummary } from '../../../../functions/core/notify/notify-owners.js';
import { MAX_LISTED, STEP_FUNCTIONS_PAYLOAD_BYTES } from '../../../../functions/core/scan/stage-result.js';
import type { ScopeCheckOutcome } from '../../../../functions/core/scan/summary.js';
import { storedFinding } from '../../../helpers/findings.js';

const SCOPES = 5000;
const workspace = (index: number) => `workspace-${String(index).padStart(5, '0')}-${'x'.repeat(40)}`;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const event = {
  scanId: '20261129T020000Z-abc123',
  startedAt: '2026-11-29T02:00:00Z',
  registry: 's3://config/driftwatch.yaml',
  bucket: 'tfstate-shared',
};
const longReason = `AccessDenied: ${'not authorized to perform s3:GetObject on this key '.repeat(60)}`;

/**
 * Step Functions refuses a task result over 256 KiB even when the state discards it, and runs the
 * item's Catch as if the stage had failed after doing its work: every stage result that grows with
 * the estate stays under the limit, and still says how many there were.
 */
const results: Array<{ stage: string; result: () => unknown; total: (result: never) => number }> = [
  {
    stage: 'CheckBackend / ConfirmLocks: a state bucket shared by 5,000 workspaces',
    result: () =>
      bucketResult(
        event,
        Array.from(
          { length: SCOPES },
          (_, index): ScopeCheckOutcome => ({
            scope: workspace(index),
            check: 'backend',
            findings: [storedFinding({ workspace: workspace(index) })],
            durationMs: 12,
            ...(index % 2 ? { error: longReason } : {}),
          }),
        ),
      ),
    total: (result: { scopes: unknown[]; scopesNotListed?: number; findings: number }) => {
      expect(result.findings).toBe(SCOPES);
      return result.scopes.length + (result.scopesNotListed ?? 0);
    },
  },
  {
    stage: 'NotifyOwners: an outbox a broken topic filled for a week, 5,000 owners',
    result: () => {
      const digest = (index: number) => ({ digestId: `${event.scanId}.${workspace(index)}` }) as Digest;
      const result: NotifyResult = {
        sent: Array.from({ length: SCOPES }, (_, index) => digest(index)),
        alreadySent: Array.from({ length: SCOPES }, (_, index) => digest(index).digestId),
        deferred: Array.from({ length: SCOPES }, (_, index) => ({
          digestId: digest(index).digestId,
          reason: longReason,
        })),
        resent: Array.from({ length: SCOPES }, (_, index) => digest(index).digestId),
        quarantined: [],
      };
      return notifySummary(result);
    },
    total: (result: { sent: unknown[]; counts: Record<string, number> }) => {
      expect(result.counts).toEqual({ sent: SCOPES, alreadySent: SCOPES, deferred: SCOPES, resent: SCOPES });
      return result.counts.sent ?? 0;
    },
  },
];

describe('stage results stay under the Step Functions payload limit', () => {
  for (const { stage, result, total } of results) {
    it(stage, () => {
      const value = result();
      expect(bytes(value)).toBeLessThan(STEP_FUNCTIONS_PAYLOAD_BYTES / 2);
      expect(total(value as never)).toBe(SCOPES);
    });
  }

  it('lists everything when there is little', () => {
    const result = bucketResult(event, [
      { scope: 'payments-prod', check: 'backend', findings: [storedFinding()], durationMs: 3 },
    ]);
    expect(result).toEqual({
      scanId: event.scanId,
      bucket: event.bucket,
      scopes: [{ scope: 'payments-prod', check: 'backend', findings: 1 }],
      findings: 1,
    });
    expect(MAX_LISTED).toBeGreaterThan(1);
  });
});
