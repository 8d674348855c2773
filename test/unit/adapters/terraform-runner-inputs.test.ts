import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NoSuchBucket, NoSuchKey } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  createTerraformRunner,
  missingWorkspaceHint,
  type TerraformRunnerOptions,
} from '../../../functions/adapters/terraform/runner.js';
import type { SecretReference, WorkspaceConfig } from '../../../functions/core/registry/model.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import { scanWorkspace } from '../../../functions/core/scan/scan-workspace.js';
import { newCore } from '../../helpers/canary-generator.js';
import {
  entry,
  hashSensitive,
  plan,
  policies,
  queueValues,
  stateResource,
} from '../../helpers/plan-builders.js';
import { useTempDirs } from '../../helpers/processes.js';
import { fakePorts } from '../core/scan/scan-fakes.js';

/**
 * A stand-in for terraform that writes down, per command, everything Terraform would see of the
 * registry: its arguments, its working directory (and the files there), the binary that ran, and
 * the environment variables a workspace can influence. `version -json` answers FAKE_TF_VERSION so
 * that a pinned terraformVersion can pick a `terraform-X.Y.Z` copy of this script.
 */
const FAKE_TERRAFORM = `#!/bin/sh
if [ "$1" = version ]; then printf '{"terraform_version":"%s"}' "\${FAKE_TF_VERSION:-1.11.4}"; exit 0; fi
rec="$FAKE_TF_RECORD"
{
  echo "COMMAND $1"
  echo "BINARY $(basename "$0")"
  echo "CWD $(pwd)"
  echo "FILES $(ls | tr '\\n' ' ')"
  for arg in "$@"; do echo "ARG $arg"; done
  env | grep -E '^(TF_VAR_|AWS_REGION=|AWS_DEFAULT_REGION=|AWS_ACCESS_KEY_ID=|TF_WORKSPACE=|HTTPS_PROXY=|GIT_CONFIG_|GIT_SSH_COMMAND=|TF_TOKEN_)' | sort | sed 's/^/ENV /'
  echo END
} >> "$rec"
case "$1" in
  plan)
    if [ -n "$FAKE_TF_PLAN_UNSET" ]; then
      printf 'Error: No value for required variable\\n\\n  on main.tf line 1:\\n   1: variable "region" {\\n\\nThe root module input variable "region" is not set, and has no default value.\\n' >&2
      exit 1
    fi
    if [ -n "$FAKE_TF_PLAN_FAILS" ]; then
      printf 'Error: Invalid value for variable\\n\\n  on main.tf line 3:\\n   3: the value %s is not accepted\\n' "$TF_VAR_db_password" >&2
      exit 1
    fi
    for arg in "$@"; do case "$arg" in -out=*) out="\${arg#-out=}";; esac; done
    printf plan > "$out"
    exit 2
    ;;
  show) cat "$FAKE_TF_PLAN_JSON" ;;
esac
`;

interface Invocation {
  command: string;
  binary: string;
  cwd: string;
  files: string;
  args: string[];
  env: Record<string, string>;
}

function readRecord(path: string): Invocation[] {
  const invocations: Invocation[] = [];
  let current: Invocation | undefined;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [tag, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (tag === 'COMMAND') current = { command: value, binary: '', cwd: '', files: '', args: [], env: {} };
    else if (!current) continue;
    else if (tag === 'BINARY') current.binary = value;
    else if (tag === 'CWD') current.cwd = value;
    else if (tag === 'FILES') current.files = value.trim();
    else if (tag === 'ARG') current.args.push(value);
    else if (tag === 'ENV') {
      const at = value.indexOf('=');
      current.env[value.slice(0, at)] = value.slice(at + 1);
    } else if (tag === 'END') invocations.push(current);
  }
  return invocations;
}

const tempDir = useTempDirs('driftwatch-runner-inputs-');

interface Setup {
  base: string;
  runner: ReturnType<typeof createTerraformRunner>;
  record: string;
  planJson: string;
}

