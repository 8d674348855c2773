import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type LockedProvider, parseLockFile, terraformPlatform } from '../../core/terraform/provider-lock.js';

/**
 * Where a filesystem mirror of providers may live. Machines of ours carry one for hashicorp/aws;
 * elsewhere Terraform installs providers the normal way and none of this applies.
 */
const MIRROR_CANDIDATES = [
  '/opt/tf-plugins',
  '/usr/local/share/terraform/plugins',
  '/usr/share/terraform/plugins',
  join(homedir(), '.terraform.d', 'plugins'),
  join(homedir(), '.local', 'share', 'terraform', 'plugins'),
];
const SEARCH_ROOTS = ['/opt', '/usr/local/share', '/usr/share', homedir()];

/** A mirror directory holds `<host>/<namespace>/<type>/...` (e.g. registry.terraform.io/hashicorp/aws). */
function mirroredProviders(dir: string): string[] {
  const host = join(dir, 'registry.terraform.io');
  if (!isDirectory(host)) return [];
  return readdirSync(host).flatMap((namespace) =>
    isDirectory(join(host, namespace))
      ? readdirSync(join(host, namespace)).map((type) => `registry.terraform.io/${namespace}/${type}`)
      : [],
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Finds a directory containing a registry.terraform.io mirror, searching a few levels deep. */
function searchMirror(root: string, depth: number): string | undefined {
  if (depth < 0 || !isDirectory(root)) return undefined;
  if (mirroredProviders(root).length > 0) return root;
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (entry.startsWith('.') && entry !== '.terraform.d') continue;
    if (entry === 'node_modules' || entry === 'proc') continue;
    const found = searchMirror(join(root, entry), depth - 1);
    if (found) return found;
  }
  return undefined;
}

let cachedMirror: string | null | undefined;

/**
 * The provider mirror of this machine: `DRIFTWATCH_PROVIDER_MIRROR` first (a directory or an https
 * URL; an empty string means none), then well-known locations, then a bounded search. Cached for the
 * life of the process.
 */
export function findProviderMirror(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.DRIFTWATCH_PROVIDER_MIRROR;
  if (configured !== undefined) return configured === '' ? undefined : configured;
  return searchedMirror();
}

function searchedMirror(): string | undefined {
  if (cachedMirror === undefined) {
    cachedMirror =
      MIRROR_CANDIDATES.find((dir) => mirroredProviders(dir).length > 0) ??
      SEARCH_ROOTS.map((root) => searchMirror(root, 3)).find(Boolean) ??
      null;
  }
  return cachedMirror ?? undefined;
}

/** Where Terraform installs providers from; the warm copies of the image come on top (see below). */
export type ProviderSource =
  /** The origin registries (registry.terraform.io...), Terraform's default. */
  | { kind: 'direct' }
  /** Terraform's provider network mirror protocol over HTTPS (URL ending in '/'). */
  | { kind: 'network'; url: string }
  /**
   * A directory in Terraform's filesystem mirror layout (packed or unpacked). With `only`, the mirror
   * was found on this machine rather than configured: it serves the providers it holds and the origin
   * registries serve the rest, as Terraform treats its own implied local mirror directories.
   */
  | { kind: 'filesystem'; path: string; only?: readonly string[] };

/** A mirror given as text (registry `providerMirror`, DRIFTWATCH_PROVIDER_MIRROR): https URL or directory. */
export function parseProviderSource(mirror: string | undefined, baseDir = process.cwd()): ProviderSource {
  if (!mirror) return { kind: 'direct' };
  if (/^https:\/\//i.test(mirror))
    return { kind: 'network', url: mirror.endsWith('/') ? mirror : `${mirror}/` };
  return { kind: 'filesystem', path: resolve(baseDir, mirror) };
}

/**
 * The source of one run: the registry's `providerMirror` (relative paths against the registry's
 * directory), else DRIFTWATCH_PROVIDER_MIRROR, each the only source (an offline estate scans only so:
 * Terraform asks the origin registry for the list of versions even when the lock file and the plugin
 * cache already hold the provider); else a mirror found on this machine, for the providers it holds
 * only (a partial mirror in ~/.terraform.d/plugins must not cut a workspace off its other providers);
 * else direct installation.
 */
export function resolveProviderSource(options: {
  configured?: string;
  registryDir?: string;
  env: NodeJS.ProcessEnv;
}): ProviderSource {
  if (options.configured) return parseProviderSource(options.configured, options.registryDir);
  if (options.env.DRIFTWATCH_PROVIDER_MIRROR !== undefined)
    return parseProviderSource(options.env.DRIFTWATCH_PROVIDER_MIRROR);
  const found = searchedMirror();
  return found ? { kind: 'filesystem', path: found, only: mirroredProviders(found) } : { kind: 'direct' };
}

/**
 * For an init that could not install a provider: where this run took providers from and what to
 * change. Terraform says which provider and version failed, not that driftwatch chose the source
 * (a mirror found on the machine, the registry's providerMirror, DRIFTWATCH_PROVIDER_MIRROR).
 * undefined for other init failures.
 */
export function providerInstallHint(summary: string, source: ProviderSource): string | undefined {
  if (
    !/Failed to (query available provider packages|install provider|resolve provider packages)/.test(summary)
  )
    return undefined;
  const mirrorIt = (to: string) =>
    `add it there (driftwatch providers mirror --registry <registry> --to ${to}), or pin a version it holds`;
  const where =
    source.kind === 'direct'
      ? 'providers come from their registries (no mirror is configured or found): let this machine reach them, or give a mirror (providerMirror in the registry, or DRIFTWATCH_PROVIDER_MIRROR)'
      : source.kind === 'network'
        ? `providers come only from the mirror ${source.url} (providerMirror or DRIFTWATCH_PROVIDER_MIRROR): ${mirrorIt('s3://<bucket>/provider-mirror')}`
        : source.only
          ? `the mirror found at ${source.path} serves ${source.only.join(', ') || 'no provider'} (in the versions it holds), and the registries every other provider: ${mirrorIt(source.path)}, or let this machine reach the registries`
          : `providers come only from the mirror ${source.path} (providerMirror or DRIFTWATCH_PROVIDER_MIRROR): ${mirrorIt(source.path)}`;
  return `${summary}\n\n(driftwatch: ${where})`;
}

/** Terraform's name for this machine's platform, e.g. linux_amd64. */
export const RUNNER_PLATFORM = terraformPlatform(process.platform, process.arch);

const packageHashes = new Map<string, Promise<string>>();

/**
 * Terraform's `h1:` hash of an unpacked provider package (dirhash Hash1: sha256 of the lines
 * "<sha256 hex>  <relative path>" over the sorted files). Remembered per directory, size and mtime:
 * the AWS provider is ~700 MB and takes a few seconds.
 */
export function packageHashV1(dir: string): Promise<string> {
  const files = listFiles(dir);
  const key = `${dir}|${files.map((file) => `${file}:${statSync(join(dir, file)).size}:${statSync(join(dir, file)).mtimeMs}`).join(',')}`;
  let hash = packageHashes.get(key);
  if (!hash) {
    hash = (async () => {
      let summary = '';
      for (const file of files) {
        const digest = createHash('sha256');
        for await (const chunk of createReadStream(join(dir, file), { highWaterMark: 4 * 1024 * 1024 }))
          digest.update(chunk as Buffer);
        summary += `${digest.digest('hex')}  ${file}\n`;
      }
      return `h1:${createHash('sha256').update(summary).digest('base64')}`;
    })();
    hash.catch(() => packageHashes.delete(key));
    packageHashes.set(key, hash);
  }
  return hash;
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const relativePath = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory() ? listFiles(dir, relativePath) : [relativePath];
    })
    .sort();
}

