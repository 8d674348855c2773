import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import type { StateVersion } from '../../../../functions/core/scan/ports.js';
import { scanWorkspace } from '../../../../functions/core/scan/scan-workspace.js';
import { fakePorts, now, plan, tagDrift, workspace } from './scan-fakes.js';

/** Ports whose state-version reads answer from `versions` in turn; an Error entry is thrown. */
function ports(versions: Array<StateVersion | undefined | Error>) {
  const { ports: scanPorts, calls } = fakePorts({ plans: [plan([tagDrift])], versions });
  return { scanPorts, closes: () => calls.filter((call) => call === 'close') };
}

const accessDenied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });

describe('state version read errors', () => {
  it('fail the scan with the cause instead of silently turning concurrent-apply detection off', async () => {
    // Both reads failing used to compare undefined with undefined: "stable", drift reported.
    const { scanPorts, closes } = ports([accessDenied]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('failed');
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.state-version-failed' });
    expect(finding!.detail).toContain('Access Denied');
    expect(finding!.detail).toContain('s3://tfstate/payments/terraform.tfstate');
    expect(closes()).toEqual(['close']);
  });

  it('fail the scan when only the read after the plan fails', async () => {
    const { scanPorts } = ports([{ versionId: 'v1' }, accessDenied]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('failed');
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.state-version-failed']);
  });

  it('a missing state object (no version, no error) is a failed scan naming the key, never "no drift"', async () => {
    // Terraform plans an empty state without complaint and finds nothing: a never-applied workspace,
    // or a registry entry with a mistyped key, used to pass every night as a clean workspace.
    const { scanPorts, closes } = ports([undefined]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('failed');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.state-missing' });
    expect(result.findings[0]!.detail).toContain('no state at s3://tfstate/payments/terraform.tfstate');
    expect(result.findings[0]!.detail).toMatch(/never applied.*wrong backend/);
    expect(closes()).toEqual(['close']);
  });

  it('a state object that appears during the plan is planned again, not reported missing', async () => {
    const { scanPorts } = ports([undefined, { versionId: 'v1' }]);
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, scanPorts, { now });
    expect(result.status).toBe('ok');
    expect(result.plansRun).toBe(2);
  });
});
