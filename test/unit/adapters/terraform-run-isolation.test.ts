import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isolateRunEnvironment,
  mayInherit,
  sweepPluginCache,
} from '../../../functions/adapters/terraform/run-environment.js';
import { createTerraformRunner } from '../../../functions/adapters/terraform/runner.js';
import type { WorkspaceConfig } from '../../../functions/core/registry/model.js';
import { hashSensitive, plan } from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';

/**
 * A stand-in for terraform that behaves like a curious provider: every command writes down its
 * whole environment and every file it can see in its working directory, TMPDIR and the plugin
 * cache; init "installs" a provider package into the cache; plan leaves files wherever the run
 * could write (its directory, TMPDIR, the cache root, inside the provider's directories).
 */
const NOSY_TERRAFORM = `#!/bin/sh
[ "$1" = version ] && { printf '{"terraform_version":"1.11.4"}'; exit 0; }
out="$NOSY_DUMP/$NOSY_RUN-$1"
env > "$out.env"
{ find . -type f; find "$TMPDIR" -type f; find "$TF_PLUGIN_CACHE_DIR"; } > "$out.files" 2>/dev/null
case "$1" in
  init)
    pkg="$TF_PLUGIN_CACHE_DIR/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64"
    mkdir -p "$pkg" && printf provider > "$pkg/terraform-provider-aws_v5.100.0_x5"
    ;;
  plan)
    if [ -n "$NOSY_REQUIRE_DB_PASSWORD" ] && [ -z "$TF_VAR_db_password" ]; then
      printf 'Error: No value for required variable\n\n  on main.tf line 1:\n   1: variable "db_password" {\n\nThe root module input variable "db_password" is not set, and has no default value.\n' >&2
      exit 1
    fi
    printf '%s' "$AWS_SECRET_ACCESS_KEY $TF_VAR_db_password" > "./left-by-$NOSY_RUN"
    printf '%s' "$AWS_SECRET_ACCESS_KEY" > "$TMPDIR/left-by-$NOSY_RUN"
    printf '%s' "$AWS_SECRET_ACCESS_KEY" > "$TF_PLUGIN_CACHE_DIR/left-by-$NOSY_RUN"
    mkdir -p "$TF_PLUGIN_CACHE_DIR/registry.terraform.io/hashicorp/evil-$NOSY_RUN"
    printf x > "$TF_PLUGIN_CACHE_DIR/registry.terraform.io/hashicorp/aws/5.100.0/left-by-$NOSY_RUN"
    ln -sf "$NOSY_DUMP" "$TF_PLUGIN_CACHE_DIR/registry.terraform.io/link-$NOSY_RUN"
    for arg in "$@"; do case "$arg" in -out=*) printf plan > "\${arg#-out=}";; esac; done
    exit 2
    ;;
  show) cat "$NOSY_PLAN_JSON" ;;
esac
`;

/** Values of workspace A's run, and of driftwatch's own environment, that B must never see. */
const A = {
  accessKeyId: 'ASIAWORKSPACEAAAAAAA1',
  secretAccessKey: 'workspace-a-secret-access-key',
  sessionToken: 'workspace-a-session-token',
  sensitive: 'workspace-a-db-password',
  envValue: 'workspace-a-env-value',
};
const PARENT = {
  AWS_ACCESS_KEY_ID: 'AKIASCANNERROLE00001',
  AWS_SECRET_ACCESS_KEY: 'scanner-role-secret-key',
  AWS_SESSION_TOKEN: 'scanner-role-session-token',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/scanner',
  TF_VAR_db_password: 'parent-shell-db-password',
  TF_TOKEN_app_terraform_io: 'parent-shell-registry-token',
  GITHUB_TOKEN: 'parent-shell-github-token',
  DRIFTWATCH_HASH_SALT: 'parent-hash-salt-0000001',
  FINDINGS_BUCKET: 'findings-bucket-of-the-scanner',
  AWS_ENDPOINT_URL: 'http://127.0.0.1:5999',
  AWS_ENDPOINT_URL_STS: 'http://127.0.0.1:5998',
  HTTPS_PROXY: 'http://proxy.internal:3128',
  AWS_REGION: 'eu-west-1',
};
const MUST_NOT_LEAK_TO_B = [...Object.values(A)];
const NEVER_INHERITED = [
  'TF_VAR_db_password',
  'TF_TOKEN_app_terraform_io',
  'GITHUB_TOKEN',
  'DRIFTWATCH_HASH_SALT',
  'FINDINGS_BUCKET',
] as const;

const tempDir = useTempDirs('driftwatch-run-isolation-');
let saved: NodeJS.ProcessEnv;
beforeEach(() => {
  saved = { ...process.env };
  // driftwatch's own process environment, as in a Lambda or a developer's shell.
  Object.assign(process.env, PARENT);
});
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

function workspace(id: string, extra: Partial<WorkspaceConfig> = {}): WorkspaceConfig {
  return {
    id,
    owner: 'platform',
    environment: 'prod',
    source: { dir: 'src' },
    backend: { bucket: 'tfstate-prod', key: `${id}/terraform.tfstate`, region: 'eu-west-1' },
    routes: [],
    env: {},
    varFiles: [],
    ...extra,
  };
}

