import { lstat, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PROXY_ENV_NAMES } from '../../core/registry/formats.js';

/**
 * What a Terraform run inherits from driftwatch's own process environment. Everything Terraform
 * starts — providers, module installers, git, credential helpers — gets this environment, and some
 * of that code is the workspace owners' (or their registries'). driftwatch's environment holds what
 * no workspace should see: the scanner's own AWS credentials (in Lambda, the function role's),
 * variables and tokens meant for another workspace (`TF_VAR_*` and `TF_TOKEN_*` of a local shell),
 * the hash salt, the findings bucket. So nothing is inherited unless it is named here; a
 * workspace's own inputs (its `env`, `sensitiveVars`, module credentials, the assumed role) are
 * added for its run alone by the runner.
 */

/** How programs are found and run, and the locale they print in. */
const SYSTEM = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ'];
const SYSTEM_PREFIXES = ['LC_'];

/** Where the network is: proxies and the trust store (a TLS-inspecting egress proxy, a private mirror's CA). */
const NETWORK = [...PROXY_ENV_NAMES, 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'AWS_CA_BUNDLE'];

/** Where AWS is and how to call it; none of these is a credential. */
const AWS_SETTINGS = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_ENDPOINT_URL',
  'AWS_USE_FIPS_ENDPOINT',
  'AWS_USE_DUALSTACK_ENDPOINT',
  'AWS_STS_REGIONAL_ENDPOINTS',
  'AWS_S3_US_EAST_1_REGIONAL_ENDPOINT',
  'AWS_RETRY_MODE',
  'AWS_MAX_ATTEMPTS',
  'AWS_EC2_METADATA_DISABLED',
];
const AWS_SETTING_PREFIXES = ['AWS_ENDPOINT_URL_'];

/**
 * The default credential chain: inherited only when the workspace has no role to assume (a local
 * run with the user's credentials; deployed, the scanner's read-only role). With a role, Terraform
 * gets that role's credentials and nothing that would lead to others (a profile, the container
 * credentials endpoint of CodeBuild or ECS, a web identity token).
 */
export const CREDENTIAL_CHAIN = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_ROLE_SESSION_NAME',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
];

/**
 * Terraform settings driftwatch itself decides for every run (cli-config.ts, the runner); kept even
 * when the parent happens to hold the same value. A user's own CLI configuration is honoured when
 * driftwatch writes none (cli-config.ts).
 */
const DRIFTWATCH_SETTINGS = [
  'TF_DATA_DIR',
  'TF_PLUGIN_CACHE_DIR',
  'TF_CLI_CONFIG_FILE',
  'TF_IN_AUTOMATION',
  'TF_INPUT',
  'TF_WORKSPACE',
  'CHECKPOINT_DISABLE',
  'TMPDIR',
];

/**
 * The operator's own additions: `DRIFTWATCH_PASS_ENV=SSH_AUTH_SOCK,OTHER` in driftwatch's
 * environment names variables every run inherits too (a local SSH agent for module sources, a
 * test's stand-in). Explicit and global: every workspace's modules can use what it names.
 */
export const PASS_ENV_VARIABLE = 'DRIFTWATCH_PASS_ENV';

