import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES, type WorkspaceConfig } from '../../../../functions/core/registry/model.js';
import type { ScanPorts, StateVersion } from '../../../../functions/core/scan/ports.js';
import { scanWorkspace } from '../../../../functions/core/scan/scan-workspace.js';
import type { CompactPlan } from '../../../../functions/core/terraform/index.js';

const workspace: WorkspaceConfig = {
  id: 'payments-prod',
  owner: 'payments',
  environment: 'prod',
  source: { dir: 'infra/payments' },
  backend: { bucket: 'tfstate', key: 'payments/terraform.tfstate', region: 'eu-west-1' },
  routes: [],
  env: {},
  varFiles: [],
};

const driftPlan: CompactPlan = {
  formatVersion: '1.2',
  terraformVersion: '1.11.4',
  errored: false,
  complete: true,
  drift: [
    {
      address: 'aws_s3_bucket.ledger',
      type: 'aws_s3_bucket',
      mode: 'managed',
      actions: ['update'],
      changes: [
        { path: 'tags.Owner', segments: ['tags', 'Owner'], before: 'a', after: 'b', sensitive: false },
      ],
    },
  ],
  changes: [],
  outputChanges: [],
  managedResources: [{ address: 'aws_s3_bucket.ledger', type: 'aws_s3_bucket', values: {} }],
};

/** Ports whose state-version reads answer from `versions` in turn; an Error entry is thrown. */
function ports(versions: Array<StateVersion | undefined | Error>) {
  let read = 0;
  const closed: boolean[] = [];
  const scanPorts: ScanPorts = {
    credentials: async () => undefined,
    identity: async () => ({ ok: true, account: '111111111111', arn: 'arn:aws:sts::111111111111:x' }),
    stateVersion: async () => {
      const answer = versions[Math.min(read++, versions.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer;
    },
    prepare: async () => ({
      initDurationMs: 1,
      plan: async () => ({ plan: driftPlan, exitCode: 2, durationMs: 1 }),
      close: async () => {
        closed.push(true);
      },
    }),
  };
  return { scanPorts, closed };
}

const now = new Date('2026-11-29T02:00:00Z');
const accessDenied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });

describe('state version read errors', () => {
  it('fail the scan with the cause instead of silently turning concurrent-apply detection off', async () => {
    // Both reads failing used to compare undefined with undefined: "stable", drift reported.
    const { scanPorts, closed } = ports([accessDenied]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('failed');
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.state-version-failed' });
    expect(finding!.detail).toContain('Access Denied');
    expect(finding!.detail).toContain('s3://tfstate/payments/terraform.tfstate');
    expect(closed).toEqual([true]);
  });

  it('fail the scan when only the read after the plan fails', async () => {
    const { scanPorts } = ports([{ versionId: 'v1' }, accessDenied]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('failed');
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.state-version-failed']);
  });

  it('still treat a missing state object (no version, no error) as a stable, scannable workspace', async () => {
    const { scanPorts } = ports([undefined]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('ok');
    expect(result.findings.map((finding) => finding.kind)).toEqual(['terraform-drift']);
  });
});