/**
 * The providers of a lock file that a warm copy (an unpacked filesystem mirror baked into the image,
 * `DRIFTWATCH_PROVIDER_WARM_CACHE`) can serve: the locked version for this platform is there and its
 * `h1:` hash is one the lock file records. Terraform checks an unpacked package by `h1:` only, so any
 * other provider (another version, or a lock file without this platform's `h1:`) is left to the
 * source, which can also check the `zh:` hashes of the zips.
 */
export async function warmProviders(
  warmDir: string | undefined,
  locked: readonly LockedProvider[],
  platform: string = RUNNER_PLATFORM,
): Promise<string[]> {
  if (!warmDir) return [];
  const served: string[] = [];
  for (const provider of locked) {
    const dir = join(warmDir, provider.address, provider.version, platform);
    if (!isDirectory(dir)) continue;
    if (provider.hashes.includes(await packageHashV1(dir))) served.push(provider.address);
  }
  return served;
}

/**
 * The `provider_installation` block: the warm copy for the providers it serves (installed from there,
 * excluded from the source), then the source for everything else. Nothing excludes a version:
 * whatever the lock file (or, without one, the constraints) selects comes from the source.
 */
export function providerInstallationConfig(
  source: ProviderSource,
  warm?: { path: string; providers: readonly string[] },
): string {
  const lines = ['provider_installation {'];
  const warmProviders = warm && warm.providers.length > 0 ? warm.providers : undefined;
  if (warm && warmProviders) {
    lines.push(
      '  filesystem_mirror {',
      `    path    = ${JSON.stringify(warm.path)}`,
      `    include = ${JSON.stringify(warmProviders)}`,
      '  }',
    );
  }
  const exclude = warmProviders ? [`    exclude = ${JSON.stringify(warmProviders)}`] : [];
  if (source.kind === 'filesystem' && source.only) {
    const served = source.only.filter((provider) => !warmProviders?.includes(provider));
    if (served.length > 0)
      lines.push(
        '  filesystem_mirror {',
        `    path    = ${JSON.stringify(source.path)}`,
        `    include = ${JSON.stringify(served)}`,
        '  }',
      );
    const local = [...(warmProviders ?? []), ...served];
    lines.push('  direct {', ...(local.length > 0 ? [`    exclude = ${JSON.stringify(local)}`] : []), '  }');
  } else if (source.kind === 'direct') lines.push('  direct {', ...exclude, '  }');
  else if (source.kind === 'network')
    lines.push('  network_mirror {', `    url = ${JSON.stringify(source.url)}`, ...exclude, '  }');
  else lines.push('  filesystem_mirror {', `    path = ${JSON.stringify(source.path)}`, ...exclude, '  }');
  lines.push('}', '');
  return lines.join('\n');
}

