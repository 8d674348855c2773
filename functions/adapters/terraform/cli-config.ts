import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

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
 * The provider mirror to use: `DRIFTWATCH_PROVIDER_MIRROR` first (empty string disables it), then
 * well-known locations, then a bounded search. Cached for the life of the process.
 */
export function findProviderMirror(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.DRIFTWATCH_PROVIDER_MIRROR;
  if (configured !== undefined) return configured === '' ? undefined : configured;
  if (cachedMirror === undefined) {
    cachedMirror =
      MIRROR_CANDIDATES.find((dir) => mirroredProviders(dir).length > 0) ??
      SEARCH_ROOTS.map((root) => searchMirror(root, 3)).find(Boolean) ??
      null;
  }
  return cachedMirror ?? undefined;
}

/**
 * Writes a Terraform CLI configuration that installs mirrored providers from the mirror and all
 * others directly. Returns its path, or undefined when there is no mirror (Terraform's defaults,
 * or the user's own TF_CLI_CONFIG_FILE, then apply).
 */
export function writeCliConfig(dir: string, mirror: string | undefined): string | undefined {
  if (!mirror) return undefined;
  const providers = mirroredProviders(mirror);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'terraform.tfrc');
  const config = [
    'provider_installation {',
    `  filesystem_mirror {`,
    `    path    = ${JSON.stringify(mirror)}`,
    `    include = ${JSON.stringify(providers)}`,
    '  }',
    '  direct {',
    `    exclude = ${JSON.stringify(providers)}`,
    '  }',
    '}',
    '',
  ].join('\n');
  writeFileSync(path, config);
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
 * `workDir`, the shared plugin cache, the provider mirror's CLI configuration (or the user's, if it
 * exists; a TF_CLI_CONFIG_FILE pointing nowhere makes Terraform warn on every run), automation mode,
 * and a TMPDIR under `workDir`. `extra` (a workspace's env) cannot override these.
 */
export async function terraformEnvironment(options: {
  baseEnv: NodeJS.ProcessEnv;
  workDir: string;
  pluginCacheDir: string;
  extra?: Record<string, string>;
}): Promise<NodeJS.ProcessEnv> {
  const { baseEnv, workDir, pluginCacheDir } = options;
  await mkdir(pluginCacheDir, { recursive: true });
  const cliConfig = writeCliConfig(workDir, findProviderMirror(baseEnv)) ?? existingUserCliConfig(baseEnv);
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    ...options.extra,
    TF_DATA_DIR: join(workDir, '.terraform-data'),
    TF_PLUGIN_CACHE_DIR: pluginCacheDir,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
  };
  delete env.TF_CLI_CONFIG_FILE;
  if (cliConfig) env.TF_CLI_CONFIG_FILE = cliConfig;
  // Terraform and its providers leave temp files (go-plugin's sockets) in TMPDIR when they are
  // killed: under workDir they go with it.
  env.TMPDIR = join(workDir, 'tmp');
  await mkdir(env.TMPDIR, { recursive: true });
  await chmod(env.TMPDIR, 0o700);
  return env;
}