function readEnv(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

async function scanAThenB() {
  const base = tempDir();
  const dump = join(base, 'dump');
  const cache = join(base, 'plugin-cache');
  const work = join(base, 'work');
  for (const dir of [dump, work, join(base, 'src'), join(base, 'bin')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(base, 'src', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  writeFileSync(join(base, 'bin', 'terraform'), NOSY_TERRAFORM, { mode: 0o755 });
  writeFileSync(join(base, 'plan.json'), JSON.stringify(plan()));
  const runner = (run: string) =>
    createTerraformRunner({
      hashSensitive,
      registryDir: base,
      terraformBinary: join(base, 'bin', 'terraform'),
      workRoot: work,
      pluginCacheDir: cache,
      // Test plumbing the parent does not have: passed as the caller's choice, not inherited.
      baseEnv: {
        ...process.env,
        NOSY_DUMP: dump,
        NOSY_RUN: run,
        NOSY_PLAN_JSON: join(base, 'plan.json'),
        DRIFTWATCH_PROVIDER_MIRROR: '',
      },
      resolveSecret: async () => A.sensitive,
      commandTimeoutMs: 30_000,
    });
  const a = await runner('a').prepare(
    workspace('workspace-a', {
      sensitiveVars: { db_password: { env: 'A_DB_PASSWORD' } },
      env: { TF_VAR_a_only: A.envValue },
    }),
    { accessKeyId: A.accessKeyId, secretAccessKey: A.secretAccessKey, sessionToken: A.sessionToken },
  );
  await a.plan();
  await a.close();
  // B has no role: it runs with the default credential chain of driftwatch's environment.
  const b = await runner('b').prepare(workspace('workspace-b'), undefined);
  await b.plan();
  await b.close();
  return { dump, cache, work };
}

describe('each Terraform run starts from an empty environment', () => {
  it('a run for B sees nothing of A: not in its environment, its files, TMPDIR or the plugin cache', async () => {
    const { dump } = await scanAThenB();
    for (const command of ['init', 'plan', 'show']) {
      const env = readFileSync(join(dump, `b-${command}.env`), 'utf8');
      const files = readFileSync(join(dump, `b-${command}.files`), 'utf8');
      for (const value of MUST_NOT_LEAK_TO_B) {
        expect(env, `${command} env`).not.toContain(value);
        expect(files, `${command} files`).not.toContain(value);
      }
      expect(files, `${command} files`).not.toContain('left-by-a');
      expect(files, `${command} files`).not.toContain('evil-a');
      expect(files, `${command} files`).not.toContain('link-a');
    }
    // The provider package A's init installed is still there for B: the cache still caches.
    expect(readFileSync(join(dump, 'b-init.files'), 'utf8')).toContain('terraform-provider-aws_v5.100.0_x5');
  });

  it('A sees its own inputs and its role, and nothing of driftwatch’s credentials or other variables', async () => {
    const { dump } = await scanAThenB();
    const env = readEnv(join(dump, 'a-plan.env'));
    expect(env).toMatchObject({
      AWS_ACCESS_KEY_ID: A.accessKeyId,
      AWS_SECRET_ACCESS_KEY: A.secretAccessKey,
      AWS_SESSION_TOKEN: A.sessionToken,
      TF_VAR_db_password: A.sensitive,
      TF_VAR_a_only: A.envValue,
    });
    // With a role assumed, no road leads to the scanner's own credentials.
    expect(env).not.toHaveProperty('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI');
    for (const name of NEVER_INHERITED.filter((name) => name !== 'TF_VAR_db_password'))
      expect(env, name).not.toHaveProperty(name);
  });

  it('B (no role) inherits the network settings and the default credential chain, never variables or tokens', async () => {
    const { dump } = await scanAThenB();
    const env = readEnv(join(dump, 'b-plan.env'));
    expect(env).toMatchObject({
      AWS_ENDPOINT_URL: PARENT.AWS_ENDPOINT_URL,
      AWS_ENDPOINT_URL_STS: PARENT.AWS_ENDPOINT_URL_STS,
      HTTPS_PROXY: PARENT.HTTPS_PROXY,
      AWS_REGION: PARENT.AWS_REGION,
      AWS_ACCESS_KEY_ID: PARENT.AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: PARENT.AWS_SECRET_ACCESS_KEY,
    });
    for (const name of NEVER_INHERITED) expect(env, name).not.toHaveProperty(name);
  });

  it('leaves no run directory behind, and only provider packages in the plugin cache', async () => {
    const { work, cache, dump } = await scanAThenB();
    expect(readdirSync(work)).toEqual([]);
    // B's init swept what A left; what B's own plan left is swept by the next init.
    expect(await sweepPluginCache(cache)).toEqual(
      expect.arrayContaining([
        'left-by-b',
        'registry.terraform.io/hashicorp/aws/5.100.0/left-by-b',
        'registry.terraform.io/hashicorp/evil-b',
        'registry.terraform.io/link-b',
      ]),
    );
    expect(await sweepPluginCache(cache)).toEqual([]);
    // A package Terraform linked in from an unpacked filesystem mirror stays; a dangling link does not.
    const mirrored = join(dirname(cache), 'mirror', 'linux_amd64');
    mkdirSync(mirrored, { recursive: true });
    writeFileSync(join(mirrored, 'terraform-provider-null_v3.2.4_x5'), 'provider');
    const nullPackage = join(cache, 'registry.terraform.io/hashicorp/null/3.2.4');
    mkdirSync(nullPackage, { recursive: true });
    symlinkSync(mirrored, join(nullPackage, 'linux_amd64'));
    symlinkSync(join(mirrored, 'gone'), join(nullPackage, 'darwin_arm64'));
    expect(await sweepPluginCache(cache)).toEqual([
      'registry.terraform.io/hashicorp/null/3.2.4/darwin_arm64',
    ]);
    expect(existsSync(join(nullPackage, 'linux_amd64', 'terraform-provider-null_v3.2.4_x5'))).toBe(true);
    expect(existsSync(join(cache, 'registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64'))).toBe(true);
    // A link is removed, never what it points to.
    expect(existsSync(join(dump, 'b-plan.env'))).toBe(true);
  });
});

describe('a variable the parent holds but a run no longer inherits', () => {
  it('fails the plan with the registry line that hands it to the workspace, never its value', async () => {
    const base = tempDir();
    mkdirSync(join(base, 'src'), { recursive: true });
    mkdirSync(join(base, 'bin'));
    mkdirSync(join(base, 'dump'));
    writeFileSync(join(base, 'src', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
    writeFileSync(join(base, 'bin', 'terraform'), NOSY_TERRAFORM, { mode: 0o755 });
    const runner = createTerraformRunner({
      hashSensitive,
      registryDir: base,
      terraformBinary: join(base, 'bin', 'terraform'),
      workRoot: base,
      pluginCacheDir: join(base, 'plugin-cache'),
      baseEnv: {
        ...process.env,
        NOSY_DUMP: join(base, 'dump'),
        NOSY_RUN: 'c',
        NOSY_REQUIRE_DB_PASSWORD: '1',
        DRIFTWATCH_PROVIDER_MIRROR: '',
      },
      commandTimeoutMs: 30_000,
    });
    const prepared = await runner.prepare(workspace('workspace-c'), undefined);
    const failure = await prepared.plan().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    await prepared.close();
    expect(failure?.message).toContain(
      "TF_VAR_db_password is set in driftwatch's environment, which Terraform runs do not inherit: give it to this workspace as sensitiveVars: { db_password: { env: TF_VAR_db_password } }",
    );
    expect(failure?.message).not.toContain(PARENT.TF_VAR_db_password);
  });
});

describe('the inheritance allowlist', () => {
  it('passes the credential chain only when no role is assumed', () => {
    expect(mayInherit('AWS_ACCESS_KEY_ID', { assumedRole: false })).toBe(true);
    expect(mayInherit('AWS_ACCESS_KEY_ID', { assumedRole: true })).toBe(false);
    expect(mayInherit('AWS_CONTAINER_CREDENTIALS_FULL_URI', { assumedRole: true })).toBe(false);
    for (const name of [
      'TF_VAR_x',
      'TF_TOKEN_example_com',
      'GIT_ASKPASS',
      'TF_LOG',
      'AWS_LAMBDA_RUNTIME_API',
    ])
      expect(mayInherit(name, { assumedRole: false }), name).toBe(false);
  });

  it('passes what the operator names in DRIFTWATCH_PASS_ENV, but never a credential beside an assumed role', () => {
    const ambient = {
      DRIFTWATCH_PASS_ENV: 'SSH_AUTH_SOCK, AWS_PROFILE',
      SSH_AUTH_SOCK: '/run/agent.sock',
      AWS_PROFILE: 'dev',
      OTHER: 'x',
    };
    expect(isolateRunEnvironment({ ...ambient }, { ambient, assumedRole: true })).toEqual({
      SSH_AUTH_SOCK: '/run/agent.sock',
    });
    expect(isolateRunEnvironment({ ...ambient }, { ambient, assumedRole: false })).toEqual({
      SSH_AUTH_SOCK: '/run/agent.sock',
      AWS_PROFILE: 'dev',
    });
  });

  it('keeps what the run itself set, even with the parent’s value, and what the workspace asked for', () => {
    const ambient = { TF_VAR_region: 'eu-west-1', TF_VAR_other: 'x', PATH: '/bin', SECRET: 's' };
    const env = { ...ambient, TF_VAR_mine: 'y', TF_DATA_DIR: '/w/.terraform-data' };
    expect(isolateRunEnvironment(env, { ambient, keep: ['TF_VAR_region'], assumedRole: true })).toEqual({
      TF_VAR_region: 'eu-west-1',
      PATH: '/bin',
      TF_VAR_mine: 'y',
      TF_DATA_DIR: '/w/.terraform-data',
    });
  });
});
