import { describe, expect, it } from 'vitest';
import type { Finding, FindingDraft } from '../../../../functions/core/findings/model.js';
import type { WorkspaceScanResult } from '../../../../functions/core/scan/scan-workspace.js';
import { summarizeScan, workspaceRun } from '../../../../functions/core/scan/summary.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const seen = (draft: FindingDraft, status: Finding['status'] = 'new'): Finding => ({
  ...draft,
  id: 'f'.repeat(64),
  status,
  scanId: 'scan-1',
  firstSeenAt: '2026-11-29T02:00:00Z',
  lastSeenAt: '2026-11-29T02:00:00Z',
});
const scan = {
  scanId: 'scan-1',
  startedAt: new Date('2026-11-29T02:00:00Z'),
  finishedAt: new Date('2026-11-29T02:05:00Z'),
  totalWorkspaces: 4,
};
const result = (overrides: Partial<WorkspaceScanResult> = {}): WorkspaceScanResult => ({
  workspace: 'payments-prod',
  status: 'ok',
  findings: [],
  plansRun: 1,
  noiseRemoved: [],
  durationsMs: { init: 1200, plans: [3400] },
  terraformExitCodes: [2],
  ...overrides,
});

describe('scan summary', () => {
  it('keeps timings and noise counts per rule, never the removed paths themselves', () => {
    const run = workspaceRun(
      result({
        noiseRemoved: [
          { rule: 'null-versus-empty', address: 'aws_s3_bucket.a', paths: ['tags', 'tags_all'] },
          { rule: 'null-versus-empty', address: 'aws_s3_bucket.b', paths: ['tags'] },
          { rule: 'companion-attributes', address: 'aws_s3_bucket.a', paths: ['tags_all.Owner'] },
        ],
      }),
      5000,
    );
    expect(run).toEqual({
      durationMs: 5000,
      initMs: 1200,
      plansMs: [3400],
      noiseRemoved: { 'null-versus-empty': 3, 'companion-attributes': 1 },
    });
  });

  it('sums runs recorded elsewhere (the deployed stages) like runs in-process, and tells statuses from findings', () => {
    const prodRun = workspaceRun(
      result({ noiseRemoved: [{ rule: 'null-versus-empty', address: 'aws_s3_bucket.a', paths: ['tags'] }] }),
      5000,
    );
    const summary = summarizeScan(scan, [
      // In-process: the result is at hand.
      { workspace: 'payments-prod', result: result(), findings: [seen(driftDraft())], run: prodRun },
      // Deployed: only the history lines and the run record.
      {
        workspace: 'payments-staging',
        findings: [seen(driftDraft({ workspace: 'payments-staging', severity: 'high' }))],
        run: {
          durationMs: 7000,
          initMs: 900,
          plansMs: [2000, 2500],
          noiseRemoved: { 'null-versus-empty': 2 },
        },
      },
      // A Lambda that died: a scan-failed finding and no run record.
      { workspace: 'dba', findings: [seen(scanFailedDraft({ workspace: 'dba', detail: 'States.Timeout' }))] },
    ]);
    expect(summary.workspaces).toEqual({ total: 4, scanned: 2, failed: 1, busy: 0, skipped: 1 });
    expect(summary.durationsMs).toEqual({
      total: 300_000,
      workspaces: {
        'payments-prod': { total: 5000, init: 1200, plans: [3400] },
        'payments-staging': { total: 7000, init: 900, plans: [2000, 2500] },
      },
    });
    expect(summary.noiseRemoved).toEqual({ 'null-versus-empty': 3 });
    expect(summary.findings).toEqual({
      total: 3,
      bySeverity: { medium: 1, high: 2 },
      byKind: { 'terraform-drift': 2, 'scan-failed': 1 },
    });
    expect(summary.failures).toEqual([{ workspace: 'dba', reason: 'States.Timeout' }]);
  });
});
