import { describe, expect, it } from 'vitest';
import { findingId } from '../../../../functions/core/findings/fingerprint.js';
import { recordWorkspaceScan } from '../../../../functions/core/findings/lifecycle.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const day1 = new Date('2026-11-01T02:00:00Z');
const day2 = new Date('2026-11-02T02:00:00Z');
const scan = (scanId: string, now: Date, outcome: 'ok' | 'failed' | 'busy' = 'ok') => ({
  workspace: 'payments-prod',
  scanId,
  now,
  outcome,
});

describe('recordWorkspaceScan', () => {
  it('opens new findings with a stable id and first/last seen times', () => {
    const { current, history } = recordWorkspaceScan(undefined, [driftDraft()], scan('s1', day1));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      id: findingId(driftDraft()),
      status: 'new',
      scanId: 's1',
      firstSeenAt: day1.toISOString(),
      lastSeenAt: day1.toISOString(),
    });
    expect(current.findings).toEqual(history);
    expect(current.lastScan).toEqual({ scanId: 's1', status: 'ok', at: day1.toISOString() });
  });

  it('keeps firstSeenAt for a finding seen again and marks it ongoing', () => {
    const first = recordWorkspaceScan(undefined, [driftDraft()], scan('s1', day1));
    const second = recordWorkspaceScan(first.current, [driftDraft()], scan('s2', day2));
    expect(second.history[0]).toMatchObject({
      status: 'ongoing',
      firstSeenAt: day1.toISOString(),
      lastSeenAt: day2.toISOString(),
    });
  });

  it('resolves what a trusted scan no longer sees, and records the resolution in history', () => {
    const first = recordWorkspaceScan(undefined, [driftDraft()], scan('s1', day1));
    const second = recordWorkspaceScan(first.current, [], scan('s2', day2));
    expect(second.current.findings).toEqual([]);
    expect(second.history).toEqual([expect.objectContaining({ status: 'resolved', scanId: 's2' })]);
  });

  it('never resolves infrastructure findings on a failed or busy scan', () => {
    const first = recordWorkspaceScan(undefined, [driftDraft()], scan('s1', day1));
    for (const outcome of ['failed', 'busy'] as const) {
      const next = recordWorkspaceScan(first.current, [scanFailedDraft()], scan('s2', day2, outcome));
      expect(next.current.findings.map((finding) => finding.kind).sort()).toEqual([
        'scan-failed',
        'terraform-drift',
      ]);
      const drift = next.current.findings.find((finding) => finding.kind === 'terraform-drift');
      expect(drift).toEqual(first.current.findings[0]);
      expect(next.history.map((finding) => finding.kind)).toEqual(['scan-failed']);
    }
  });

  it('resolves a previous scan failure once a scan succeeds', () => {
    const failed = recordWorkspaceScan(undefined, [scanFailedDraft()], scan('s1', day1, 'failed'));
    const ok = recordWorkspaceScan(failed.current, [], scan('s2', day2));
    expect(ok.current.findings).toEqual([]);
    expect(ok.history).toEqual([expect.objectContaining({ kind: 'scan-failed', status: 'resolved' })]);
  });

  it('identifies findings by what and where, never by values', () => {
    const before = driftDraft();
    const changedValue = driftDraft({
      drift: {
        action: 'update',
        changes: [{ path: 'tags.Owner', before: 'payments', after: 'someone-else', sensitive: false }],
      },
    });
    const otherPath = driftDraft({
      drift: {
        action: 'update',
        changes: [{ path: 'tags.Team', before: 'a', after: 'b', sensitive: false }],
      },
    });
    expect(findingId(changedValue)).toBe(findingId(before));
    expect(findingId(otherPath)).not.toBe(findingId(before));
    expect(findingId(driftDraft({ workspace: 'payments-staging' }))).not.toBe(findingId(before));
    expect(findingId(before)).toMatch(/^[0-9a-f]{64}$/);
  });
});
