/**
 * The JSON documents of Terraform's provider network mirror protocol, and how two mirrors of the same
 * provider merge: `index.json` lists versions, `<version>.json` lists one archive per platform.
 * https://developer.hashicorp.com/terraform/internals/provider-network-mirror-protocol
 */

export interface MirrorIndex {
  versions: Record<string, Record<string, never>>;
}

export interface MirrorVersion {
  archives: Record<string, { url: string; hashes?: string[] }>;
}

/** Every version of both indexes. */
export function mergeMirrorIndex(existing: MirrorIndex | undefined, added: MirrorIndex): MirrorIndex {
  const versions = { ...(existing?.versions ?? {}), ...added.versions };
  return {
    versions: Object.fromEntries(
      Object.keys(versions)
        .sort()
        .map((version) => [version, {}]),
    ),
  };
}

/**
 * Every platform of both documents; for a platform in both, the new archive, with the hashes of both
 * when it is the same file (Terraform's own mirror command merges them the same way).
 */
export function mergeMirrorVersion(existing: MirrorVersion | undefined, added: MirrorVersion): MirrorVersion {
  const archives: MirrorVersion['archives'] = { ...(existing?.archives ?? {}) };
  for (const [platform, archive] of Object.entries(added.archives)) {
    const before = archives[platform];
    const hashes =
      before && before.url === archive.url
        ? [...new Set([...(before.hashes ?? []), ...(archive.hashes ?? [])])]
        : archive.hashes;
    archives[platform] = { url: archive.url, ...(hashes ? { hashes } : {}) };
  }
  return {
    archives: Object.fromEntries(
      Object.keys(archives)
        .sort()
        .map((platform) => [platform, archives[platform]!]),
    ),
  };
}

/** Terraform's platform names: `linux_amd64`, `darwin_arm64`... */
export function platformProblem(platform: string): string | undefined {
  return /^[a-z0-9]+_[a-z0-9]+$/.test(platform)
    ? undefined
    : `'${platform}' is not a Terraform platform (os_arch, e.g. linux_amd64, darwin_arm64)`;
}