/**
 * Writes the CLI configuration of one run and returns its path. Undefined only for direct installation
 * without warm copies when `userConfig` exists: the user's own CLI configuration then applies as it is.
 */
export function writeCliConfig(
  dir: string,
  source: ProviderSource,
  warm?: { path: string; providers: readonly string[] },
  userConfig?: string,
): string | undefined {
  if (source.kind === 'direct' && !warm?.providers.length && userConfig) return undefined;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'terraform.tfrc');
  writeFileSync(path, providerInstallationConfig(source, warm));
  return path;
}

/** The user's CLI config, if the variable points at a file that exists (this machine sets it to one that does not). */
export function existingUserCliConfig(env: NodeJS.ProcessEnv): string | undefined {
  const path = env.TF_CLI_CONFIG_FILE;
  return path && existsSync(path) ? path : undefined;
}

/** Reused across runs and workspaces: providers are installed once per machine, not per scan. */
export function defaultPluginCacheDir(env: NodeJS.ProcessEnv): string {
  return env.TF_PLUGIN_CACHE_DIR ?? join(env.HOME ?? homedir(), '.cache', 'driftwatch', 'terraform-plugins');
}

/**
 * The environment every Terraform that driftwatch starts gets: its own data directory under
 * `workDir`, the shared plugin cache, the CLI configuration of the run's provider installation (or the
 * user's, if it exists and the run installs directly; a TF_CLI_CONFIG_FILE pointing nowhere makes
 * Terraform warn on every run), automation mode, and a TMPDIR under `workDir`. `extra` (a workspace's
 * env) cannot override these.
 *
 * A run that takes a provider from the warm copy runs without the shared plugin cache: Terraform
 * would link the read-only image directory into the cache, and a later run whose lock file lacks that
 * copy's `h1:` reinstalls the same version into the cache entry, writing through the link (observed
 * with Terraform 1.11). Such a run links `.terraform/providers` straight to the warm copy instead.
 */
export async function terraformEnvironment(options: {
  baseEnv: NodeJS.ProcessEnv;
  workDir: string;
  pluginCacheDir: string;
  extra?: Record<string, string>;
  /** The registry's `providerMirror`, if any. */
  providerMirror?: string;
  /** Relative `providerMirror` paths are resolved against this directory (the registry's). */
  registryDir?: string;
  /** The Terraform root: its `.terraform.lock.hcl` decides which warm copies apply. */
  root?: string;
  /** Terraform's platform name of this machine (default RUNNER_PLATFORM). */
  platform?: string;
}): Promise<NodeJS.ProcessEnv> {
  const { baseEnv, workDir, pluginCacheDir } = options;
  await mkdir(pluginCacheDir, { recursive: true });
  const source = resolveProviderSource({
    configured: options.providerMirror,
    registryDir: options.registryDir,
    env: baseEnv,
  });
  const warmDir = baseEnv.DRIFTWATCH_PROVIDER_WARM_CACHE || undefined;
  const lockFile = options.root ? join(options.root, '.terraform.lock.hcl') : undefined;
  const locked = lockFile && existsSync(lockFile) ? parseLockFile(await readFile(lockFile, 'utf8')) : [];
  const warm = warmDir
    ? { path: warmDir, providers: await warmProviders(warmDir, locked, options.platform) }
    : undefined;
  const cliConfig = writeCliConfig(workDir, source, warm, existingUserCliConfig(baseEnv));
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    ...options.extra,
    TF_DATA_DIR: join(workDir, '.terraform-data'),
    TF_PLUGIN_CACHE_DIR: pluginCacheDir,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
  };
  if (warm?.providers.length) delete env.TF_PLUGIN_CACHE_DIR;
  delete env.TF_CLI_CONFIG_FILE;
  if (cliConfig) env.TF_CLI_CONFIG_FILE = cliConfig;
  else if (existingUserCliConfig(baseEnv)) env.TF_CLI_CONFIG_FILE = existingUserCliConfig(baseEnv);
  // Terraform and its providers leave temp files (go-plugin's sockets) in TMPDIR when they are
  // killed: under workDir they go with it.
  env.TMPDIR = join(workDir, 'tmp');
  await mkdir(env.TMPDIR, { recursive: true });
  await chmod(env.TMPDIR, 0o700);
  return env;
}
