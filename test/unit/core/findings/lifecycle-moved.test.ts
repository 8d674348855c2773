import { describe, expect, it } from 'vitest';
import {
  type CurrentDocument,
  recordWorkspaceScan,
  setSuppression,
} from '../../../../functions/core/findings/lifecycle.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * A `moved` block between two scans: the open finding at the old address is carried over to the
 * new one (first sighting, age and suppression kept), not resolved while a `new` one opens.
 */

const DAY = 24 * 60 * 60_000;
const day = (n: number) => new Date(Date.parse('2026-11-01T02:00:00Z') + (n - 1) * DAY);

function ownerDrift(address: string, owner: string, previousAddress?: string) {
  const drafts = evaluatePlan(
    plan({
      drift: [
        entry(address, {
          ...(previousAddress ? { previousAddress } : {}),
          before: { bucket: 'exp-a', tags: { Owner: 'payments' }, tags_all: { Owner: 'payments' } },
          after: { bucket: 'exp-a', tags: { Owner: owner }, tags_all: { Owner: owner } },
        }),
      ],
    }),
    { ...context(), hashSensitive },
  ).findings;
  expect(drafts).toHaveLength(1);
  return drafts;
}

function nights(...runs: Array<ReturnType<typeof ownerDrift>>) {
  let current: CurrentDocument | undefined;
  return runs.map((drafts, index) => {
    const recorded = recordWorkspaceScan(current, drafts, {
      workspace: 'payments-prod',
      scanId: `s${index + 1}`,
      now: day(index + 1),
      outcome: 'ok',
      check: 'terraform',
    });
    current = recorded.current;
    return recorded;
  });
}

const addressOf = (finding: Finding) => (finding.resource as { address: string }).address;

describe('findings across a moved block', () => {
  it('an open finding at the old address is ongoing at the new one, first seen when it was first seen', () => {
    const [first, second, third] = nights(
      ownerDrift('aws_s3_bucket.a', 'finance'),
      ownerDrift('aws_s3_bucket.a2', 'finance', 'aws_s3_bucket.a'),
      // The move is applied: the plan no longer has previous_address; nothing changes for the finding.
      ownerDrift('aws_s3_bucket.a2', 'finance'),
    );
    const oldId = first!.history[0]!.id;
    expect(second!.history.map((finding) => [addressOf(finding), finding.status])).toEqual([
      ['aws_s3_bucket.a2', 'ongoing'],
    ]);
    const carried = second!.history[0]!;
    expect(carried.firstSeenAt).toBe(day(1).toISOString());
    expect(carried.ageDays).toBe(1);
    expect(carried.evidence.carriedOverFrom).toBe(oldId);
    expect(carried.id).not.toBe(oldId);
    expect(second!.current.findings.map((finding) => finding.id)).toEqual([carried.id]);
    expect(second!.current.resolved).toEqual([]);
    expect(third!.history.map((finding) => [finding.id, finding.status, finding.firstSeenAt])).toEqual([
      [carried.id, 'ongoing', day(1).toISOString()],
    ]);
  });

  it('without a moved block the same two plans are old resolved and new new (the control)', () => {
    const [, second] = nights(
      ownerDrift('aws_s3_bucket.a', 'finance'),
      ownerDrift('aws_s3_bucket.a2', 'finance'),
    );
    expect(second!.history.map((finding) => [addressOf(finding), finding.status])).toEqual([
      ['aws_s3_bucket.a2', 'new'],
      ['aws_s3_bucket.a', 'resolved'],
    ]);
  });

  it('a carried-over finding whose value also changed is changed, not ongoing', () => {
    const [, second] = nights(
      ownerDrift('aws_s3_bucket.a', 'finance'),
      ownerDrift('aws_s3_bucket.a2', 'treasury', 'aws_s3_bucket.a'),
    );
    expect(
      second!.history.map((finding) => [addressOf(finding), finding.status, finding.firstSeenAt]),
    ).toEqual([['aws_s3_bucket.a2', 'changed', day(1).toISOString()]]);
  });

  it('a suppression of the old finding follows it to the new address', () => {
    const [first] = nights(ownerDrift('aws_s3_bucket.a', 'finance'));
    const suppression = {
      reason: 'migration',
      by: 'ana',
      until: day(30).toISOString(),
      at: day(1).toISOString(),
    };
    const suppressed = setSuppression(first!.current, first!.history[0]!.id, suppression)!;
    const second = recordWorkspaceScan(
      suppressed,
      ownerDrift('aws_s3_bucket.a2', 'finance', 'aws_s3_bucket.a'),
      {
        workspace: 'payments-prod',
        scanId: 's2',
        now: day(2),
        outcome: 'ok',
        check: 'terraform',
      },
    );
    expect(
      second.history.map((finding) => [addressOf(finding), finding.status, finding.suppression]),
    ).toEqual([['aws_s3_bucket.a2', 'suppressed', suppression]]);
  });
});
