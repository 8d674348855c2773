import { describe, expect, it } from 'vitest';
import { findingId } from '../../../../functions/core/findings/fingerprint.js';
import {
  type CurrentDocument,
  REGRESSION_WINDOW_MS,
  recordWorkspaceScan,
  type ScanContext,
  setSuppression,
} from '../../../../functions/core/findings/lifecycle.js';
import type { FindingDraft } from '../../../../functions/core/findings/model.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const DAY = 24 * 60 * 60_000;
const day = (n: number) => new Date(Date.parse('2026-11-01T02:00:00Z') + (n - 1) * DAY);
const scan = (n: number, overrides: Partial<ScanContext> = {}): ScanContext => ({
  workspace: 'payments-prod',
  scanId: `s${n}`,
  now: day(n),
  outcome: 'ok',
  check: 'terraform',
  ...overrides,
});

/** Runs a sequence of scans, each with its drafts, and returns every recorded result. */
function nights(...runs: Array<[FindingDraft[], Partial<ScanContext>?]>) {
  let current: CurrentDocument | undefined;
  return runs.map(([drafts, overrides], index) => {
    const recorded = recordWorkspaceScan(current, drafts, scan(index + 1, overrides));
    current = recorded.current;
    return recorded;
  });
}

const tagChangedTo = (value: string) =>
  driftDraft({
    drift: {
      action: 'update',
      changes: [{ path: 'tags.Owner', before: 'payments', after: value, sensitive: false }],
    },
  });
const backendDraft = driftDraft({
  kind: 'backend-policy',
  ruleId: 'backend.versioning',
  resource: { bucket: 'tfstate' },
  drift: undefined,
  title: 'tfstate: versioning is off',
});

