import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  existingUserCliConfig,
  findProviderMirror,
  type ProviderSource,
  packageHashV1,
  providerInstallationConfig,
  providerInstallHint,
  resolveProviderSource,
  terraformEnvironment,
  warmProviders,
  writeCliConfig,
} from '../../../functions/adapters/terraform/cli-config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-cfg-'));
  dirs.push(dir);
  return dir;
}

const AWS = 'registry.terraform.io/hashicorp/aws';
/**
 * A tiny unpacked package and the h1 hash Terraform 1.11.4 recorded for it
 * (`terraform providers lock -fs-mirror=<dir> -platform=linux_amd64` on this layout).
 */
function tinyPackage(
  root: string,
  address = 'registry.terraform.io/example/tiny',
  version = '1.0.0',
): string {
  const dir = join(root, address, version, 'linux_amd64');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'terraform-provider-tiny_v1.0.0'), '#!/bin/sh\necho tiny\n', { mode: 0o755 });
  writeFileSync(join(dir, 'LICENSE'), 'license\n');
  return dir;
}
const TINY_H1 = 'h1:LadzkG3wMQlXdem0ZhyLevq1Ng8Hl0fYrwIjdgDPRCk=';

describe('where providers come from', () => {
  it('prefers DRIFTWATCH_PROVIDER_MIRROR, and an empty value disables the mirror', () => {
    expect(findProviderMirror({ DRIFTWATCH_PROVIDER_MIRROR: '/somewhere' })).toBe('/somewhere');
    expect(findProviderMirror({ DRIFTWATCH_PROVIDER_MIRROR: '' })).toBeUndefined();
  });

  it("the registry's providerMirror wins over the machine's; an https URL is a network mirror, a relative path is against the registry", () => {
    const env = { DRIFTWATCH_PROVIDER_MIRROR: '/opt/machine-mirror' };
    expect(resolveProviderSource({ configured: 'https://mirror.example.com/tf', env })).toEqual({
      kind: 'network',
      url: 'https://mirror.example.com/tf/',
    });
    expect(resolveProviderSource({ configured: 'mirror', registryDir: '/estate', env })).toEqual({
      kind: 'filesystem',
      path: '/estate/mirror',
    });
    expect(resolveProviderSource({ env })).toEqual({ kind: 'filesystem', path: '/opt/machine-mirror' });
    expect(resolveProviderSource({ env: { DRIFTWATCH_PROVIDER_MIRROR: 'https://m.example/' } })).toEqual({
      kind: 'network',
      url: 'https://m.example/',
    });
    expect(resolveProviderSource({ env: { DRIFTWATCH_PROVIDER_MIRROR: '' } })).toEqual({ kind: 'direct' });
  });

  it('direct installation excludes nothing: every version the lock file selects comes from the registry', () => {
    expect(providerInstallationConfig({ kind: 'direct' })).toBe(
      'provider_installation {\n  direct {\n  }\n}\n',
    );
  });

  it('a configured mirror is the only source (network or filesystem), with no direct fallback', () => {
    const network = providerInstallationConfig({ kind: 'network', url: 'https://m.example/' });
    expect(network).toContain('network_mirror {\n    url = "https://m.example/"\n  }');
    expect(network).not.toContain('direct');
    const filesystem = providerInstallationConfig({ kind: 'filesystem', path: '/mirror' });
    expect(filesystem).toContain('filesystem_mirror {\n    path = "/mirror"\n  }');
    expect(filesystem).not.toContain('direct');
  });

  it("a mirror found on this machine serves the providers it holds and the registries serve the rest, as Terraform's own implied mirrors do", () => {
    const config = providerInstallationConfig({
      kind: 'filesystem',
      path: '/home/me/.terraform.d/plugins',
      only: ['registry.terraform.io/hashicorp/aws'],
    });
    expect(config).toBe(
      [
        'provider_installation {',
        '  filesystem_mirror {',
        '    path    = "/home/me/.terraform.d/plugins"',
        '    include = ["registry.terraform.io/hashicorp/aws"]',
        '  }',
        '  direct {',
        '    exclude = ["registry.terraform.io/hashicorp/aws"]',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    // This machine's mirror (the one the integration tests use) is found, not configured.
    const found = resolveProviderSource({ env: {} });
    expect(found).toMatchObject({ kind: 'filesystem', path: findProviderMirror({}) });
    expect((found as { only?: string[] }).only).toContain('registry.terraform.io/hashicorp/aws');
  });

  it('a warm copy serves only the providers it matched, which the source then excludes for this run', () => {
    const text = providerInstallationConfig(
      { kind: 'network', url: 'https://m.example/' },
      { path: '/opt/tf-plugins', providers: [AWS] },
    );
    expect(text).toBe(
      [
        'provider_installation {',
        '  filesystem_mirror {',
        '    path    = "/opt/tf-plugins"',
        `    include = ["${AWS}"]`,
        '  }',
        '  network_mirror {',
        '    url = "https://m.example/"',
        `    exclude = ["${AWS}"]`,
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    // A warm copy that matched nothing leaves the source alone.
    expect(
      providerInstallationConfig({ kind: 'direct' }, { path: '/opt/tf-plugins', providers: [] }),
    ).not.toContain('filesystem_mirror');
  });

  it("writes the user's own CLI configuration through only for direct installation without warm copies", () => {
    const out = tempDir();
    expect(writeCliConfig(out, { kind: 'direct' }, undefined, '/home/me/.terraformrc')).toBeUndefined();
    const path = writeCliConfig(out, { kind: 'direct' });
    expect(readFileSync(path!, 'utf8')).toContain('direct {');
    const mirrored = writeCliConfig(
      out,
      { kind: 'filesystem', path: '/m' },
      undefined,
      '/home/me/.terraformrc',
    );
    expect(readFileSync(mirrored!, 'utf8')).toContain('path = "/m"');
  });

  it('ignores a TF_CLI_CONFIG_FILE that points nowhere (Terraform would warn on every run)', () => {
    expect(existingUserCliConfig({ TF_CLI_CONFIG_FILE: '/nonexistent/.terraformrc' })).toBeUndefined();
    expect(existingUserCliConfig({ TF_CLI_CONFIG_FILE: '/etc/hostname' })).toBe('/etc/hostname');
  });
});

describe('warm copies (providers baked into the image)', () => {
  it("computes Terraform's h1 hash of an unpacked package", async () => {
    expect(await packageHashV1(tinyPackage(tempDir()))).toBe(TINY_H1);
  });

  it('serves a locked provider only when the locked version is there and its h1 is in the lock file', async () => {
    const warm = tempDir();
    tinyPackage(warm);
    const tiny = 'registry.terraform.io/example/tiny';
    const served = (version: string, hashes: string[]) =>
      warmProviders(warm, [{ address: tiny, version, hashes }], 'linux_amd64');
    expect(await served('1.0.0', ['zh:00', TINY_H1])).toEqual([tiny]);
    // Only zh: hashes (a lock file made on another platform): an unpacked copy cannot be checked.
    expect(await served('1.0.0', ['zh:00', 'h1:otherplatform='])).toEqual([]);
    // Another version: the source installs it, the warm copy is no exclusion.
    expect(await served('1.0.1', [TINY_H1])).toEqual([]);
    expect(
      await warmProviders(warm, [{ address: tiny, version: '1.0.0', hashes: [TINY_H1] }], 'linux_arm64'),
    ).toEqual([]);
  });

  it('a run that uses a warm copy runs without the shared plugin cache; any other run keeps it', async () => {
    const base = tempDir();
    const warm = join(base, 'warm');
    tinyPackage(warm);
    const root = join(base, 'root');
    mkdirSync(root);
    const lock = (hash: string) =>
      writeFileSync(
        join(root, '.terraform.lock.hcl'),
        `provider "registry.terraform.io/example/tiny" {\n  version     = "1.0.0"\n  hashes = [\n    "${hash}",\n  ]\n}\n`,
      );
    const environment = (workDir: string) =>
      terraformEnvironment({
        baseEnv: {
          DRIFTWATCH_PROVIDER_MIRROR: '',
          DRIFTWATCH_PROVIDER_WARM_CACHE: warm,
          TF_CLI_CONFIG_FILE: '/nonexistent',
        },
        workDir: join(base, workDir),
        pluginCacheDir: join(base, 'cache'),
        root,
        platform: 'linux_amd64',
      });
    lock(TINY_H1);
    const warmEnv = await environment('w1');
    expect(warmEnv.TF_PLUGIN_CACHE_DIR).toBeUndefined();
    expect(readFileSync(warmEnv.TF_CLI_CONFIG_FILE!, 'utf8')).toContain(`path    = ${JSON.stringify(warm)}`);
    lock('h1:somethingelse=');
    const coldEnv = await environment('w2');
    expect(coldEnv.TF_PLUGIN_CACHE_DIR).toBe(join(base, 'cache'));
    expect(readFileSync(coldEnv.TF_CLI_CONFIG_FILE!, 'utf8')).toBe(
      'provider_installation {\n  direct {\n  }\n}\n',
    );
  });
});

describe('providerInstallHint', () => {
  // Verbatim Terraform 1.11 init summaries: a provider the mirror lacks (registry offline), and a
  // constraint no version in the mirror meets.
  const notMirrored =
    'Error: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider\nhashicorp/random: could not connect to registry.terraform.io: failed to\nrequest discovery document: Get\n"https://registry.terraform.io/.well-known/terraform.json": dial tcp: lookup\nregistry.terraform.io on 10.255.255.53:53: no such host';
  const noVersion =
    'Error: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider hashicorp/aws:\nno available releases match the given constraints ~> 4.0';

  it.each([
    [
      'a mirror found on the machine',
      { kind: 'filesystem', path: '/opt/tf-plugins', only: ['registry.terraform.io/hashicorp/aws'] },
      /the mirror found at \/opt\/tf-plugins serves registry\.terraform\.io\/hashicorp\/aws .*--to \/opt\/tf-plugins\), or pin a version it holds, or let this machine reach the registries/,
    ],
    [
      'a configured directory',
      { kind: 'filesystem', path: '/srv/mirror' },
      /providers come only from the mirror \/srv\/mirror .*--to \/srv\/mirror/,
    ],
    [
      'a network mirror',
      { kind: 'network', url: 'https://mirror.example.com/' },
      /only from the mirror https:\/\/mirror\.example\.com\/ .*--to s3:\/\/<bucket>\/provider-mirror/,
    ],
    [
      'the registries',
      { kind: 'direct' },
      /from their registries .*providerMirror in the registry, or DRIFTWATCH_PROVIDER_MIRROR/,
    ],
  ] as const)('names where providers came from and the fix: %s', (_case, source, expected) => {
    for (const summary of [notMirrored, noVersion]) {
      const hinted = providerInstallHint(summary, source as ProviderSource) ?? '';
      expect(hinted.startsWith(summary)).toBe(true);
      expect(hinted).toMatch(expected);
    }
  });

  it('leaves other init failures alone', () => {
    expect(
      providerInstallHint('Error: Failed to get existing workspaces: S3 bucket does not exist.', {
        kind: 'direct',
      }),
    ).toBeUndefined();
  });
});
