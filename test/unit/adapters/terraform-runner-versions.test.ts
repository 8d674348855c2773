import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BinaryCache, BinaryInstallError } from '../../../functions/adapters/terraform/binary-cache.js';
import { createTerraformRunner } from '../../../functions/adapters/terraform/runner.js';
import type { WorkspaceConfig } from '../../../functions/core/registry/model.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import type { Engine } from '../../../functions/core/terraform/engine-version.js';
import { hashSensitive, plan } from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';

/**
 * Which binary runs a workspace: a stand-in engine records the path it was started as; `version
 * -json` answers FAKE_TF_VERSION (the default binary's version). The binary cache is a fake that
 * records what it was asked for and returns a path to another copy of the stand-in.
 */
const FAKE_ENGINE = `#!/bin/sh
if [ "$1" = version ]; then printf '{"terraform_version":"%s"}' "\${FAKE_TF_VERSION:-1.11.4}"; exit 0; fi
echo "$1 $0" >> "$FAKE_TF_RECORD"
case "$1" in
  plan) for arg in "$@"; do case "$arg" in -out=*) printf plan > "\${arg#-out=}";; esac; done; exit 2 ;;
  show) cat "$FAKE_TF_PLAN_JSON" ;;
esac
`;

const tempDir = useTempDirs('driftwatch-runner-versions-');

interface FakeCache extends BinaryCache {
  ensured: string[];
  /** How often the release index was asked for (a network request in a real cache). */
  indexReads: number;
}

function setUp(options: { released?: string[]; cached?: string[]; installFails?: boolean } = {}) {
  const base = tempDir();
  const bin = join(base, 'bin');
  mkdirSync(bin);
  mkdirSync(join(base, 'work'));
  mkdirSync(join(base, 'cache'));
  for (const name of ['terraform', 'tofu']) writeFileSync(join(bin, name), FAKE_ENGINE, { mode: 0o755 });
  mkdirSync(join(base, 'root'));
  writeFileSync(join(base, 'root', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  const record = join(base, 'record');
  writeFileSync(record, '');
  writeFileSync(join(base, 'plan.json'), JSON.stringify(plan()));
  const cache: FakeCache = {
    ensured: [],
    indexReads: 0,
    async ensure(engine: Engine, version: string) {
      cache.ensured.push(`${engine} ${version}`);
      if (options.installFails)
        throw new BinaryInstallError(engine, version, 'checksum mismatch for x.zip from http://mirror/x.zip');
      const path = join(base, 'cache', `${engine}-${version}`);
      writeFileSync(path, FAKE_ENGINE, { mode: 0o755 });
      return path;
    },
    cachedVersions: async () => options.cached ?? [],
    releasedVersions: async () => {
      cache.indexReads++;
      return options.released;
    },
  };
  const runner = createTerraformRunner({
    hashSensitive,
    registryDir: base,
    workRoot: join(base, 'work'),
    pluginCacheDir: join(base, 'plugin-cache'),
    terraformBinary: 'terraform',
    binaryCache: cache,
    baseEnv: {
      PATH: `${bin}:${process.env.PATH}`,
      FAKE_TF_RECORD: record,
      FAKE_TF_PLAN_JSON: join(base, 'plan.json'),
      DRIFTWATCH_PROVIDER_MIRROR: '',
    },
    commandTimeoutMs: 30_000,
  });
  /** Each command and the binary that ran it, after preparing and planning once. */
  async function commands(workspace: WorkspaceConfig): Promise<string[]> {
    writeFileSync(record, '');
    const prepared = await runner.prepare(workspace, undefined);
    try {
      await prepared.plan();
    } finally {
      await prepared.close();
    }
    return (
      readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        // A binary found on PATH shows as its name, one from the cache as its path.
        .map((line) => line.replace(`${base}/bin/`, '').replace(base, '<base>'))
    );
  }
  return { base, runner, cache, commands, root: join(base, 'root') };
}

function workspace(...extra: string[]): WorkspaceConfig {
  return parseRegistry(
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
      'workspaces:',
      '  - id: payments-prod',
      '    owner: platform',
      '    environment: prod',
      '    source: { dir: root }',
      '    backend: { bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1 }',
      ...extra.map((line) => `    ${line}`),
      '',
    ].join('\n'),
  ).workspaces[0]!;
}

async function runError(
  setup: ReturnType<typeof setUp>,
  config: WorkspaceConfig,
): Promise<TerraformRunError> {
  const error = await setup.runner.prepare(config, undefined).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TerraformRunError);
  expect((error as TerraformRunError).stage).toBe('init');
  return error as TerraformRunError;
}

