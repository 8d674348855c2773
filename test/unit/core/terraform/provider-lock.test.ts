import { describe, expect, it } from 'vitest';
import {
  lockChecksumFailure,
  parseLockFile,
  terraformPlatform,
} from '../../../../functions/core/terraform/provider-lock.js';

/** As `terraform providers lock` / `init` write it (Terraform 1.11.4). */
const LOCK_FILE = `# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.100.0"
  constraints = "5.100.0"
  hashes = [
    "h1:edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0=",
    "zh:cad9a68994ab4548f83143401e566aae340017656961e19ca85ae1b9466108bc",
  ]
}

provider "registry.terraform.io/hashicorp/random" {
  version = "3.6.0"
  hashes = [
    "h1:R5Ucn26riKIEijcsiOMBR3uOAjuOMfI1x7XvH4P6B1w=",
  ]
}
`;

/** Terraform 1.11.4's stderr (after summarizeTerraformErrors) for a lock file without this platform's h1. */
const NETWORK_MIRROR_ERROR = `Error: Failed to install provider

Error while installing hashicorp/aws v5.100.0: the current package for
registry.terraform.io/hashicorp/aws 5.100.0 doesn't match any of the
checksums previously recorded in the dependency lock file; for more
information:
https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification`;

describe('provider lock files', () => {
  it('reads every provider block: address, version and hashes', () => {
    expect(parseLockFile(LOCK_FILE)).toEqual([
      {
        address: 'registry.terraform.io/hashicorp/aws',
        version: '5.100.0',
        hashes: [
          'h1:edXOJWE4ORX8Fm+dpVpICzMZJat4AX0VRCAy/xkcOc0=',
          'zh:cad9a68994ab4548f83143401e566aae340017656961e19ca85ae1b9466108bc',
        ],
      },
      {
        address: 'registry.terraform.io/hashicorp/random',
        version: '3.6.0',
        hashes: ['h1:R5Ucn26riKIEijcsiOMBR3uOAjuOMfI1x7XvH4P6B1w='],
      },
    ]);
    expect(parseLockFile('')).toEqual([]);
  });

  it("names Terraform's platforms the way Terraform does", () => {
    expect(terraformPlatform('linux', 'x64')).toBe('linux_amd64');
    expect(terraformPlatform('linux', 'arm64')).toBe('linux_arm64');
    expect(terraformPlatform('darwin', 'arm64')).toBe('darwin_arm64');
    expect(terraformPlatform('win32', 'x64')).toBe('windows_amd64');
  });

  it('turns the checksum mismatch into one line that names the platform, the provider and the fix', () => {
    const reason = lockChecksumFailure(NETWORK_MIRROR_ERROR, 'linux_amd64');
    expect(reason).toBe(
      'the lock file has no checksum for linux_amd64 of registry.terraform.io/hashicorp/aws 5.100.0 that the installed package matches ' +
        '(it was locked on other platforms, or the mirror serves a different package); run in the workspace: ' +
        'terraform providers lock -platform=linux_amd64 -platform=<each platform your team runs, e.g. darwin_arm64> and commit .terraform.lock.hcl',
    );
    expect(reason).not.toContain('\n');
    // From a filesystem mirror or the plugin cache Terraform says "local package".
    expect(
      lockChecksumFailure(
        NETWORK_MIRROR_ERROR.replace('the current package', 'the local package'),
        'linux_arm64',
      ),
    ).toContain('no checksum for linux_arm64 of registry.terraform.io/hashicorp/aws 5.100.0');
  });

  it('leaves every other init failure alone', () => {
    expect(
      lockChecksumFailure(
        'Error: Failed to query available provider packages\n\nCould not retrieve',
        'linux_amd64',
      ),
    ).toBeUndefined();
  });
});
