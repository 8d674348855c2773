import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTerraformRunner, withProviderExitHint } from '../../../functions/adapters/terraform/runner.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import { scanWorkspace } from '../../../functions/core/scan/scan-workspace.js';
import { hashSensitive, plan, policies } from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';
import { fakePorts } from '../core/scan/scan-fakes.js';

/**
 * Terraform ended by a signal that is not the scan's own time limit: the out-of-memory killer
 * (SIGKILL) or someone's `kill` (SIGTERM). The stand-in ends itself with the signal at one command,
 * after printing an error and, for a plan, writing part of its plan file, as a run cut short does.
 */
function terraformKilledAt(command: string, signal: 'KILL' | 'TERM', onlyTargeted = false): string {
  return `#!/bin/sh
if [ "$1" = version ]; then printf '{"terraform_version":"1.11.4"}'; exit 0; fi
targeted=no
for arg in "$@"; do
  case "$arg" in -out=*) printf 'PK' > "\${arg#-out=}";; -target=*) targeted=yes;; esac
done
if [ "$1" = "${command}" ]; then
  if [ "${onlyTargeted ? 'yes' : ''}" = "" ] || [ "$targeted" = yes ]; then
    echo 'Error: reading S3 Bucket (logs): operation error S3: HeadBucket' >&2
    kill -${signal} $$
  fi
fi
exit 0
`;
}

/** A targeted re-read that fails before any request (no provider log), as a configuration error would. */
const REREAD_FAILS_EARLY = `#!/bin/sh
if [ "$1" = version ]; then printf '{"terraform_version":"1.11.4"}'; exit 0; fi
for arg in "$@"; do case "$arg" in -target=*)
  printf '\\nError: Invalid target address\\n\\nResource aws_s3_bucket.gone is not in the configuration.\\n' >&2
  exit 1;;
esac; done
exit 0
`;

const tempDir = useTempDirs('driftwatch-runner-killed-');

const workspace = parseRegistry(
  [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
    'workspaces:',
    '  - { id: killed, owner: platform, environment: prod, source: { dir: infra }, backend: { bucket: tfstate-prod, key: k.tfstate, region: eu-west-1 } }',
    '',
  ].join('\n'),
).workspaces[0]!;