describe('finding lifecycle', () => {
  it('opens new findings with a stable id, check, value hash and first/last seen times', () => {
    const [first] = nights([[driftDraft()]]);
    expect(first!.history).toEqual([
      expect.objectContaining({
        id: findingId(driftDraft()),
        status: 'new',
        check: 'terraform',
        valueHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        scanId: 's1',
        firstSeenAt: day(1).toISOString(),
        lastSeenAt: day(1).toISOString(),
      }),
    ]);
    expect(first!.current.findings).toEqual(first!.history);
    expect(first!.current.checks.terraform).toEqual({ scanId: 's1', status: 'ok', at: day(1).toISOString() });
  });

  it('new → ongoing → changed → resolved → regressed, keeping the id throughout', () => {
    const results = nights(
      [[tagChangedTo('finance')]],
      [[tagChangedTo('finance')]],
      [[tagChangedTo('legal')]],
      [[]],
      [[tagChangedTo('legal')]],
    );
    const statuses = results.map((result) => result.history.map((finding) => finding.status));
    expect(statuses).toEqual([['new'], ['ongoing'], ['changed'], ['resolved'], ['regressed']]);
    expect(new Set(results.flatMap((result) => result.history.map((finding) => finding.id))).size).toBe(1);
    expect(results[2]!.history[0]!.firstSeenAt).toBe(day(1).toISOString());
    // The drift age counts the days a finding has been open; a resolved line keeps its last age.
    expect(results.map((result) => result.history[0]!.ageDays)).toEqual([0, 1, 2, 2, 0]);
    // A regression is a new episode: its age starts again, and it says when it had been resolved.
    expect(results[4]!.history[0]).toMatchObject({
      firstSeenAt: day(5).toISOString(),
      resolvedAt: day(4).toISOString(),
    });
  });

  it('a finding back after the regression window is new, not regressed', () => {
    const results = nights([[driftDraft()]], [[]]);
    const later = recordWorkspaceScan(results[1]!.current, [driftDraft()], {
      ...scan(3),
      now: new Date(day(2).getTime() + REGRESSION_WINDOW_MS + DAY),
    });
    expect(later.history[0]!.status).toBe('new');
    expect(later.current.resolved).toEqual([]);
  });

  it('never resolves infrastructure findings on a failed, busy or partial run', () => {
    for (const outcome of ['failed', 'busy', 'partial'] as const) {
      const [first, second] = nights([[driftDraft()]], [[scanFailedDraft()], { outcome }]);
      expect(second!.current.findings.map((finding) => finding.kind).sort()).toEqual([
        'scan-failed',
        'terraform-drift',
      ]);
      expect(second!.current.findings.find((finding) => finding.kind === 'terraform-drift')).toEqual(
        first!.current.findings[0],
      );
      expect(second!.history.map((finding) => finding.kind)).toEqual(['scan-failed']);
    }
  });

  it('resolves a previous scan failure once a run succeeds', () => {
    const [, ok] = nights([[scanFailedDraft()], { outcome: 'failed' }], [[]]);
    expect(ok!.current.findings).toEqual([]);
    expect(ok!.history).toEqual([expect.objectContaining({ kind: 'scan-failed', status: 'resolved' })]);
  });

  it('a run of one check leaves the findings of other checks in the same scope alone', () => {
    const [, backendRun, terraformRun] = nights(
      [[driftDraft()]],
      [[backendDraft], { check: 'backend' }],
      [[], { check: 'terraform' }],
    );
    expect(backendRun!.current.findings.map((finding) => finding.check).sort()).toEqual([
      'backend',
      'terraform',
    ]);
    expect(backendRun!.history.map((finding) => finding.check)).toEqual(['backend']);
    expect(terraformRun!.current.findings).toEqual([
      expect.objectContaining({ check: 'backend', status: 'new' }),
    ]);
    expect(terraformRun!.current.checks).toMatchObject({
      backend: { scanId: 's2' },
      terraform: { scanId: 's3' },
    });
  });

  it('identifies findings by what and where, never by values', () => {
    const before = driftDraft();
    expect(findingId(tagChangedTo('someone-else'))).toBe(findingId(before));
    const otherPath = driftDraft({
      drift: {
        action: 'update',
        changes: [{ path: 'tags.Team', before: 'a', after: 'b', sensitive: false }],
      },
    });
    expect(findingId(otherPath)).not.toBe(findingId(before));
    expect(findingId(driftDraft({ workspace: 'payments-staging' }))).not.toBe(findingId(before));
    expect(findingId(before)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('suppressions', () => {
  const suppression = (until: number) => ({
    reason: 'migration in progress',
    by: 'alice',
    until: day(until).toISOString(),
    at: day(1).toISOString(),
  });

  it('keep a finding suppressed while active, also when its value changes', () => {
    const [first] = nights([[driftDraft()]]);
    const suppressed = setSuppression(first!.current, findingId(driftDraft()), suppression(10))!;
    expect(suppressed.findings[0]).toMatchObject({ status: 'suppressed', suppression: suppression(10) });
    const next = recordWorkspaceScan(suppressed, [tagChangedTo('legal')], scan(2));
    expect(next.history[0]).toMatchObject({ status: 'suppressed', suppression: suppression(10) });
  });

  it('an expired suppression reopens the finding as new, saying which suppression expired', () => {
    const [first] = nights([[driftDraft()]]);
    const suppressed = setSuppression(first!.current, findingId(driftDraft()), suppression(3))!;
    const reopened = recordWorkspaceScan(suppressed, [driftDraft()], scan(4));
    expect(reopened.history[0]).toMatchObject({ status: 'new', firstSeenAt: day(1).toISOString() });
    expect(reopened.history[0]!.suppression).toBeUndefined();
    expect(reopened.history[0]!.evidence.suppressionExpired).toEqual(suppression(3));
  });

  it('still applies when a suppressed finding resolves and comes back', () => {
    const [first] = nights([[driftDraft()]]);
    const suppressed = setSuppression(first!.current, findingId(driftDraft()), suppression(10))!;
    const resolved = recordWorkspaceScan(suppressed, [], scan(2));
    const back = recordWorkspaceScan(resolved.current, [driftDraft()], scan(3));
    expect(back.history[0]!.status).toBe('suppressed');
  });

  it('can be lifted, and an unknown id is reported as such', () => {
    const [first] = nights([[driftDraft()]]);
    const id = findingId(driftDraft());
    const lifted = setSuppression(setSuppression(first!.current, id, suppression(10))!, id, undefined)!;
    expect(lifted.findings[0]!.status).toBe('ongoing');
    expect(lifted.findings[0]!.suppression).toBeUndefined();
    expect(setSuppression(first!.current, 'f'.repeat(64), suppression(10))).toBeUndefined();
  });
});
