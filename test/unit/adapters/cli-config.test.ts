import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  existingUserCliConfig,
  findProviderMirror,
  writeCliConfig,
} from '../../../functions/adapters/terraform/cli-config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('Terraform CLI configuration', () => {
  it('prefers DRIFTWATCH_PROVIDER_MIRROR, and an empty value disables the mirror', () => {
    expect(findProviderMirror({ DRIFTWATCH_PROVIDER_MIRROR: '/somewhere' })).toBe('/somewhere');
    expect(findProviderMirror({ DRIFTWATCH_PROVIDER_MIRROR: '' })).toBeUndefined();
  });

  it('installs mirrored providers from the mirror and everything else directly', () => {
    const mirror = mkdtempSync(join(tmpdir(), 'driftwatch-mirror-'));
    const out = mkdtempSync(join(tmpdir(), 'driftwatch-cfg-'));
    dirs.push(mirror, out);
    mkdirSync(join(mirror, 'registry.terraform.io', 'hashicorp', 'aws', '5.100.0'), { recursive: true });
    const path = writeCliConfig(out, mirror);
    const text = readFileSync(path!, 'utf8');
    expect(text).toContain(`path    = ${JSON.stringify(mirror)}`);
    expect(text).toContain('include = ["registry.terraform.io/hashicorp/aws"]');
    expect(text).toContain('exclude = ["registry.terraform.io/hashicorp/aws"]');
    expect(writeCliConfig(out, undefined)).toBeUndefined();
  });

  it('ignores a TF_CLI_CONFIG_FILE that points nowhere (Terraform would warn on every run)', () => {
    expect(existingUserCliConfig({ TF_CLI_CONFIG_FILE: '/nonexistent/.terraformrc' })).toBeUndefined();
    expect(existingUserCliConfig({ TF_CLI_CONFIG_FILE: '/etc/hostname' })).toBe('/etc/hostname');
  });
});