function runnerWith(script: string) {
  const base = tempDir();
  mkdirSync(join(base, 'bin'));
  mkdirSync(join(base, 'infra'));
  mkdirSync(join(base, 'work'));
  writeFileSync(join(base, 'bin', 'terraform'), script, { mode: 0o755 });
  writeFileSync(join(base, 'infra', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  return createTerraformRunner({
    hashSensitive,
    registryDir: base,
    terraformBinary: 'terraform',
    workRoot: join(base, 'work'),
    pluginCacheDir: join(base, 'plugin-cache'),
    commandTimeoutMs: 30_000,
    baseEnv: { PATH: `${join(base, 'bin')}:${process.env.PATH}`, DRIFTWATCH_PROVIDER_MIRROR: '' },
  });
}

const OUT_OF_MEMORY =
  /^terraform plan was killed \(SIGKILL\) before it finished: the out-of-memory killer is the usual cause .*--concurrency/;

describe('Terraform killed by a signal that is not the scan’s time limit', () => {
  it('a plan killed outright (the out-of-memory killer) is a failed scan that says so, not "exited with null"', async () => {
    const runner = runnerWith(terraformKilledAt('plan', 'KILL'));
    const { ports } = fakePorts({ plans: [] });
    ports.prepare = runner.prepare;
    const result = await scanWorkspace(workspace, policies(), ports, { now: new Date() });
    expect(result.status).toBe('failed');
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.plan-failed' });
    // The error it printed before it was killed is not the cause; the half-written plan file is not read.
    expect(finding!.evidence.reason).toMatch(OUT_OF_MEMORY);
    expect(finding!.title).toContain('terraform plan was killed (SIGKILL)');
  });

  it.each([
    ['init', 'KILL', /^terraform init was killed \(SIGKILL\) before it finished: the out-of-memory killer/],
    ['show', 'TERM', /^terraform show was stopped by SIGTERM from outside the scan before it finished/],
  ] as const)('terraform %s ended by SIG%s: the reason names the signal', async (command, signal, reason) => {
    const runner = runnerWith(terraformKilledAt(command, signal));
    const error = await runner
      .prepare(workspace, undefined)
      .then((prepared) => prepared.plan().finally(() => prepared.close()))
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error).toMatchObject({ stage: command, reason: expect.stringMatching(reason) });
  });

  it('a deletion re-read killed midway proves nothing: it fails instead of returning no failed reads', async () => {
    const prepared = await runnerWith(terraformKilledAt('plan', 'KILL', true)).prepare(workspace, undefined);
    try {
      const error = await prepared.readFailures!(['aws_s3_bucket.gone']).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect((error as TerraformRunError).reason).toMatch(OUT_OF_MEMORY);
    } finally {
      await prepared.close();
    }
  });

  it('a deletion re-read that failed before reading anything proves nothing either: its error is the reason', async () => {
    const prepared = await runnerWith(REREAD_FAILS_EARLY).prepare(workspace, undefined);
    try {
      const error = await prepared.readFailures!(['aws_s3_bucket.gone']).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect((error as TerraformRunError).reason).toMatch(/^Error: Invalid target address/);
    } finally {
      await prepared.close();
    }
  });

  it("the re-read's error is redacted of the secrets the plan before it named", async () => {
    const secret = 'CANARY-reread-3f9a1c';
    // The plan names db_password's value; the targeted re-read fails echoing it.
    const planJson = JSON.stringify(plan({ variables: { db_password: { value: secret } } }));
    const script = `#!/bin/sh
if [ "$1" = version ]; then printf '{"terraform_version":"1.11.4"}'; exit 0; fi
if [ "$1" = show ]; then printf '%s' '${planJson}'; exit 0; fi
for arg in "$@"; do case "$arg" in
  -out=*) printf 'PK' > "\${arg#-out=}";;
  -target=*) printf '\\nError: Invalid value\\n\\nThe password ${secret} was refused.\\n' >&2; exit 1;;
esac; done
exit 0
`;
    const prepared = await runnerWith(script).prepare(workspace, undefined);
    try {
      await prepared.plan();
      const error = await prepared.readFailures!(['aws_s3_bucket.gone']).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect((error as TerraformRunError).reason).toMatch(
        /^Error: Invalid value\n\nThe password \S+ was refused\.$/,
      );
      expect((error as TerraformRunError).reason).not.toContain(secret);
    } finally {
      await prepared.close();
    }
  });
});

describe('withProviderExitHint', () => {
  // Terraform 1.11's words for a provider process that ended mid-call.
  const noResponse =
    'Error: Plugin did not respond\n\nThe plugin encountered an error, and failed to respond to the\nplugin.(*GRPCProvider).ReadDataSource call. The plugin logs may contain more\ndetails.';

  it('adds the likely cause to "Plugin did not respond" when the provider left no crash report', () => {
    expect(withProviderExitHint(noResponse, noResponse)).toMatch(
      /^Error: Plugin did not respond[\s\S]*\n\n\(driftwatch: a provider that stops answering without a crash report was killed, most often by the out-of-memory killer/,
    );
  });

  it('adds it to "Request cancelled", what Terraform says when the provider\'s connection closed first', () => {
    // Terraform 1.11, the provider SIGKILLed while it read a data source (seen under load).
    const cancelled =
      'Error: Request cancelled\n\n  with data.aws_s3_bucket.logs,\n  on main.tf line 26, in data "aws_s3_bucket" "logs":\n\nThe plugin.(*GRPCProvider).ReadDataSource request was cancelled.';
    expect(withProviderExitHint(cancelled, cancelled)).toMatch(
      /request was cancelled\.\n\n\(driftwatch: a provider that stops answering without a crash report was killed/,
    );
  });

  it('leaves a provider crash (a panic, reported as such) and every other error as Terraform said it', () => {
    // The crash report comes after a long stack trace: it is looked for in stderr, not in the summary.
    const stderr = `${noResponse}\n\nStack trace from the terraform-provider-aws_v5.100.0_x5 plugin:\n\npanic: boom\n${'goroutine\n'.repeat(2000)}\nError: The terraform-provider-aws_v5.100.0_x5 plugin crashed!`;
    expect(withProviderExitHint(noResponse, stderr)).toBe(noResponse);
    expect(withProviderExitHint('Error: Invalid function argument', '')).toBe(
      'Error: Invalid function argument',
    );
    expect(withProviderExitHint(undefined, '')).toBeUndefined();
  });
});
