import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  explainModuleAccess,
  moduleAccessHint,
  prepareModuleCredentials,
  terraformTokenEnvName,
} from '../../../functions/adapters/terraform/module-credentials.js';
import type {
  ModuleSourceCredentials,
  RegistryCredentials,
  SecretReference,
} from '../../../functions/core/registry/model.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import { newCore } from '../../helpers/canary-generator.js';
import { useTempDirs } from '../../helpers/processes.js';

const tempDir = useTempDirs('driftwatch-module-credentials-');

/** A resolver over a map of env references, as the local resolver reads them. */
function secrets(values: Record<string, string>) {
  return async (reference: SecretReference) => {
    const name = 'env' in reference ? reference.env : reference.secretsManager;
    const value = values[name];
    if (value === undefined) throw new Error(`the environment variable ${name} is not set`);
    return value;
  };
}

const mode = (path: string) => statSync(path).mode & 0o777;

/** Runs `git credential <action>` as Terraform's git would, with the environment init gets. */
function gitCredential(env: NodeJS.ProcessEnv, action: string, url: string, extra = '') {
  const { protocol, host } = new URL(url);
  return spawnSync('git', ['credential', action], {
    input: `protocol=${protocol.slice(0, -1)}\nhost=${host}\n${extra}\n`,
    env,
    encoding: 'utf8',
  });
}

describe('TF_TOKEN_<host>: the names Terraform reads registry tokens from', () => {
  it.each([
    ['app.terraform.io', 'TF_TOKEN_app_terraform_io'],
    ['tfe.example-corp.com', 'TF_TOKEN_tfe_example__corp_com'],
    ['café.fr', 'TF_TOKEN_xn____caf__dma_fr'],
    ['127.0.0.1:8443', 'TF_TOKEN_127_0_0_1:8443'],
  ])('%s → %s', (host, name) => {
    expect(terraformTokenEnvName(host)).toBe(name);
  });
});

