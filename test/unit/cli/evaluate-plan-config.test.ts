import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../../functions/core/findings/model.js';
import { runCli } from '../../helpers/integration.js';
import { entry, plan } from '../../helpers/plan-builders.js';

/** `driftwatch evaluate-plan --config DIR`: the plan's configuration supplies ignore_changes. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-evaluate-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { DRIFTWATCH_HASH_SALT: 'cli-test-salt-000000001' };

const tags = (owner: string, team: string) => ({ Owner: owner, Team: team });
const planPath = join(dir, 'plan.json');
writeFileSync(
  planPath,
  JSON.stringify(
    plan({
      drift: [
        entry('aws_s3_bucket.b', {
          before: { bucket: 'exp-b', tags: tags('payments', 'ledger'), tags_all: tags('payments', 'ledger') },
          after: { bucket: 'exp-b', tags: tags('finance', 'ledger'), tags_all: tags('finance', 'ledger') },
        }),
      ],
    }),
  ),
);
const config = join(dir, 'infra');
mkdirSync(config);
writeFileSync(
  join(config, 'main.tf'),
  'resource "aws_s3_bucket" "b" {\n  bucket = "exp-b"\n  lifecycle {\n    ignore_changes = [tags["Owner"]]\n  }\n}\n',
);

describe('driftwatch evaluate-plan --config', () => {
  it('drift confined to ignored attributes is info (exit 0) and names the file', async () => {
    const run = await runCli(['evaluate-plan', planPath, '--config', config, '--format', 'json'], { env });
    expect(run.code).toBe(0);
    const findings = JSON.parse(run.stdout) as Finding[];
    expect(findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['drift.ignored-changes', 'info'],
    ]);
    expect(findings[0]?.detail).toContain('ignored by lifecycle.ignore_changes in main.tf');
  });

  it('without --config the same plan is drift above info (exit 2)', async () => {
    const run = await runCli(['evaluate-plan', planPath, '--format', 'json'], { env });
    expect(run.code).toBe(2);
    expect((JSON.parse(run.stdout) as Finding[]).map((finding) => finding.ruleId)).toEqual(['drift.update']);
  });

  it('a directory that does not exist is one line with cause and fix, exit 1', async () => {
    const run = await runCli(['evaluate-plan', planPath, '--config', join(dir, 'nope')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/cannot read the configuration in .*nope.*leave out --config/);
  });
});

describe('driftwatch evaluate-plan --registry --workspace', () => {
  const registry = join(dir, 'driftwatch.yaml');
  writeFileSync(
    registry,
    [
      'version: 1',
      'owners:',
      '  fallback: payments',
      '  teams:',
      '    - id: payments',
      '      destinations: [{ type: email, address: payments@example.com }]',
      'workspaces:',
      '  - id: payments-prod',
      '    owner: payments',
      '    environment: prod',
      '    source: { dir: . }',
      '    backend: { bucket: tfstate-prod, key: payments/prod.tfstate, region: eu-west-1 }',
      '',
    ].join('\n'),
  );

  it("the registry's entry supplies owner and environment", async () => {
    const run = await runCli(
      ['evaluate-plan', planPath, '--registry', registry, '--workspace', 'payments-prod', '--format', 'json'],
      { env },
    );
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)[0]).toMatchObject({ owner: 'payments', environment: 'prod' });
  });

  it.each([
    ['a typo', 'payments-prd'],
    ['the start of the id', 'payments'],
  ])(
    'a workspace the registry lacks (%s) is an error naming the closest id, not a quiet evaluation without it',
    async (_, typed) => {
      const run = await runCli(
        ['evaluate-plan', planPath, '--registry', registry, '--workspace', typed, '--fail-on', 'high'],
        { env },
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `driftwatch: workspace ${typed} is not in ${registry} (did you mean payments-prod?): pass --workspace with one of its ids, or leave --workspace out to use only its policies\n`,
      );
    },
  );

  it('without --workspace only its policies are used', async () => {
    const run = await runCli(['evaluate-plan', planPath, '--registry', registry, '--format', 'json'], {
      env,
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)[0]).toMatchObject({ workspace: 'adhoc' });
  });
});