export function passedNames(ambient: NodeJS.ProcessEnv): string[] {
  return (ambient[PASS_ENV_VARIABLE] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

/** Whether a variable of driftwatch's own environment may reach a Terraform run. */
export function mayInherit(
  name: string,
  options: { assumedRole: boolean; passed?: readonly string[] },
): boolean {
  // With a role, the run has that role's credentials and no road to any other.
  if (CREDENTIAL_CHAIN.includes(name)) return !options.assumedRole;
  if ([...SYSTEM, ...NETWORK, ...AWS_SETTINGS, ...DRIFTWATCH_SETTINGS].includes(name)) return true;
  if ([...SYSTEM_PREFIXES, ...AWS_SETTING_PREFIXES].some((prefix) => name.startsWith(prefix))) return true;
  return options.passed?.includes(name) ?? false;
}

/**
 * The run's environment without what it only inherited: a variable whose value is the one in
 * `ambient` (driftwatch's process environment) is dropped unless `mayInherit` allows it or the
 * workspace set it itself (`keep`: the names of its `env`). Variables driftwatch or its caller set
 * for the run (a different value, or a name the parent does not have) stay.
 */
export function isolateRunEnvironment(
  env: NodeJS.ProcessEnv,
  options: { ambient: NodeJS.ProcessEnv; keep?: Iterable<string>; assumedRole: boolean },
): NodeJS.ProcessEnv {
  const keep = new Set(options.keep ?? []);
  const rules = { assumedRole: options.assumedRole, passed: passedNames(options.ambient) };
  const isolated: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const inherited = options.ambient[name] === value;
    if (inherited && !keep.has(name) && !mayInherit(name, rules)) continue;
    isolated[name] = value;
  }
  return isolated;
}

/**
 * For a plan that misses a variable driftwatch's own environment holds as `TF_VAR_<name>` (runs
 * used to inherit those): how to hand it to the workspace that needs it, or '' when that is not it.
 */
export function inheritedVariableHint(summary: string, ambient: NodeJS.ProcessEnv): string {
  const names = [...summary.matchAll(/variable "([A-Za-z_][A-Za-z0-9_-]*)"/g)].map((match) => match[1]!);
  const name = names.find((candidate) => ambient[`TF_VAR_${candidate}`] !== undefined);
  if (!name) return '';
  return `; TF_VAR_${name} is set in driftwatch's environment, which Terraform runs do not inherit: give it to this workspace as sensitiveVars: { ${name}: { env: TF_VAR_${name} } }`;
}

/** `<host>/<namespace>/<type>/<version>/<os>_<arch>/`: Terraform's plugin cache layout. */
export const CACHE_LEVELS: Array<(name: string) => boolean> = [
  (host) => /^[a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+(:\d+)?$/i.test(host),
  (namespace) => /^[a-z0-9][a-z0-9_-]*$/i.test(namespace),
  (type) => /^[a-z0-9][a-z0-9_-]*$/i.test(type),
  (version) => /^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$/.test(version),
  (platform) => /^[a-z0-9]+_[a-z0-9]+$/.test(platform),
];
/** driftwatch's own files at the top of the cache (the init lock and its takeovers). */
const OWN_FILES = /^\.driftwatch-/;

/**
 * Removes from the shared plugin cache everything that is not a provider package in Terraform's
 * layout: a run's providers can write anywhere the run can, and the cache outlives the run. What is
 * left is only provider packages, which Terraform checks against the workspace's lock file hashes
 * before it uses a cached copy (Terraform ≥ 1.4, unless TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE
 * is set, which a run never inherits). Call it holding the plugin cache lock. Returns what it removed,
 * relative to the cache.
 */
export async function sweepPluginCache(dir: string): Promise<string[]> {
  const removed: string[] = [];
  async function sweep(path: string, relative: string, level: number): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(path);
    } catch {
      return;
    }
    for (const name of entries) {
      const entryPath = join(path, name);
      const entryRelative = relative ? `${relative}/${name}` : name;
      if (level === 0 && OWN_FILES.test(name)) continue;
      const stats = await lstat(entryPath).catch(() => undefined);
      if (!stats) continue;
      // Terraform itself links a package installed from an unpacked filesystem mirror (the machine's
      // mirror, the image's warm copy) into the cache: removing that link under a running plan of
      // another workspace fails it ("Required plugins are not installed"). Such a link is a package
      // like any other: Terraform checks its h1 against the lock file before using it.
      if (stats.isSymbolicLink() && level === CACHE_LEVELS.length - 1 && CACHE_LEVELS[level]!(name)) {
        if ((await stat(entryPath).catch(() => undefined))?.isDirectory()) continue;
      }
      // Directories of the layout only: a symlink elsewhere could point a later run's provider anywhere.
      if (stats.isDirectory() && CACHE_LEVELS[level]!(name)) {
        if (level + 1 < CACHE_LEVELS.length) await sweep(entryPath, entryRelative, level + 1);
        // A layout directory with no package below it is someone's marker, not a provider.
        if ((await readdir(entryPath).catch(() => [])).length > 0) continue;
      }
      await rm(entryPath, { recursive: true, force: true });
      removed.push(entryRelative);
    }
  }
  await sweep(dir, '', 0);
  return removed;
}
