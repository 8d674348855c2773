import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTerraformRunner } from '../../../functions/adapters/terraform/runner.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { scanWorkspace } from '../../../functions/core/scan/scan-workspace.js';
import { hashSensitive, policies } from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';
import { fakePorts } from '../core/scan/scan-fakes.js';

const tempDir = useTempDirs('driftwatch-runner-binary-');

const workspace = parseRegistry(
  [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
    'workspaces:',
    '  - { id: nobinary, owner: platform, environment: prod, source: { dir: infra }, backend: { bucket: tfstate-prod, key: n.tfstate, region: eu-west-1 } }',
    '',
  ].join('\n'),
).workspaces[0]!;

/** A runner whose PATH holds no terraform (an empty directory), with the binary given as `binary`. */
function runnerWithout(binary: (base: string) => string) {
  const base = tempDir();
  for (const dir of ['empty-bin', 'infra', 'work']) mkdirSync(join(base, dir));
  writeFileSync(join(base, 'infra', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  writeFileSync(join(base, 'not-executable'), '#!/bin/sh\nexit 0\n', { mode: 0o644 });
  return createTerraformRunner({
    hashSensitive,
    registryDir: base,
    terraformBinary: binary(base),
    workRoot: join(base, 'work'),
    pluginCacheDir: join(base, 'plugin-cache'),
    commandTimeoutMs: 30_000,
    baseEnv: { PATH: join(base, 'empty-bin'), DRIFTWATCH_PROVIDER_MIRROR: '' },
  });
}

describe('a Terraform binary that cannot be started', () => {
  it('not on PATH: the failed scan says what is missing and the two ways to provide it, not "spawn terraform ENOENT"', async () => {
    const { ports } = fakePorts({ plans: [] });
    ports.prepare = runnerWithout(() => 'terraform').prepare;
    const result = await scanWorkspace(workspace, policies(), ports, { now: new Date() });
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.init-failed' }),
    ]);
    expect(result.findings[0]!.evidence.reason).toBe(
      'terraform was not found on PATH: install Terraform >= 1.5 (https://developer.hashicorp.com/terraform/install), or set DRIFTWATCH_TERRAFORM to its path',
    );
  });

  it.each([
    [
      'a path that does not exist',
      (base: string) => join(base, 'missing', 'terraform'),
      /^\/.*\/missing\/terraform was not found: install Terraform/,
    ],
    [
      'a file that is not executable',
      (base: string) => join(base, 'not-executable'),
      /^\/.*\/not-executable cannot be executed \(EACCES\): make it executable, or set DRIFTWATCH_TERRAFORM/,
    ],
  ])('%s (DRIFTWATCH_TERRAFORM): the reason names the path and the fix', async (_name, binary, reason) => {
    const error = await runnerWithout(binary)
      .prepare(workspace, undefined)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ stage: 'init', reason: expect.stringMatching(reason) });
  });

  it('a relative path (DRIFTWATCH_TERRAFORM=./tools/terraform) is where driftwatch was started, not the temporary copy Terraform runs in', async () => {
    const runner = runnerWithout((base) => {
      mkdirSync(join(base, 'tools'));
      writeFileSync(join(base, 'tools', 'terraform'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      return `./${relative(process.cwd(), join(base, 'tools', 'terraform'))}`;
    });
    const prepared = await runner.prepare(workspace, undefined);
    await prepared.close();
  });
});