describe('the engine binary of a workspace', () => {
  it('engine: opentofu runs tofu for every command, with the same arguments', async () => {
    const setup = setUp();
    expect(await setup.commands(workspace('engine: opentofu'))).toEqual([
      'init tofu',
      'plan tofu',
      'show tofu',
    ]);
    expect(await setup.commands(workspace())).toEqual(['init terraform', 'plan terraform', 'show terraform']);
    expect(setup.cache.ensured).toEqual([]);
  });

  it('a pinned version the default binary is not comes from the binary cache, for every command', async () => {
    const setup = setUp();
    expect(await setup.commands(workspace('terraformVersion: 1.9.8'))).toEqual([
      'init <base>/cache/terraform-1.9.8',
      'plan <base>/cache/terraform-1.9.8',
      'show <base>/cache/terraform-1.9.8',
    ]);
    // The default binary is 1.11.4: pinning that version needs no download.
    expect(await setup.commands(workspace('terraformVersion: 1.11.4'))).toEqual([
      'init terraform',
      'plan terraform',
      'show terraform',
    ]);
    expect(setup.cache.ensured).toEqual(['terraform 1.9.8']);
  });

  it('.terraform-version of the root, when the registry has no terraformVersion; .opentofu-version for OpenTofu', async () => {
    const setup = setUp({ released: ['1.9.8', '1.10.5', '1.11.4'] });
    writeFileSync(join(setup.root, '.terraform-version'), '1.10.5\n');
    expect((await setup.commands(workspace()))[0]).toBe('init <base>/cache/terraform-1.10.5');
    expect((await setup.commands(workspace('terraformVersion: 1.9.8')))[0]).toBe(
      'init <base>/cache/terraform-1.9.8',
    );
    writeFileSync(join(setup.root, '.terraform-version'), 'latest:^1\\.9\\.');
    expect((await setup.commands(workspace()))[0]).toBe('init <base>/cache/terraform-1.9.8');
    writeFileSync(join(setup.root, '.opentofu-version'), '1.8.5\n');
    expect((await setup.commands(workspace('engine: opentofu')))[0]).toBe('init <base>/cache/opentofu-1.8.5');
  });

  it('required_version: the default binary when it satisfies, else the newest release that does', async () => {
    const setup = setUp({ released: ['1.9.8', '1.12.0', '1.12.3', '2.0.0-alpha1'] });
    writeFileSync(join(setup.root, 'versions.tf'), 'terraform {\n  required_version = ">= 1.5"\n}\n');
    expect((await setup.commands(workspace()))[0]).toBe('init terraform');
    // …without asking the releases (offline machines would log a failed fetch for every workspace).
    expect(setup.cache.indexReads).toBe(0);
    writeFileSync(join(setup.root, 'versions.tf'), 'terraform {\n  required_version = ">= 1.12"\n}\n');
    expect((await setup.commands(workspace()))[0]).toBe('init <base>/cache/terraform-1.12.3');
    expect(setup.cache.ensured).toEqual(['terraform 1.12.3']);
  });

  it('a registry constraint picks the newest matching release (from the index or the cache)', async () => {
    const released = setUp({ released: ['1.9.7', '1.9.8', '1.10.0'] });
    expect((await released.commands(workspace('terraformVersion: "~> 1.9.0"')))[0]).toBe(
      'init <base>/cache/terraform-1.9.8',
    );
    const offline = setUp({ released: undefined, cached: ['1.9.2'] });
    expect((await offline.commands(workspace('terraformVersion: "~> 1.9.0"')))[0]).toBe(
      'init <base>/cache/terraform-1.9.2',
    );
  });

  it('failures are one init line naming the cause and the fix', async () => {
    expect((await runError(setUp({ installFails: true }), workspace('terraformVersion: 1.9.9'))).reason).toBe(
      'workspace pins terraform 1.9.9: checksum mismatch for x.zip from http://mirror/x.zip',
    );
    expect(
      (await runError(setUp({ released: ['1.9.8'] }), workspace('terraformVersion: ">= 3.0"'))).reason,
    ).toBe(
      'no terraform version satisfies terraformVersion ">= 3.0" among the releases and terraform 1.11.4; pin an exact terraformVersion in the registry',
    );
    const setup = setUp();
    writeFileSync(join(setup.root, '.terraform-version'), '1.9\n');
    expect((await runError(setup, workspace())).reason).toBe(
      ".terraform-version: '1.9' is not a version, latest, latest:<regex>, min-required or latest-allowed; correct it, or set terraformVersion in the registry",
    );
    const installing = setUp({ installFails: true });
    writeFileSync(join(installing.root, '.terraform-version'), '1.9.8\n');
    expect((await runError(installing, workspace())).reason).toBe(
      '.terraform-version 1.9.8 selects terraform 1.9.8: checksum mismatch for x.zip from http://mirror/x.zip',
    );
  });
});
