/**
 * Terraform's dependency lock file (`.terraform.lock.hcl`) as far as provider installation needs it,
 * and the one init failure it causes that a reader cannot act on as Terraform words it.
 */

export interface LockedProvider {
  /** Fully qualified, e.g. registry.terraform.io/hashicorp/aws. */
  address: string;
  version: string;
  /** `h1:` (hash of the unpacked package, one per platform that was locked) and `zh:` (the zips). */
  hashes: string[];
}

/**
 * The provider blocks of a lock file. Terraform writes it in one fixed shape (`provider "<address>"
 * { version = "..." hashes = [ "...", ] }`), so a reader of that shape is enough; anything else in
 * the file is ignored. A block without a version is skipped.
 */
export function parseLockFile(text: string): LockedProvider[] {
  const providers: LockedProvider[] = [];
  for (const block of text.matchAll(/^provider\s+"([^"]+)"\s*\{([\s\S]*?)^\}/gm)) {
    const body = block[2] ?? '';
    const version = /^\s*version\s*=\s*"([^"]+)"/m.exec(body)?.[1];
    if (!version) continue;
    const list = /^\s*hashes\s*=\s*\[([\s\S]*?)\]/m.exec(body)?.[1] ?? '';
    const hashes = [...list.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
    providers.push({ address: block[1]!.toLowerCase(), version, hashes });
  }
  return providers;
}

/** Terraform's platform name for an OS and CPU as Node reports them (linux + x64 → linux_amd64). */
export function terraformPlatform(os: string, cpu: string): string {
  const goos = os === 'win32' ? 'windows' : os;
  const goarch =
    ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' } as Record<string, string>)[cpu] ?? cpu;
  return `${goos}_${goarch}`;
}

/**
 * Terraform 1.4+ refuses a package that matches none of the lock file's checksums: "the current
 * package for registry.terraform.io/hashicorp/aws 5.100.0 doesn't match any of the checksums
 * previously recorded in the dependency lock file" ("local package" from a filesystem mirror or
 * cache). Almost always the lock file was made on other platforms: it has `h1:` hashes only for
 * those, and a mirror's unpacked package can only be checked by `h1:`. The reason names the fix.
 * Undefined when the text is not that failure.
 */
export function lockChecksumFailure(terraformErrors: string, platform: string): string | undefined {
  const text = terraformErrors.replace(/\s+/g, ' ');
  if (!/doesn't match any of the checksums previously recorded in the dependency lock file/.test(text))
    return undefined;
  const packages = [
    ...new Set(
      [...text.matchAll(/the (?:current|local) package for (\S+) (\S+) doesn't match/g)].map(
        (match) => `${match[1]} ${match[2]}`,
      ),
    ),
  ];
  const which = packages.length > 0 ? packages.join(', ') : 'a provider';
  return (
    `the lock file has no checksum for ${platform} of ${which} that the installed package matches ` +
    '(it was locked on other platforms, or the mirror serves a different package); run in the workspace: ' +
    `terraform providers lock -platform=${platform} -platform=<each platform your team runs, e.g. darwin_arm64> ` +
    'and commit .terraform.lock.hcl'
  );
}
