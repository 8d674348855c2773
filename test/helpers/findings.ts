import type { ScanSummary } from '../../functions/core/findings/findings-store.js';
import type { Finding, FindingDraft } from '../../functions/core/findings/model.js';

/** A terraform-drift draft with sensible defaults; override what the test is about. */
export function driftDraft(overrides: Partial<FindingDraft> = {}): FindingDraft {
  return {
    kind: 'terraform-drift',
    ruleId: 'drift.update',
    severity: 'medium',
    workspace: 'payments-prod',
    owner: 'payments',
    environment: 'prod',
    resource: {
      address: 'aws_s3_bucket.ledger',
      type: 'aws_s3_bucket',
      provider: 'registry.terraform.io/hashicorp/aws',
    },
    drift: {
      action: 'update',
      changes: [{ path: 'tags.Owner', before: 'payments', after: 'finance', sensitive: false }],
    },
    title: 'aws_s3_bucket.ledger changed outside Terraform: tags.Owner',
    detail: 'The tag Owner changed.',
    evidence: {},
    remediation: { summary: 'Revert or adopt', steps: ['revert', 'adopt'] },
    ...overrides,
  };
}

export function scanFailedDraft(overrides: Partial<FindingDraft> = {}): FindingDraft {
  return {
    kind: 'scan-failed',
    ruleId: 'scan.plan-errored',
    severity: 'high',
    workspace: 'payments-prod',
    title: 'payments-prod: scan failed',
    detail: 'plan errored',
    evidence: {},
    remediation: { summary: 'Fix access', steps: [] },
    ...overrides,
  };
}

let stored = 0;
/** A stored finding made from `draft`: a fresh id (1, 2, … in hex), new in scan-1 at 02:10. */
export function storedFinding(overrides: Partial<Finding> = {}, draft: FindingDraft = driftDraft()): Finding {
  stored++;
  return {
    ...draft,
    id: stored.toString(16).padStart(64, '0'),
    status: 'new',
    scanId: 'scan-1',
    firstSeenAt: '2026-11-29T02:10:00Z',
    lastSeenAt: '2026-11-29T02:10:00Z',
    ...overrides,
  };
}

/** The summary of a nightly scan that finished at `at`, one workspace scanned and nothing found. */
export function scanSummary(scanId: string, at: Date, overrides: Partial<ScanSummary> = {}): ScanSummary {
  return {
    scanId,
    startedAt: at.toISOString(),
    finishedAt: at.toISOString(),
    workspaces: { total: 1, scanned: 1, failed: 0, busy: 0, skipped: 0 },
    durationsMs: { total: 1000, workspaces: {} },
    findings: { total: 0, bySeverity: {}, byKind: {} },
    noiseRemoved: {},
    failures: [],
    ...overrides,
  };
}
