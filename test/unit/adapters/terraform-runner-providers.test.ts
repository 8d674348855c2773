import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTerraformRunner } from '../../../functions/adapters/terraform/runner.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import { hashSensitive, plan } from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';

/**
 * A stand-in for terraform that writes down what provider installation depends on: init's arguments
 * and the CLI configuration it was given. With FAKE_TF_INIT_CHECKSUM it fails init the way Terraform
 * 1.11.4 does for a lock file without this platform's hashes.
 */
const FAKE_TERRAFORM = `#!/bin/sh
rec="$FAKE_TF_RECORD"
case "$1" in
  init)
    { for arg in "$@"; do echo "ARG $arg"; done; echo "CACHE \${TF_PLUGIN_CACHE_DIR:-none}"; } >> "$rec"
    cat "$TF_CLI_CONFIG_FILE" > "$rec.tfrc"
    if [ -n "$FAKE_TF_INIT_CHECKSUM" ]; then
      printf '\\nError: Failed to install provider\\n\\nError while installing hashicorp/aws v5.100.0: the current package for\\nregistry.terraform.io/hashicorp/aws 5.100.0 doesn'"'"'t match any of the\\nchecksums previously recorded in the dependency lock file; for more\\ninformation:\\nhttps://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification\\n' >&2
      exit 1
    fi
    ;;
  plan)
    for arg in "$@"; do case "$arg" in -out=*) out="\${arg#-out=}";; esac; done
    printf plan > "$out"
    exit 2
    ;;
  show) cat "$FAKE_TF_PLAN_JSON" ;;
esac
`;

const tempDir = useTempDirs('driftwatch-runner-providers-');

function setUp(env: Record<string, string> = {}) {
  const base = tempDir();
  mkdirSync(join(base, 'bin'));
  mkdirSync(join(base, 'work'));
  mkdirSync(join(base, 'infra'));
  writeFileSync(join(base, 'bin', 'terraform'), FAKE_TERRAFORM, { mode: 0o755 });
  writeFileSync(join(base, 'infra', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  writeFileSync(join(base, 'plan.json'), JSON.stringify(plan()));
  const record = join(base, 'record');
  writeFileSync(record, '');
  const runner = createTerraformRunner({
    hashSensitive,
    registryDir: base,
    terraformBinary: join(base, 'bin', 'terraform'),
    workRoot: join(base, 'work'),
    pluginCacheDir: join(base, 'plugin-cache'),
    baseEnv: {
      PATH: process.env.PATH,
      FAKE_TF_RECORD: record,
      FAKE_TF_PLAN_JSON: join(base, 'plan.json'),
      DRIFTWATCH_PROVIDER_MIRROR: '/opt/machine-mirror',
      ...env,
    },
    commandTimeoutMs: 30_000,
  });
  return { base, runner, record };
}

function workspace(...topLevel: string[]) {
  return parseRegistry(
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
      ...topLevel,
      'workspaces:',
      '  - id: payments-prod',
      '    owner: platform',
      '    environment: prod',
      '    source: { dir: infra }',
      '    backend: { bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1 }',
      '',
    ].join('\n'),
  ).workspaces[0]!;
}

async function initOf(setup: ReturnType<typeof setUp>, entry: ReturnType<typeof workspace>) {
  writeFileSync(setup.record, '');
  const prepared = await setup.runner.prepare(entry, undefined);
  await prepared.close();
  const lines = readFileSync(setup.record, 'utf8').split('\n');
  return {
    args: lines.filter((line) => line.startsWith('ARG ')).map((line) => line.slice(4)),
    cache: lines.find((line) => line.startsWith('CACHE '))?.slice(6),
    cliConfig: readFileSync(`${setup.record}.tfrc`, 'utf8'),
  };
}

describe('provider installation of a scan', () => {
  it('init honours a lock file and never rewrites it (-lockfile=readonly); without one Terraform selects', async () => {
    const setup = setUp();
    const unlocked = await initOf(setup, workspace());
    expect(unlocked.args).not.toContain('-lockfile=readonly');
    expect(unlocked.cache).toBe(join(setup.base, 'plugin-cache'));
    writeFileSync(join(setup.base, 'infra', '.terraform.lock.hcl'), '');
    const locked = await initOf(setup, workspace());
    expect(locked.args).toContain('-lockfile=readonly');
  });

  it("providerMirror (top level) is every workspace's only provider source, over the machine's mirror", async () => {
    const setup = setUp();
    const machine = await initOf(setup, workspace());
    expect(machine.cliConfig).toContain('path = "/opt/machine-mirror"');
    const network = await initOf(setup, workspace('providerMirror: https://mirror.example.com/providers'));
    expect(network.cliConfig).toBe(
      'provider_installation {\n  network_mirror {\n    url = "https://mirror.example.com/providers/"\n  }\n}\n',
    );
    const directory = await initOf(setup, workspace('providerMirror: mirrors/providers'));
    expect(directory.cliConfig).toContain(`path = ${JSON.stringify(join(setup.base, 'mirrors/providers'))}`);
    expect(directory.cliConfig).not.toContain('direct');
  });

  it('providerMirror refuses what Terraform cannot use as a mirror', () => {
    expect(() => workspace('providerMirror: s3://bucket/provider-mirror/')).toThrow(
      /https URL that serves the bucket/,
    );
    expect(() => workspace('providerMirror: http://mirror.example.com/')).toThrow(/https:\/\/ URL/);
    expect(() => workspace('providerMirror: https://user:pw@mirror.example.com/')).toThrow(/credentials/);
  });

  it('a lock file without checksums for this platform fails init with one line that names the fix', async () => {
    const setup = setUp({ FAKE_TF_INIT_CHECKSUM: '1' });
    const error = await setup.runner.prepare(workspace(), undefined).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TerraformRunError);
    const { stage, reason } = error as TerraformRunError;
    expect(stage).toBe('init');
    expect(reason).toMatch(
      /^the lock file has no checksum for \w+_\w+ of registry\.terraform\.io\/hashicorp\/aws 5\.100\.0 .*; run in the workspace: terraform providers lock -platform=\w+_\w+ /,
    );
    expect(reason).not.toContain('\n');
  });
});

describe('the shared plugin cache keeps what Terraform links there', () => {
  it("the sweep keeps a platform link to an unpacked mirror package (removing it fails other workspaces' running plans)", async () => {
    const { sweepPluginCache } = await import('../../../functions/adapters/terraform/run-environment.js');
    const base = tempDir();
    const mirrored = join(base, 'mirror', 'registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64');
    mkdirSync(mirrored, { recursive: true });
    writeFileSync(join(mirrored, 'terraform-provider-aws_v5.100.0_x5'), '');
    const cached = join(base, 'cache', 'registry.terraform.io/hashicorp/aws/5.100.0');
    mkdirSync(cached, { recursive: true });
    symlinkSync(mirrored, join(cached, 'linux_amd64'));
    // A link to a file, and a link that leads nowhere, are not packages.
    symlinkSync(join(mirrored, 'terraform-provider-aws_v5.100.0_x5'), join(cached, 'linux_arm64'));
    symlinkSync(join(base, 'nowhere'), join(cached, 'darwin_arm64'));
    expect((await sweepPluginCache(join(base, 'cache'))).sort()).toEqual([
      'registry.terraform.io/hashicorp/aws/5.100.0/darwin_arm64',
      'registry.terraform.io/hashicorp/aws/5.100.0/linux_arm64',
    ]);
    expect(existsSync(join(cached, 'linux_amd64', 'terraform-provider-aws_v5.100.0_x5'))).toBe(true);
  });
});