describe('module credentials of one run', () => {
  it('a workspace without private modules gets no files, only "never prompt"', async () => {
    const dir = join(tempDir(), 'creds');
    const credentials = await prepareModuleCredentials({ workspace: {}, dir });
    expect(existsSync(dir)).toBe(false);
    expect(credentials.initEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', GIT_TERMINAL_PROMPT: '0' });
    expect(credentials.secrets).toEqual([]);
  });

  it('HTTPS git: the token is in a 0600 file of a 0700 directory, in no variable, and git hands it to the configured host only', async () => {
    const base = tempDir();
    const dir = join(base, 'creds');
    const token = `tok-${newCore()}`;
    const sources: ModuleSourceCredentials[] = [
      { host: 'git.example.com', https: { token: { env: 'GIT_TOKEN' }, username: 'x-access-token' } },
      { host: '127.0.0.1:3000', https: { token: { env: 'LOCAL_TOKEN' }, username: 'ci' } },
    ];
    const credentials = await prepareModuleCredentials({
      workspace: { moduleSources: sources },
      dir,
      resolveSecret: secrets({ GIT_TOKEN: ` ${token}\n`, LOCAL_TOKEN: `local-${token}` }),
    });
    expect(mode(dir)).toBe(0o700);
    for (const file of readdirSync(dir)) expect(mode(join(dir, file))).toBe(0o600);
    expect(credentials.secrets).toEqual(expect.arrayContaining([token, `local-${token}`]));

    // A helper configured elsewhere (a user's global config) that logs what it is asked and answers.
    const log = join(base, 'global-helper.log');
    const globalConfig = join(base, 'gitconfig');
    writeFileSync(
      globalConfig,
      `[credential]\n\thelper = "!f() { echo \\"$1\\" >> '${log}'; test \\"$1\\" = get && printf 'username=global\\\\npassword=from-global\\\\n'; }; f"\n`,
    );
    const env = credentials.initEnv({
      PATH: process.env.PATH,
      HOME: base,
      GIT_CONFIG_GLOBAL: globalConfig,
      GIT_CONFIG_NOSYSTEM: '1',
    });
    for (const [name, value] of Object.entries(env)) {
      expect(value, name).not.toContain(token);
      expect(name).not.toContain(token);
    }
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');

    const ours = gitCredential(env, 'fill', 'https://git.example.com/org/mod.git');
    expect(ours.status).toBe(0);
    expect(ours.stdout).toContain(`username=x-access-token\npassword=${token}\n`);
    // Another host, and the same host over plain http, never see the token (the other helper answers).
    for (const url of [
      'https://evil.example.com/x.git',
      'http://git.example.com/x.git',
      'https://git.example.com:8443/x',
    ]) {
      const other = gitCredential(env, 'fill', url);
      expect(other.stdout, url).toContain('password=from-global');
      expect(other.stdout + other.stderr, url).not.toContain(token);
    }
    // Loopback servers (tests, local mirrors) may use http.
    expect(gitCredential(env, 'fill', 'http://127.0.0.1:3000/mod.git').stdout).toContain(
      `username=ci\npassword=local-${token}\n`,
    );
    // After a successful fetch git asks helpers to store the credential: the user's helper is never asked.
    writeFileSync(log, '');
    gitCredential(
      env,
      'approve',
      'https://git.example.com/org/mod.git',
      `username=x-access-token\npassword=${token}\n`,
    );
    expect(readFileSync(log, 'utf8')).toBe('');

    await credentials.remove();
    expect(existsSync(dir)).toBe(false);
  });

  it('without a helper for the host, git fails at once instead of prompting', async () => {
    const base = tempDir();
    const credentials = await prepareModuleCredentials({ workspace: {}, dir: join(base, 'creds') });
    const env = credentials.initEnv({ PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' });
    const result = gitCredential(env, 'fill', 'https://git.example.com/x.git');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('terminal prompts disabled');
  });

  it('inherited git configuration entries are kept: ours are appended after them', async () => {
    const credentials = await prepareModuleCredentials({
      workspace: {
        moduleSources: [{ host: 'git.example.com', https: { token: { env: 'T' }, username: 'u' } }],
      },
      dir: join(tempDir(), 'creds'),
      resolveSecret: secrets({ T: 'token-value-1' }),
    });
    const env = credentials.initEnv({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.proxy',
      GIT_CONFIG_VALUE_0: 'p',
    });
    expect(env.GIT_CONFIG_KEY_0).toBe('http.proxy');
    expect(env.GIT_CONFIG_KEY_1).toBe('credential.https://git.example.com.helper');
    expect(env.GIT_CONFIG_VALUE_1).toBe('');
    expect(env.GIT_CONFIG_KEY_2).toBe('credential.https://git.example.com.helper');
    expect(env.GIT_CONFIG_COUNT).toBe('3');
    await credentials.remove();
  });

  it('SSH git: the key is a valid 0600 key file, offered to its host only, and unknown host keys are refused', async () => {
    const base = tempDir();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', join(base, 'id')]);
    // Secrets Manager returns the PEM; a missing final newline would make OpenSSH refuse the key.
    const privateKey = readFileSync(join(base, 'id'), 'utf8').trim();
    const publicKey = readFileSync(join(base, 'id.pub'), 'utf8').trim();
    const knownHosts = `git.example.com ${publicKey.split(' ').slice(0, 2).join(' ')}`;
    const dir = join(base, 'creds');
    const credentials = await prepareModuleCredentials({
      workspace: {
        moduleSources: [{ host: 'git.example.com', ssh: { privateKey: { env: 'KEY' }, knownHosts } }],
      },
      dir,
      resolveSecret: secrets({ KEY: privateKey }),
    });
    const env = credentials.initEnv({ PATH: process.env.PATH });
    const command = env.GIT_SSH_COMMAND ?? '';
    const config = /^ssh -F '([^']+)'$/.exec(command)?.[1];
    expect(config, command).toBeDefined();
    expect(config!.startsWith(`${dir}/`)).toBe(true);
    expect(command).not.toContain(privateKey.split('\n')[1]!);
    expect(credentials.secrets).toContain(privateKey);
    for (const file of readdirSync(dir)) expect(mode(join(dir, file))).toBe(0o600);

    const effective = (host: string) =>
      execFileSync('ssh', ['-G', '-F', config!, host], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .split('\n')
        .filter((line) =>
          /^(identityfile|identitiesonly|stricthostkeychecking|batchmode|userknownhostsfile|globalknownhostsfile) /.test(
            line,
          ),
        );
    const keyFile = join(dir, 'ssh-key-0');
    expect(effective('git.example.com')).toEqual(
      expect.arrayContaining([
        'batchmode yes',
        'identitiesonly yes',
        'stricthostkeychecking true',
        `identityfile ${keyFile}`,
        `userknownhostsfile ${join(dir, 'known_hosts')}`,
        'globalknownhostsfile /dev/null',
      ]),
    );
    expect(effective('other.example.com')).not.toContain(`identityfile ${keyFile}`);
    expect(effective('other.example.com')).toContain('stricthostkeychecking true');
    expect(readFileSync(join(dir, 'known_hosts'), 'utf8')).toBe(`${knownHosts}\n`);
    // OpenSSH reads the key file as written (it refuses group- or world-readable keys).
    const derived = execFileSync('ssh-keygen', ['-y', '-f', keyFile], { encoding: 'utf8' });
    expect(derived.split(' ').slice(0, 2)).toEqual(publicKey.split(' ').slice(0, 2));
    await credentials.remove();
    expect(existsSync(dir)).toBe(false);
  });

  it('registries: TF_TOKEN_<host> for init, replacing an inherited token for the same host', async () => {
    const token = `tfe-${newCore()}`;
    const registries: RegistryCredentials[] = [
      { host: 'tfe.example-corp.com', token: { secretsManager: 'tfe/token' } },
    ];
    const credentials = await prepareModuleCredentials({
      workspace: { registries },
      dir: join(tempDir(), 'creds'),
      resolveSecret: secrets({ 'tfe/token': token }),
    });
    const env = credentials.initEnv({
      'TF_TOKEN_tfe.example-corp.com': 'inherited',
      TF_TOKEN_app_terraform_io: 'kept',
    });
    expect(env.TF_TOKEN_tfe_example__corp_com).toBe(token);
    expect(env['TF_TOKEN_tfe.example-corp.com']).toBeUndefined();
    expect(env.TF_TOKEN_app_terraform_io).toBe('kept');
    expect(credentials.secrets).toContain(token);
    await credentials.remove();
  });

  it('a secret that cannot be read, or is not a key, fails the scan naming the host and field, never a value', async () => {
    const dir = join(tempDir(), 'creds');
    const missing = await prepareModuleCredentials({
      workspace: { registries: [{ host: 'tfe.example.com', token: { env: 'TFE_TOKEN' } }] },
      dir,
      resolveSecret: secrets({}),
    }).catch((error) => error);
    expect(missing).toBeInstanceOf(TerraformRunError);
    expect(missing.stage).toBe('credentials');
    expect(missing.reason).toBe(
      'module registry tfe.example.com (token): the environment variable TFE_TOKEN is not set',
    );
    expect(existsSync(dir)).toBe(false);

    const notAKey = `not-a-key-${newCore()}`;
    const wrong = await prepareModuleCredentials({
      workspace: {
        moduleSources: [
          {
            host: 'git.example.com',
            ssh: { privateKey: { env: 'K' }, knownHosts: 'git.example.com ssh-ed25519 AAAA' },
          },
        ],
      },
      dir,
      resolveSecret: secrets({ K: notAKey }),
    }).catch((error) => error);
    expect(wrong.reason).toBe(
      'module source git.example.com (ssh.privateKey): the secret is not a private key (OpenSSH or PEM)',
    );
    expect(existsSync(dir)).toBe(false);

    const noResolver = await prepareModuleCredentials({
      workspace: { registries: [{ host: 'tfe.example.com', token: { env: 'T' } }] },
      dir,
    }).catch((error) => error);
    expect(noResolver.reason).toBe(
      'module registry tfe.example.com (token): this runner cannot read secrets',
    );
  });
});

describe('an init refused by a private module host names the registry key that fixes it', () => {
  // git's and Terraform's own words, as the integration test (private-modules.test.ts) records them.
  it.each([
    [
      "fatal: could not read Username for 'https://git.example.com': terminal prompts disabled",
      'moduleSources',
    ],
    ["fatal: Authentication failed for 'https://git.example.com/org/mod.git/'", 'moduleSources'],
    ['git@github.com: Permission denied (publickey).', 'moduleSources'],
    ['Host key verification failed.', 'moduleSources'],
    [
      'Error: Error accessing remote module registry\n\nFailed to retrieve available versions for module "network" (main.tf:6) from\ntfe.example.com: error looking up module versions: 401 Unauthorized.',
      'registries',
    ],
  ])('%s → %s', (reason, key) => {
    expect(moduleAccessHint(reason)).toContain(`in ${key} (docs/private-modules.md)`);
    let thrown: unknown;
    try {
      explainModuleAccess(new TerraformRunError('init', reason));
    } catch (error) {
      thrown = error;
    }
    expect((thrown as TerraformRunError).reason).toBe(`${reason} (${moduleAccessHint(reason)})`);
    expect((thrown as TerraformRunError).stage).toBe('init');
  });

  it('other init failures pass through unchanged', () => {
    const error = new TerraformRunError(
      'init',
      'Error: Failed to get existing workspaces: S3 bucket does not exist.',
    );
    expect(() => explainModuleAccess(error)).toThrow(error);
    expect(moduleAccessHint('Error: Module not installed')).toBeUndefined();
  });
});
