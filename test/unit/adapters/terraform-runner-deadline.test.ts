import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTerraformRunner } from '../../../functions/adapters/terraform/runner.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import { SCAN_TIMEOUT_RULE_ID } from '../../../functions/core/scan/runner-plan.js';
import { scanWorkspace } from '../../../functions/core/scan/scan-workspace.js';
import { hashSensitive, policies } from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';
import { fakePorts } from '../core/scan/scan-fakes.js';

/** init succeeds at once; plan hangs far longer than any test, as a long refresh would. */
const SLOW_TERRAFORM = `#!/bin/sh
if [ "$1" = version ]; then printf '{"terraform_version":"1.11.4"}'; exit 0; fi
if [ "$1" = plan ]; then exec sleep 60; fi
exit 0
`;

const tempDir = useTempDirs('driftwatch-runner-deadline-');
const MINUTE = 60_000;

const workspace = parseRegistry(
  [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
    'workspaces:',
    '  - { id: slow, owner: platform, environment: prod, source: { dir: infra }, backend: { bucket: tfstate-prod, key: s.tfstate, region: eu-west-1 } }',
    '',
  ].join('\n'),
).workspaces[0]!;

/**
 * A runner whose clock says the scan started 13 minutes before its deadline and, when the plan
 * starts, is 300 ms short of it: the plan is killed after those 300 ms of real time.
 */
function slowRunner(hint: string, commandTimeoutMs?: number) {
  const base = tempDir();
  mkdirSync(join(base, 'bin'));
  mkdirSync(join(base, 'infra'));
  mkdirSync(join(base, 'work'));
  writeFileSync(join(base, 'bin', 'terraform'), SLOW_TERRAFORM, { mode: 0o755 });
  writeFileSync(join(base, 'infra', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  const start = Date.now();
  const deadline = start + 13 * MINUTE;
  // Readings of the runner's clock: its start and init see 13 minutes left, the plan 300 ms.
  let readings = 0;
  const now = () => (++readings <= 2 ? start : deadline - 300);
  return createTerraformRunner({
    hashSensitive,
    registryDir: base,
    terraformBinary: 'terraform',
    workRoot: join(base, 'work'),
    pluginCacheDir: join(base, 'plugin-cache'),
    baseEnv: { PATH: `${join(base, 'bin')}:${process.env.PATH}`, DRIFTWATCH_PROVIDER_MIRROR: '' },
    ...(commandTimeoutMs ? { commandTimeoutMs } : { deadline: { atMs: deadline, hint, now } }),
  });
}

describe('the runner’s deadline', () => {
  it('kills a plan at the deadline and says how long the scan had and what to do', async () => {
    const runner = slowRunner('; set runner: codebuild');
    const prepared = await runner.prepare(workspace, undefined);
    try {
      const error = await prepared.plan().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect((error as TerraformRunError).timedOut).toBe(true);
      expect((error as TerraformRunError).reason).toBe('plan exceeded 13 min; set runner: codebuild');
    } finally {
      await prepared.close();
    }
  }, 20_000);

  it('becomes one scan-failed finding with the timeout rule LoadRegistry looks for', async () => {
    const runner = slowRunner('; set runner: codebuild');
    const { ports } = fakePorts({ plans: [] });
    ports.prepare = runner.prepare;
    const result = await scanWorkspace(workspace, policies(), ports, { now: new Date() });
    expect(result.status).toBe('failed');
    expect(result.findings).toEqual([
      expect.objectContaining({
        kind: 'scan-failed',
        ruleId: SCAN_TIMEOUT_RULE_ID,
        title: 'Scan of slow failed: plan exceeded 13 min; set runner: codebuild',
        evidence: expect.objectContaining({ stage: 'plan', timedOut: true }),
      }),
    ]);
  }, 20_000);

  it('without a deadline, the per-command limit: the reason names the command, the limit and the usual cause', async () => {
    // A local scan: a provider retrying an endpoint that never answers holds the plan until then.
    const runner = slowRunner('', 400);
    const prepared = await runner.prepare(workspace, undefined);
    try {
      const error = (await prepared.plan().catch((caught: unknown) => caught)) as TerraformRunError;
      expect(error.timedOut).toBe(true);
      expect(error.reason).toBe(
        'terraform plan did not finish in 0.4 s and was stopped: a provider waiting on an endpoint that does not answer is the usual cause (check its endpoints, proxy and network)',
      );
    } finally {
      await prepared.close();
    }
  }, 20_000);
});
