import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { scanWorkspace } from '../../../../functions/core/scan/scan-workspace.js';
import type { ConfigurationFacts } from '../../../../functions/core/terraform/configuration.js';
import { fakePorts, now, plan, tagDrift, workspace } from './scan-fakes.js';

/** A scan hands the configuration facts of the checked-out source to the evaluation. */

function ports(configuration: ConfigurationFacts | undefined) {
  return fakePorts({ plans: [plan([tagDrift])], ...(configuration ? { configuration } : {}) }).ports;
}

describe('scanWorkspace with configuration facts', () => {
  it('drift confined to ignore_changes attributes is info, naming the file', async () => {
    const facts: ConfigurationFacts = {
      ignoreChanges: [{ address: 'aws_s3_bucket.ledger', paths: [['tags']], file: 'main.tf' }],
      removed: [],
    };
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, ports(facts), { now });
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['drift.ignored-changes', 'info'],
    ]);
    expect(result.findings[0]?.detail).toContain('ignored by lifecycle.ignore_changes in main.tf');
  });

  it('without facts (source unreadable) the same drift is reported as usual', async () => {
    const result = await scanWorkspace(workspace, DEFAULT_POLICIES, ports(undefined), { now });
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['drift.update', 'low'],
    ]);
  });
});