function setUp(
  options: { runner?: Partial<TerraformRunnerOptions>; env?: Record<string, string> } = {},
): Setup {
  const base = tempDir();
  const bin = join(base, 'bin');
  mkdirSync(join(base, 'work'));
  mkdirSync(bin);
  for (const name of ['terraform', 'terraform-1.9.8', 'tofu'])
    writeFileSync(join(bin, name), FAKE_TERRAFORM, { mode: 0o755 });
  // Two sources that differ, each with a Terraform root inside `stack/` and var files.
  for (const source of ['infra/payments', 'infra/other']) {
    mkdirSync(join(base, source, 'stack', 'env'), { recursive: true });
    mkdirSync(join(base, source, 'common'), { recursive: true });
    writeFileSync(join(base, source, 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
    writeFileSync(join(base, source, 'stack', 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
    writeFileSync(join(base, source, 'stack', 'env', 'prod.tfvars'), 'region = "eu-west-1"\n');
    writeFileSync(join(base, source, 'common', 'common.tfvars'), 'team = "payments"\n');
  }
  writeFileSync(join(base, 'infra/other', 'other.tf'), '\n');
  const record = join(base, 'record');
  const planJson = join(base, 'plan.json');
  writeFileSync(planJson, JSON.stringify(plan()));
  const runner = createTerraformRunner({
    hashSensitive,
    registryDir: base,
    terraformBinary: 'terraform',
    workRoot: join(base, 'work'),
    pluginCacheDir: join(base, 'plugin-cache'),
    baseEnv: {
      PATH: `${bin}:${process.env.PATH}`,
      FAKE_TF_RECORD: record,
      FAKE_TF_PLAN_JSON: planJson,
      DRIFTWATCH_PROVIDER_MIRROR: '',
      ...options.env,
    },
    commandTimeoutMs: 30_000,
    ...options.runner,
  });
  return { base, runner, record, planJson };
}

/** A workspace as the registry parser makes it, from the base entry plus extra YAML lines. */
function workspaceFrom(...extra: string[]): WorkspaceConfig {
  const registry = parseRegistry(
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
      'workspaces:',
      '  - id: payments-prod',
      '    owner: platform',
      '    environment: prod',
      ...(extra.some((line) => line.trimStart().startsWith('source:'))
        ? []
        : ['    source: { dir: infra/payments }']),
      ...(extra.some((line) => line.trimStart().startsWith('backend:'))
        ? []
        : ['    backend: { bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1 }']),
      ...extra.map((line) => `    ${line}`),
      '',
    ].join('\n'),
  );
  return registry.workspaces[0]!;
}

/** What Terraform saw for one workspace: init, then two plans (as with the deletion guard), then show. */
async function seen(setup: Setup, workspace: WorkspaceConfig): Promise<Invocation[]> {
  writeFileSync(setup.record, '');
  const prepared = await setup.runner.prepare(workspace, {
    accessKeyId: 'AKIAFAKEFAKEFAKE0001',
    secretAccessKey: 'fake-secret-access-key-0001',
  });
  try {
    await prepared.plan();
    await prepared.plan();
  } finally {
    await prepared.close();
  }
  return readRecord(setup.record);
}

const plans = (invocations: Invocation[]) => invocations.filter((call) => call.command === 'plan');
const init = (invocations: Invocation[]) => invocations.find((call) => call.command === 'init')!;
/** Arguments without the per-run plan file, which differs by design. */
const stableArgs = (call: Invocation) => call.args.filter((arg) => !arg.startsWith('-out='));

/**
 * The audit: every documented field of a workspace (docs/configuration.md, the reference table) either
 * changes what Terraform sees, proved below field by field against the base entry, or is used
 * elsewhere, named here with its use. A field added to the docs without either fails this test.
 */
const REACHES_TERRAFORM = [
  'source',
  'backend.bucket',
  'backend.key',
  'backend.region',
  'backend.workspace',
  'backend.workspaceKeyPrefix',
  'backend.lockTable',
  'roleArn',
  'externalId',
  'terraformVersion',
  'engine',
  'varFiles',
  'vars',
  'sensitiveVars',
  'env',
  'allowProxyEnv',
  'moduleSources',
  'registries',
];
const USED_ELSEWHERE: Record<string, string> = {
  id: 'finding scope, S3 keys (and the working directory name)',
  owner: 'routing of findings',
  environment: 'severity (policies.severity.production)',
  routes: 'owner overrides per address or tag (routing)',
  locks: 'stale-lock thresholds (ObserveLocks/ConfirmLocks)',
  'backend.requireKms': 'backend policy rule backend.kms',
  runner:
    'where the deployed scan runs: LoadRegistry → the ScanTerraform runner Choice (test/unit/core/scan/runner-plan.test.ts, test/infra/long-plans-and-reporting.test.ts)',
  timeout:
    'the time budget: the deadline of every Terraform command (test/unit/adapters/terraform-runner-deadline.test.ts) and the CodeBuild build timeout',
};

function documentedWorkspaceFields(): string[] {
  const readme = readFileSync(join(import.meta.dirname, '../../../docs/configuration.md'), 'utf8');
  const fields = new Set<string>();
  // The reference lists one key per item: "- `workspaces[].backend.bucket`, `.key`, `.region` (…): …".
  for (const row of readme.split('\n')) {
    const key = /^- ((?:`[^`]+`(?:, )?)+)/.exec(row)?.[1];
    if (!key?.includes('workspaces[]')) continue;
    // "`workspaces[].backend.bucket`, `.key`, `.region`" → backend.bucket, backend.key, backend.region
    const names = [...key.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    let prefix = '';
    for (const name of names) {
      if (name.startsWith('workspaces[].')) {
        const field = name.slice('workspaces[].'.length).replace(/\[\]$/, '').replace(/\.\*$/, '');
        prefix = field.includes('.') ? field.slice(0, field.lastIndexOf('.') + 1) : '';
        fields.add(field.replace(/\.staleAfter.*$/, ''));
      } else if (name.startsWith('.')) fields.add(`${prefix}${name.slice(1)}`);
    }
  }
  return [...fields];
}

describe('registry fields → what Terraform sees', () => {
  it('every documented workspace field is audited: it reaches Terraform (tested below) or has a named use elsewhere', () => {
    const documented = documentedWorkspaceFields();
    expect(documented).toEqual(
      expect.arrayContaining(['varFiles', 'vars', 'sensitiveVars', 'backend.bucket']),
    );
    const unaccounted = documented.filter(
      (field) => !REACHES_TERRAFORM.includes(field) && USED_ELSEWHERE[field] === undefined,
    );
    expect(unaccounted).toEqual([]);
  });

  it('varFiles: each is a -var-file of every plan (the confirming one too), relative to the source, so also outside the Terraform root', async () => {
    const setup = setUp();
    const base = await seen(setup, workspaceFrom('source: { dir: infra/payments, path: stack }'));
    const withFiles = await seen(
      setup,
      workspaceFrom(
        'source: { dir: infra/payments, path: stack }',
        'varFiles: [stack/env/prod.tfvars, common/common.tfvars]',
      ),
    );
    for (const call of plans(base)) expect(call.args.some((arg) => arg.startsWith('-var-file'))).toBe(false);
    expect(plans(withFiles)).toHaveLength(2);
    for (const call of plans(withFiles)) {
      // Paths are relative to the plan's working directory (the Terraform root), in registry order.
      expect(call.args.filter((arg) => arg.startsWith('-var-file'))).toEqual([
        '-var-file=env/prod.tfvars',
        '-var-file=../common/common.tfvars',
      ]);
    }
    // init takes no variables; only plan does.
    expect(init(withFiles).args.some((arg) => arg.startsWith('-var'))).toBe(false);
  });

  it("the deletion guard's confirming plan gets the var files and sensitive variables of the first", async () => {
    const setup = setUp({ runner: { resolveSecret: async () => 'guarded-secret-value' } });
    // Every managed resource reported deleted: the guard plans again before reporting anything.
    writeFileSync(
      setup.planJson,
      JSON.stringify(
        plan({
          drift: [entry('aws_sqs_queue.q', { actions: ['delete'], before: queueValues(), after: null })],
          prior: [stateResource('aws_sqs_queue.q', queueValues())],
        }),
      ),
    );
    writeFileSync(setup.record, '');
    const workspace = workspaceFrom(
      'varFiles: [main.tf]',
      'sensitiveVars: { db_password: { env: DB_PASSWORD } }',
    );
    const ports = { ...fakePorts({ plans: [] }).ports, prepare: setup.runner.prepare };
    const result = await scanWorkspace(workspace, policies(), ports, {
      now: new Date('2026-03-01T02:00:00Z'),
    });
    expect(result.plansRun).toBe(2);
    const [first, confirming] = plans(readRecord(setup.record));
    expect(stableArgs(confirming!)).toEqual(stableArgs(first!));
    expect(confirming!.args).toContain('-var-file=main.tf');
    expect(confirming!.env.TF_VAR_db_password).toBe('guarded-secret-value');
  });

  it('vars: each is a -var of every plan, after the var files so that it wins, in -var form (lists and maps as JSON)', async () => {
    const setup = setUp();
    const seenWith = await seen(
      setup,
      workspaceFrom(
        'varFiles: [main.tf]',
        'vars: { region: eu-west-1, replicas: 3, enabled: true, zones: [a, b] }',
      ),
    );
    for (const call of plans(seenWith))
      expect(call.args.filter((arg) => arg.startsWith('-var'))).toEqual([
        '-var-file=main.tf',
        '-var=region=eu-west-1',
        '-var=replicas=3',
        '-var=enabled=true',
        '-var=zones=["a","b"]',
      ]);
  });

  it('sensitiveVars: TF_VAR_<name> in the environment of every plan, never on any command line', async () => {
    const core = newCore();
    const resolved: SecretReference[] = [];
    const setup = setUp({
      runner: {
        resolveSecret: async (reference) => {
          resolved.push(reference);
          return `pw-${core}`;
        },
      },
    });
    const invocations = await seen(
      setup,
      workspaceFrom(
        'sensitiveVars: { db_password: { secretsManager: payments/db }, api_key: { env: API_KEY } }',
      ),
    );
    expect(resolved).toEqual([{ secretsManager: 'payments/db' }, { env: 'API_KEY' }]);
    expect(plans(invocations)).toHaveLength(2);
    for (const call of plans(invocations)) {
      expect(call.env.TF_VAR_db_password).toBe(`pw-${core}`);
      expect(call.env.TF_VAR_api_key).toBe(`pw-${core}`);
    }
    for (const call of invocations) expect(call.args.join(' ')).not.toContain(core);
  });

  it('sensitiveVars locally: the value is read from the named environment variable by the default resolver', async () => {
    const { createSecretValueResolver } = await import('../../../functions/adapters/secret-reference.js');
    const core = newCore();
    const setup = setUp({
      runner: {
        resolveSecret: createSecretValueResolver({
          secretsManager: () => {
            throw new Error('no Secrets Manager locally');
          },
          env: { API_KEY: `key-${core}` },
        }),
      },
    });
    const invocations = await seen(setup, workspaceFrom('sensitiveVars: { api_key: { env: API_KEY } }'));
    for (const call of plans(invocations)) expect(call.env.TF_VAR_api_key).toBe(`key-${core}`);
  });

  it('source: dir decides what is checked out, path which directory Terraform runs in', async () => {
    const setup = setUp();
    const payments = await seen(setup, workspaceFrom());
    const other = await seen(setup, workspaceFrom('source: { dir: infra/other }'));
    const nested = await seen(setup, workspaceFrom('source: { dir: infra/payments, path: stack }'));
    expect(init(payments).files).not.toContain('other.tf');
    expect(init(other).files).toContain('other.tf');
    expect(init(payments).cwd.endsWith('/source')).toBe(true);
    for (const call of nested) expect(call.cwd.endsWith('/source/stack')).toBe(true);
  });

  it('backend: bucket, key, region, workspaceKeyPrefix and lockTable are init -backend-config values; workspace is TF_WORKSPACE', async () => {
    const setup = setUp();
    const invocations = await seen(
      setup,
      workspaceFrom(
        'backend: { bucket: tfstate-other, key: a/b.tfstate, region: us-east-2, workspace: blue, workspaceKeyPrefix: envs, lockTable: tf-locks }',
      ),
    );
    expect(init(invocations).args.filter((arg) => arg.startsWith('-backend-config'))).toEqual([
      '-backend-config=bucket=tfstate-other',
      '-backend-config=key=a/b.tfstate',
      '-backend-config=region=us-east-2',
      '-backend-config=workspace_key_prefix=envs',
      '-backend-config=dynamodb_table=tf-locks',
    ]);
    for (const call of invocations) expect(call.env.TF_WORKSPACE).toBe('blue');
    const base = await seen(setup, workspaceFrom());
    for (const call of base) expect(call.env.TF_WORKSPACE).toBeUndefined();
  });

  it('roleArn/externalId: the credentials of the assumed role (aws-workspace.test.ts proves both reach AssumeRole) are the environment Terraform uses', async () => {
    const setup = setUp({ env: { AWS_ACCESS_KEY_ID: 'AKIAPARENTPARENT0000' } });
    const invocations = await seen(setup, workspaceFrom('roleArn: arn:aws:iam::111111111111:role/read'));
    for (const call of invocations) expect(call.env.AWS_ACCESS_KEY_ID).toBe('AKIAFAKEFAKEFAKE0001');
  });

  it('terraformVersion: the pinned terraform-X.Y.Z on PATH runs every command', async () => {
    const setup = setUp({ env: { FAKE_TF_VERSION: '1.9.8' } });
    const pinned = await seen(setup, workspaceFrom('terraformVersion: 1.9.8'));
    for (const call of pinned) expect(call.binary).toBe('terraform-1.9.8');
    const unpinned = await seen(setup, workspaceFrom());
    for (const call of unpinned) expect(call.binary).toBe('terraform');
  });

  it('engine: opentofu runs tofu (on PATH) for every command (versions: terraform-runner-versions.test.ts)', async () => {
    const setup = setUp();
    const tofu = await seen(setup, workspaceFrom('engine: opentofu'));
    expect(tofu.length).toBeGreaterThan(0);
    for (const call of tofu) expect(call.binary).toBe('tofu');
    for (const call of await seen(setup, workspaceFrom())) expect(call.binary).toBe('terraform');
  });

  it('env and allowProxyEnv: allowed variables reach every command; a proxy only with allowProxyEnv', async () => {
    const setup = setUp();
    const invocations = await seen(
      setup,
      workspaceFrom(
        'env: { TF_VAR_team: payments, AWS_REGION: us-west-2, HTTPS_PROXY: "http://proxy:3128" }',
        'allowProxyEnv: true',
      ),
    );
    for (const call of invocations) {
      expect(call.env.TF_VAR_team).toBe('payments');
      expect(call.env.AWS_REGION).toBe('us-west-2');
      expect(call.env.HTTPS_PROXY).toBe('http://proxy:3128');
    }
    expect(() => workspaceFrom('env: { HTTPS_PROXY: "http://proxy:3128" }')).toThrow(/allowProxyEnv/);
  });
});

describe('private module credentials → what terraform init sees', () => {
  const KNOWN_HOSTS =
    'git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';
  const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n-----END OPENSSH PRIVATE KEY-----';

  it('moduleSources and registries: git credential helper, GIT_SSH_COMMAND and TF_TOKEN_<host> reach init only, and their files are gone before the first plan', async () => {
    const core = newCore();
    const setup = setUp({
      runner: {
        resolveSecret: async (reference) =>
          'env' in reference && reference.env === 'DEPLOY_KEY' ? KEY : `tok-${core}`,
      },
    });
    const invocations = await seen(
      setup,
      workspaceFrom(
        'moduleSources:',
        '  - { host: git.example.com, https: { token: { env: GIT_TOKEN } } }',
        `  - { host: git.example.com:2222, ssh: { privateKey: { env: DEPLOY_KEY }, knownHosts: "${KNOWN_HOSTS.replace('git.example.com', '[git.example.com]:2222')}" } }`,
        'registries: [{ host: tfe.example.com, token: { secretsManager: tfe/token } }]',
      ),
    );
    const initEnv = init(invocations).env;
    expect(initEnv.TF_TOKEN_tfe_example_com).toBe(`tok-${core}`);
    expect(initEnv.GIT_CONFIG_KEY_1).toBe('credential.https://git.example.com.helper');
    expect(initEnv.GIT_CONFIG_VALUE_1).toMatch(
      /^!f\(\) \{ test "\$1" = get && cat '.+\/git-0\.credential'; \}; f$/,
    );
    expect(initEnv.GIT_SSH_COMMAND).toMatch(/^ssh -F '.+\/ssh_config'$/);
    // No secret in any variable but the token Terraform can only read from one, nor on any command line.
    for (const [name, value] of Object.entries(initEnv))
      if (name !== 'TF_TOKEN_tfe_example_com') expect(value, name).not.toContain(core);
    for (const call of invocations) expect(call.args.join(' ')).not.toContain(core);
    // Plans run providers, never module downloads: they get none of it.
    for (const call of plans(invocations))
      expect(Object.keys(call.env).filter((name) => /^(GIT_|TF_TOKEN_)/.test(name))).toEqual([]);
    // Nothing of it is set in this process's own environment (which the next run would inherit).
    expect(
      Object.keys(process.env).filter((name) => /^(GIT_CONFIG|GIT_SSH_COMMAND|TF_TOKEN_)/.test(name)),
    ).toEqual([]);
    expect(Object.values(process.env).some((value) => value?.includes(core))).toBe(false);
    const credentialDir = /'(.+)\/ssh_config'/.exec(initEnv.GIT_SSH_COMMAND!)![1]!;
    expect(existsSync(credentialDir)).toBe(false);
    // A workspace without them (the next run) inherits nothing of the previous one.
    const next = await seen(setup, workspaceFrom());
    expect(Object.keys(init(next).env).filter((name) => /^(GIT_|TF_TOKEN_)/.test(name))).toEqual([]);
  });

  it('a module credential that cannot be read fails the scan before init, naming the host', async () => {
    const setup = setUp({
      runner: {
        resolveSecret: async () => {
          throw new Error('cannot read secret tfe/token from Secrets Manager: AccessDeniedException');
        },
      },
    });
    const error = await setup.runner
      .prepare(
        workspaceFrom('registries: [{ host: tfe.example.com, token: { secretsManager: tfe/token } }]'),
        undefined,
      )
      .catch((e) => e);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.reason).toBe(
      'module registry tfe.example.com (token): cannot read secret tfe/token from Secrets Manager: AccessDeniedException',
    );
    expect(readFileSync(setup.record, { flag: 'a+', encoding: 'utf8' })).not.toContain('COMMAND init');
  });
});

describe('var files that cannot be used fail the scan clearly, before any plan', () => {
  it('a var file that does not exist names the file and where it is looked for', async () => {
    const setup = setUp();
    const error = await setup.runner
      .prepare(workspaceFrom('varFiles: [env/missing.tfvars]'), undefined)
      .catch((e) => e);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.stage).toBe('source');
    expect(error.reason).toMatch(/var file env\/missing.tfvars is not a file in the workspace source/);
  });

  it('a var file that is a symlink out of the source is refused (a bundle may carry one)', async () => {
    const setup = setUp();
    writeFileSync(join(setup.base, 'outside.tfvars'), 'region = "us-east-1"\n');
    symlinkSync(join(setup.base, 'outside.tfvars'), join(setup.base, 'infra/payments/escape.tfvars'));
    const error = await setup.runner
      .prepare(workspaceFrom('varFiles: [escape.tfvars]'), undefined)
      .catch((e) => e);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.reason).toBe('var file escape.tfvars leads outside the workspace source');
  });
});

describe('a root Terraform would run outside the copy, or against another state, fails before init', () => {
  const initRan = (setup: Setup) =>
    readFileSync(setup.record, { flag: 'a+', encoding: 'utf8' }).includes('COMMAND init');

  it.each([
    [
      'declares no backend',
      'main.tf',
      'terraform {}\n',
      /the root declares no backend, so Terraform would plan against an empty local state and find nothing, not s3:\/\/tfstate-prod\/payments\/terraform\.tfstate: add terraform \{ backend "s3" \{\} \}/,
    ],
    [
      'declares backend "remote"',
      'main.tf',
      'terraform {\n  backend "remote" {\n    organization = "acme"\n  }\n}\n',
      /main\.tf declares backend "remote", so Terraform would read the state that backend keeps, not s3:\/\/tfstate-prod\/payments\/terraform\.tfstate: driftwatch scans roots whose state an S3 backend keeps/,
    ],
    [
      'has a cloud block',
      'main.tf',
      'terraform {\n  cloud {\n    organization = "acme"\n  }\n}\n',
      /main\.tf has a cloud block, so Terraform would read the state HCP Terraform keeps/,
    ],
    [
      'declares backend "local" in JSON',
      'main.tf.json',
      '{"terraform": {"backend": {"local": {}}}}',
      /main\.tf\.json declares backend "local"/,
    ],
    [
      'has an S3 backend and a cloud block',
      'main.tf',
      'terraform {\n  backend "s3" {}\n  cloud {\n    organization = "acme"\n  }\n}\n',
      /the root has 2 backend or cloud blocks \(in main\.tf\), which Terraform refuses: keep the one backend "s3" block that keeps s3:\/\/tfstate-prod\/payments\/terraform\.tfstate/,
    ],
  ])('a root that %s', async (_case, name, text, expected) => {
    const setup = setUp();
    writeFileSync(join(setup.base, 'infra/payments/main.tf'), '');
    writeFileSync(join(setup.base, 'infra/payments', name), text);
    const error = await setup.runner.prepare(workspaceFrom(), undefined).catch((e) => e);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.stage).toBe('source');
    expect(error.reason).toMatch(expected);
    expect(initRan(setup)).toBe(false);
  });

  it('a root whose S3 backend is in a .tf.json file, or that does not parse (init says why), is initialised', async () => {
    for (const [name, text] of [
      ['main.tf.json', '{"terraform": [{"backend": [{"s3": [{}]}]}]}'],
      ['main.tf', 'terraform {\n  backend "s3" {\n'],
    ] as const) {
      const setup = setUp();
      writeFileSync(join(setup.base, 'infra/payments/main.tf'), '');
      writeFileSync(join(setup.base, 'infra/payments', name), text);
      const prepared = await setup.runner.prepare(workspaceFrom(), undefined);
      await prepared.close();
      expect(initRan(setup)).toBe(true);
    }
  });

  it("source.dir that is a file, missing or still init's placeholder: the cause and the fix, without the temporary directory", async () => {
    const cases: Array<[dir: string, reason: (base: string) => string]> = [
      [
        'a-file',
        (base) => `source.dir ${join(base, 'a-file')} is a file: give the directory of the Terraform root`,
      ],
      [
        'infra/network',
        (base) =>
          `source.dir ${join(base, 'infra/network')} does not exist: set source.dir to the directory of the Terraform root that writes this state, relative to the registry file (or check out the repository there)`,
      ],
      // A root of a real `todo` service is a directory like any other (it used to read as a placeholder).
      [
        'infra/todo-api',
        (base) =>
          `source.dir ${join(base, 'infra/todo-api')} does not exist: set source.dir to the directory of the Terraform root that writes this state, relative to the registry file (or check out the repository there)`,
      ],
      [
        'TODO-path-to-the-terraform-root',
        () =>
          'source.dir is still a placeholder (TODO-path-to-the-terraform-root): set it to the directory of the Terraform root that writes this state, relative to the registry file (driftwatch routes --check lists the placeholders left)',
      ],
    ];
    for (const [dir, reason] of cases) {
      const setup = setUp();
      writeFileSync(join(setup.base, 'a-file'), 'not a root\n');
      const error = await setup.runner
        .prepare(workspaceFrom(`source: { dir: ${dir} }`), undefined)
        .catch((e) => e);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect({ dir, stage: error.stage, reason: error.reason }).toEqual({
        dir,
        stage: 'source',
        reason: reason(setup.base),
      });
    }
  });

  it('a path that is a file, missing or without Terraform files: the cause and the fix, without the temporary directory', async () => {
    const cases: Array<[path: string, reason: string]> = [
      [
        'main.tf',
        'path main.tf is a file in source.dir infra/payments: give the directory of the Terraform root as path',
      ],
      [
        'network',
        'path network does not exist in source.dir infra/payments: set path to the directory of the Terraform root, relative to source.dir or the bundle root',
      ],
      [
        'empty',
        'no Terraform files in path empty of source.dir infra/payments: point source.dir and path at the Terraform root (the directory of its .tf files)',
      ],
    ];
    for (const [path, reason] of cases) {
      const setup = setUp();
      mkdirSync(join(setup.base, 'infra/payments/empty'));
      const error = await setup.runner
        .prepare(workspaceFrom(`source: { dir: infra/payments, path: ${path} }`), undefined)
        .catch((e) => e);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect({ path, stage: error.stage, reason: error.reason }).toEqual({ path, stage: 'source', reason });
      expect(initRan(setup)).toBe(false);
    }
  });

  it('a source bundle that is missing, in a missing bucket or no .tar.gz: its URI, the cause and the fix', async () => {
    const uri = 's3://bundles/payments.tgz';
    const fix = 'upload the workspace source there as a .tar.gz, or correct source.s3 in the registry';
    const cases: Array<[name: string, download: (destination: string) => Promise<void>, reason: RegExp]> = [
      [
        'NoSuchKey',
        async () => {
          throw new NoSuchKey({
            message: 'The specified key does not exist.',
            $metadata: { httpStatusCode: 404 },
          });
        },
        new RegExp(`^source bundle ${uri} does not exist: ${fix}$`),
      ],
      [
        'NoSuchBucket',
        async () => {
          throw new NoSuchBucket({
            message: 'The specified bucket does not exist',
            $metadata: { httpStatusCode: 404 },
          });
        },
        new RegExp(`^the bucket of source bundle ${uri} does not exist: ${fix}$`),
      ],
      [
        'not a tar.gz',
        async (destination) => writeFileSync(destination, 'not an archive\n'),
        new RegExp(
          `^source bundle ${uri} is not a whole \\.tar\\.gz archive \\((TAR_BAD_ARCHIVE|Z_DATA_ERROR): .*\\): upload the workspace source as one`,
        ),
      ],
    ];
    for (const [name, download, reason] of cases) {
      const setup = setUp({ runner: { downloadBundle: (_uri, destination) => download(destination) } });
      const error = await setup.runner
        .prepare(workspaceFrom(`source: { s3: "${uri}" }`), undefined)
        .catch((e) => e);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect({ name, stage: error.stage, reason: error.reason }).toEqual({
        name,
        stage: 'source',
        reason: expect.stringMatching(reason),
      });
    }
  });

  it('source.dir that is a symlink is copied: Terraform runs (and writes its lock file) in the copy, not the checkout', async () => {
    const setup = setUp();
    symlinkSync(join(setup.base, 'infra/payments'), join(setup.base, 'linked'));
    const [init] = await seen(setup, workspaceFrom('source: { dir: linked }'));
    // `pwd` prints the physical directory: the checkout's own, had the copy been a link to it.
    expect(init!.cwd.startsWith(`${realpathSync(join(setup.base, 'work'))}/`)).toBe(true);
  });

  it('a path that is a symlink out of the source is refused (Terraform would write into its target)', async () => {
    const setup = setUp();
    symlinkSync(join(setup.base, 'infra/other/stack'), join(setup.base, 'infra/payments/linked-stack'));
    const error = await setup.runner
      .prepare(workspaceFrom('source: { dir: infra/payments, path: linked-stack }'), undefined)
      .catch((e) => e);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.reason).toMatch(/^path linked-stack leads outside the source/);
    expect(initRan(setup)).toBe(false);
  });
});

describe('missingWorkspaceHint', () => {
  it("points a workspace Terraform cannot select at the registry's backend.workspace", () => {
    // Verbatim Terraform 1.11 init, TF_WORKSPACE naming a workspace with no state in the bucket.
    const summary = 'Error: Currently selected workspace "stagnig" does not exist';
    expect(missingWorkspaceHint(summary)).toBe(
      `${summary} (backend.workspace in the registry: no state of Terraform workspace "stagnig" under this key and workspaceKeyPrefix; \`terraform workspace list\` in the root lists those there are)`,
    );
    expect(
      missingWorkspaceHint('Error: Failed to get existing workspaces: S3 bucket does not exist.'),
    ).toBeUndefined();
  });
});

describe('sensitive variable values never leave the run', () => {
  it('a secret that cannot be read fails the scan naming the variable and the reference', async () => {
    const setup = setUp({
      runner: {
        resolveSecret: async () => {
          throw new Error('the environment variable DB_PASSWORD is not set');
        },
      },
    });
    const error = await setup.runner
      .prepare(workspaceFrom('sensitiveVars: { db_password: { env: DB_PASSWORD } }'), undefined)
      .catch((e) => e);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.reason).toBe(
      'sensitive variable db_password: the environment variable DB_PASSWORD is not set',
    );
  });

  it('without a secret resolver, a workspace with sensitiveVars fails instead of planning without them', async () => {
    const setup = setUp();
    const error = await setup.runner
      .prepare(workspaceFrom('sensitiveVars: { db_password: { env: DB_PASSWORD } }'), undefined)
      .catch((e) => e);
    expect(error?.reason).toMatch(/sensitive variable db_password/);
    expect(readFileSync(setup.record, { flag: 'a+', encoding: 'utf8' })).not.toContain('COMMAND plan');
  });

  it('a plan without a required variable says which registry keys give it', async () => {
    const setup = setUp({ env: { FAKE_TF_PLAN_UNSET: '1' } });
    const prepared = await setup.runner.prepare(workspaceFrom(), undefined);
    const error = await prepared.plan().catch((e) => e);
    await prepared.close();
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.reason).toContain('No value for required variable');
    expect(error.reason).toContain('give it in the registry entry: varFiles, vars, or sensitiveVars');
  });

  it('Terraform diagnostics that echo the value are redacted', async () => {
    const core = newCore();
    const setup = setUp({
      runner: { resolveSecret: async () => `pw-${core}` },
      env: { FAKE_TF_PLAN_FAILS: '1' },
    });
    const prepared = await setup.runner.prepare(
      workspaceFrom('sensitiveVars: { db_password: { env: DB_PASSWORD } }'),
      undefined,
    );
    const error = await prepared.plan().catch((e) => e);
    await prepared.close();
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error.reason).toContain('Invalid value for variable');
    expect(error.reason).not.toContain(core);
  });

  it('a value that shows in the plan (variable not declared sensitive) is hashed in every finding', async () => {
    const core = newCore();
    const secret = `pw-${core}`;
    const setup = setUp({ runner: { resolveSecret: async () => secret } });
    // The secret reached a tag of a queue: the configuration did not mark the variable sensitive.
    writeFileSync(
      setup.planJson,
      JSON.stringify(
        plan({
          drift: [
            entry('aws_sqs_queue.q', {
              before: queueValues({ tags: { note: 'old' } }),
              after: queueValues({ tags: { note: secret } }),
            }),
          ],
          prior: [stateResource('aws_sqs_queue.q', queueValues({ tags: { note: secret } }))],
          variables: { upstream: { value: secret } },
        }),
      ),
    );
    const workspace = workspaceFrom('sensitiveVars: { upstream: { env: UPSTREAM } }');
    const ports = { ...fakePorts({ plans: [] }).ports, prepare: setup.runner.prepare };
    const result = await scanWorkspace(workspace, policies(), ports, {
      now: new Date('2026-03-01T02:00:00Z'),
    });
    expect(result.status).toBe('ok');
    expect(result.findings.length).toBeGreaterThan(0);
    expect(JSON.stringify(result)).not.toContain(core);
  });
});
