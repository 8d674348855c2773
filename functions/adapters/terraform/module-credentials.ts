import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { domainToASCII } from 'node:url';
import type { ModuleSourceCredentials, SecretReference, WorkspaceConfig } from '../../core/registry/model.js';
import { TerraformRunError } from '../../core/scan/ports.js';

/**
 * Credentials for the private modules of one workspace, for its `terraform init` only (modules are
 * fetched there; plans run third-party providers, which never see them).
 */
export interface ModuleCredentials {
  /** Terraform's environment for init: git configuration, GIT_SSH_COMMAND and TF_TOKEN_<host> added. */
  initEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Every secret value handed over, to redact from whatever Terraform, git or ssh print. */
  secrets: string[];
  /** Deletes the credential files (removing the run's directory deletes them too). */
  remove(): Promise<void>;
}

type ResolveSecret = (reference: SecretReference) => Promise<string>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Resolves the workspace's module credentials (Secrets Manager in AWS, the environment locally)
 * and writes them into `dir`, a new directory only this process's user can enter, inside the
 * run's private directory:
 * - HTTPS git: a 0600 file with the username and token, and, through `GIT_CONFIG_COUNT`, a credential
 *   helper that prints it, configured for `https://<host>` only (also `http://` on loopback, for
 *   local servers), so git never offers the token to another host. Helpers configured elsewhere
 *   (a user's `credential.helper=store`) are reset for that host: none of them sees or stores it.
 * - SSH git: each key in a 0600 file, the hosts' keys in a known_hosts file, and an ssh_config that
 *   offers a key only to its host and refuses unknown host keys (no trust on first use), used
 *   through `GIT_SSH_COMMAND="ssh -F <config>"`.
 * - Registries: `TF_TOKEN_<host>`, the way Terraform reads tokens from the environment. The token is
 *   in init's environment, never on a command line or in a file.
 * Nothing is set in this process's environment.
 */
export async function prepareModuleCredentials(options: {
  workspace: Pick<WorkspaceConfig, 'moduleSources' | 'registries'>;
  dir: string;
  resolveSecret?: ResolveSecret;
}): Promise<ModuleCredentials> {
  const { workspace, dir } = options;
  const sources = workspace.moduleSources ?? [];
  const registries = workspace.registries ?? [];
  const secrets: string[] = [];
  const gitConfig: Array<[string, string]> = [];
  const tokens: Record<string, string> = {};
  let sshCommand: string | undefined;

  const read = async (what: string, reference: SecretReference): Promise<string> => {
    if (!options.resolveSecret)
      throw new TerraformRunError('credentials', `${what}: this runner cannot read secrets`);
    let value: string;
    try {
      value = await options.resolveSecret(reference);
    } catch (error) {
      throw new TerraformRunError('credentials', `${what}: ${(error as Error).message}`, { cause: error });
    }
    secrets.push(value);
    return value;
  };

  if (sources.length > 0 || registries.length > 0) {
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o700);
  }
  try {
    for (const [index, source] of sources.entries()) {
      if (source.https) {
        const token = oneLine(
          await read(`module source ${source.host} (https.token)`, source.https.token),
          `module source ${source.host} (https.token)`,
        );
        secrets.push(token);
        const file = join(dir, `git-${index}.credential`);
        await writePrivate(file, `username=${source.https.username}\npassword=${token}\n`);
        for (const context of httpContexts(source.host)) {
          // An empty helper resets the list git collected from other configuration for this URL.
          gitConfig.push([`credential.${context}.helper`, '']);
          gitConfig.push([`credential.${context}.helper`, credentialHelper(file)]);
        }
      }
    }
    const sshSources = sources.filter(
      (source): source is ModuleSourceCredentials & Required<Pick<ModuleSourceCredentials, 'ssh'>> =>
        source.ssh !== undefined,
    );
    if (sshSources.length > 0) sshCommand = await writeSshConfig(dir, sshSources, read);
    for (const registry of registries) {
      const what = `module registry ${registry.host} (token)`;
      const token = oneLine(await read(what, registry.token), what);
      secrets.push(token);
      tokens[terraformTokenEnvName(registry.host)] = token;
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    secrets: [...new Set(secrets.filter((value) => value.length >= 4))],
    initEnv(env) {
      const result: NodeJS.ProcessEnv = { ...env };
      // A scan never waits for someone to type a password: git fails with its reason instead.
      result.GIT_TERMINAL_PROMPT = '0';
      if (gitConfig.length > 0) {
        const inherited = Number(env.GIT_CONFIG_COUNT ?? 0);
        let count = Number.isInteger(inherited) && inherited > 0 ? inherited : 0;
        for (const [key, value] of gitConfig) {
          result[`GIT_CONFIG_KEY_${count}`] = key;
          result[`GIT_CONFIG_VALUE_${count}`] = value;
          count++;
        }
        result.GIT_CONFIG_COUNT = String(count);
      }
      if (sshCommand) result.GIT_SSH_COMMAND = sshCommand;
      if (Object.keys(tokens).length > 0) {
        // An inherited token for the same host under another spelling would compete with ours.
        const ours = new Set(Object.keys(tokens).map(tokenHostOf));
        for (const name of Object.keys(result))
          if (name.startsWith('TF_TOKEN_') && ours.has(tokenHostOf(name))) delete result[name];
        Object.assign(result, tokens);
      }
      return result;
    },
    async remove() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The variable Terraform reads a host's token from: `TF_TOKEN_` and the host with hyphens as
 * double underscores and dots as underscores, internationalised names in punycode
 * (`tfe.example-corp.com` → `TF_TOKEN_tfe_example__corp_com`). A port stays as it is.
 */
export function terraformTokenEnvName(host: string): string {
  const at = host.lastIndexOf(':');
  const name = at >= 0 ? host.slice(0, at) : host;
  const port = at >= 0 ? host.slice(at) : '';
  const ascii = domainToASCII(name) || name;
  return `TF_TOKEN_${ascii.replaceAll('-', '__').replaceAll('.', '_')}${port}`;
}

/** The host a TF_TOKEN_ variable is for, decoded as Terraform decodes it. */
function tokenHostOf(name: string): string {
  const encoded = name.slice('TF_TOKEN_'.length);
  const at = encoded.lastIndexOf(':');
  const host = (at >= 0 ? encoded.slice(0, at) : encoded).replaceAll('__', '-').replaceAll('_', '.');
  return `${(domainToASCII(host) || host).toLowerCase()}${at >= 0 ? encoded.slice(at) : ''}`;
}

/** The URL contexts git matches a host's credential helper against: https, and http on loopback only. */
function httpContexts(host: string): string[] {
  const name = host.replace(/:\d+$/, '');
  return LOOPBACK.has(name) ? [`https://${host}`, `http://${host}`] : [`https://${host}`];
}

/**
 * A credential helper that answers git's `get` from the file and ignores `store` and `erase` (the
 * token is not git's to keep). Git runs a value starting with '!' through the shell: only the
 * file's path is here, never the token.
 */
function credentialHelper(file: string): string {
  return `!f() { test "$1" = get && cat ${shellQuote(file)}; }; f`;
}

async function writeSshConfig(
  dir: string,
  sources: Array<ModuleSourceCredentials & Required<Pick<ModuleSourceCredentials, 'ssh'>>>,
  read: (what: string, reference: SecretReference) => Promise<string>,
): Promise<string> {
  const knownHosts = join(dir, 'known_hosts');
  const config = join(dir, 'ssh_config');
  const lines = ['# One scan run: keys only for their host, host keys only from known_hosts.'];
  for (const [index, source] of sources.entries()) {
    const what = `module source ${source.host} (ssh.privateKey)`;
    const key = (await read(what, source.ssh.privateKey)).replace(/\r\n/g, '\n').trim();
    if (!key.includes('PRIVATE KEY'))
      throw new TerraformRunError('credentials', `${what}: the secret is not a private key (OpenSSH or PEM)`);
    const file = join(dir, `ssh-key-${index}`);
    // OpenSSH refuses a key file without the final newline, and one other users can read.
    await writePrivate(file, `${key}\n`);
    lines.push(
      `Host ${source.host.replace(/:\d+$/, '')}`,
      `  IdentityFile ${sshQuote(file)}`,
      '  IdentitiesOnly yes',
    );
  }
  lines.push(
    'Host *',
    '  BatchMode yes',
    '  StrictHostKeyChecking yes',
    `  UserKnownHostsFile ${sshQuote(knownHosts)}`,
    '  GlobalKnownHostsFile /dev/null',
    '',
  );
  await writePrivate(knownHosts, `${sources.map((source) => source.ssh.knownHosts.trim()).join('\n')}\n`);
  await writePrivate(config, lines.join('\n'));
  return `ssh -F ${shellQuote(config)}`;
}

async function writePrivate(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
}

/** Git's credential protocol is line-based: a token is one line (surrounding whitespace dropped). */
function oneLine(value: string, what: string): string {
  const token = value.trim();
  if (token === '' || /[\r\n\0]/.test(token))
    throw new TerraformRunError('credentials', `${what}: the secret must be one line of text`);
  return token;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function sshQuote(text: string): string {
  return `"${text}"`;
}

/** What git prints when a host wants credentials it did not get, or refused the ones it got. */
const GIT_ACCESS_DENIED =
  /could not read Username for|terminal prompts disabled|Authentication failed for|Permission denied \(publickey|Host key verification failed|host key is known for/;
/** What Terraform prints when a module registry refuses the request. */
const REGISTRY_ACCESS_DENIED = /module registry[\s\S]*\b(401 Unauthorized|403 Forbidden)/;

/**
 * An init that failed because a private module's host refused access says which registry key gives
 * the credentials: git's and Terraform's own words name the host but not driftwatch's settings.
 */
export function moduleAccessHint(reason: string): string | undefined {
  if (GIT_ACCESS_DENIED.test(reason))
    return 'a private git module: give its host a token or key that can read it in moduleSources (docs/private-modules.md)';
  if (REGISTRY_ACCESS_DENIED.test(reason))
    return 'a private module registry: give its host a token that can read the module in registries (docs/private-modules.md)';
  return undefined;
}

/** Rethrows a failed init, with the hint of `moduleAccessHint` when it applies. */
export function explainModuleAccess(error: unknown): never {
  const hint = error instanceof TerraformRunError ? moduleAccessHint(error.reason) : undefined;
  if (!hint || !(error instanceof TerraformRunError)) throw error;
  throw new TerraformRunError(error.stage, `${error.reason} (${hint})`, { cause: error });
}
