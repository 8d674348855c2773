import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES, type WorkspaceConfig } from '../../../../functions/core/registry/model.js';
import type { PreparedWorkspace, ScanPorts } from '../../../../functions/core/scan/ports.js';
import { scanWorkspace } from '../../../../functions/core/scan/scan-workspace.js';
import type { ConfigurationFacts } from '../../../../functions/core/terraform/configuration.js';
import type { CompactPlan } from '../../../../functions/core/terraform/index.js';

/** A scan hands the configuration facts of the checked-out source to the evaluation. */

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

const plan: CompactPlan = {
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
        {
          path: 'tags.Owner',
          segments: ['tags', 'Owner'],
          before: 'payments',
          after: 'finance',
          sensitive: false,
        },
      ],
    },
  ],
  changes: [],
  outputChanges: [],
  managedResources: [{ address: 'aws_s3_bucket.ledger', type: 'aws_s3_bucket', values: {} }],
};

function ports(configuration: ConfigurationFacts | undefined): ScanPorts {
  return {
    credentials: async () => undefined,
    identity: async () => ({
      ok: true,
      account: '123456789012',
      arn: 'arn:aws:sts::123456789012:assumed-role/r/s',
    }),
    stateVersion: async () => ({ versionId: 'v1' }),
    prepare: async (): Promise<PreparedWorkspace> => ({
      initDurationMs: 1,
      ...(configuration ? { configuration } : {}),
      plan: async () => ({ plan, exitCode: 2, durationMs: 1 }),
      close: async () => {},
    }),
  };
}

const now = new Date('2026-11-29T02:00:00Z');

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
