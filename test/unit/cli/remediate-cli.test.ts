import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { FindingDraft } from '../../../functions/core/findings/model.js';
import { buildDigests } from '../../../functions/core/notify/digest.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../functions/core/registry/model.js';
import { evaluatePlan } from '../../../functions/core/terraform/evaluate.js';
import { runCli } from '../../helpers/integration.js';
import {
  bucketValues,
  context,
  entry,
  hashSensitive,
  plan,
  ssmMask,
  ssmParameterValues,
} from '../../helpers/plan-builders.js';

/**
 * `driftwatch remediate` as a user runs it, against a store of findings the real evaluator made from
 * a plan with planted secrets (a SecureString parameter, a database password), a hostile tag, a
 * backend finding and a cluster finding.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-remediate-cli-'));
const storeDir = join(dir, 'store');
const configDir = join(dir, 'infra');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PLANTED = ['canary-ssm-Q7v1-before', 'canary-ssm-Q7v1-after', 'canary-db-K2p9-live'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE_VALUE = 'fin\u001b[2Jance\u202e$(id)';

const ids: Record<string, string> = {};

beforeAll(async () => {
  const raw = plan({
    drift: [
      entry('aws_ssm_parameter.db_password', {
        before: ssmParameterValues(PLANTED[0]!),
        after: ssmParameterValues(PLANTED[1]!),
        beforeSensitive: ssmMask,
        afterSensitive: ssmMask,
      }),
      entry('aws_s3_bucket.data', {
        before: bucketValues({ tags: { Owner: 'payments' }, tags_all: { Owner: 'payments' } }),
        after: bucketValues({
          tags: { Owner: HOSTILE_VALUE, Team: 'ops' },
          tags_all: { Owner: HOSTILE_VALUE, Team: 'ops' },
        }),
      }),
      entry('module.db.aws_sqs_queue.jobs', {
        module: 'module.db',
        before: { name: 'jobs', visibility_timeout_seconds: 30 },
        after: { name: 'jobs', visibility_timeout_seconds: 90 },
      }),
      entry('module.vpc.aws_vpc.main', {
        module: 'module.vpc',
        before: { cidr_block: '10.0.0.0/16', enable_dns_hostnames: true },
        after: { cidr_block: '10.0.0.0/16', enable_dns_hostnames: false },
      }),
      entry('aws_db_instance.main', {
        before: { identifier: 'main', password: 'configured-one', allocated_storage: 20 },
        after: { identifier: 'main', password: PLANTED[2], allocated_storage: 50 },
        beforeSensitive: { password: true },
        afterSensitive: { password: true },
      }),
    ],
  });
  const drafts = evaluatePlan(raw, { ...context(), hashSensitive }).findings;
  const backend: FindingDraft = {
    kind: 'backend-policy',
    ruleId: 'backend.versioning',
    severity: 'high',
    workspace: 'payments-prod',
    resource: { bucket: 'tfstate' },
    title: 'State bucket tfstate has no versioning',
    detail: 'Without versioning a corrupted state cannot be restored.',
    evidence: {},
    remediation: {
      summary: 'Enable versioning on tfstate.',
      // Multi-line, as the backend rules write their Terraform snippets.
      steps: [
        'Turn on versioning in the bucket’s stack.',
        'Terraform:\n  resource "aws_s3_bucket_versioning" "state" {\n    bucket = "tfstate"\n  }',
      ],
    },
  };
  const store = createFindingsStore(createFsObjectStore(storeDir));
  const now = new Date();
  await store.recordWorkspace(
    { scanId: 'scan-1', startedAt: now, now },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    drafts,
  );
  await store.recordWorkspace(
    { scanId: 'scan-1', startedAt: now, now },
    { workspace: 's3.tfstate', check: 'backend', outcome: 'ok' },
    [{ ...backend, workspace: 's3.tfstate' }],
  );
  for (const finding of await store.openFindings()) {
    const resource = finding.resource;
    ids[resource && 'address' in resource ? resource.address : finding.kind] = finding.id.slice(0, 12);
  }
  mkdirSync(join(configDir, 'modules', 'db'), { recursive: true });
  writeFileSync(
    join(configDir, 'main.tf'),
    '# the data bucket\n\nresource "aws_s3_bucket" "data" {\n  bucket = "payments-data"\n}\n',
  );
  writeFileSync(
    join(configDir, 'modules.tf'),
    'module "db" {\n  source = "./modules/db"\n}\n\nmodule "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "5.0.0"\n}\n',
  );
  writeFileSync(
    join(configDir, 'modules', 'db', 'queue.tf'),
    'variable "x" {}\n\nresource "aws_sqs_queue" "jobs" {\n  name = "jobs"\n}\n',
  );
  writeFileSync(
    join(dir, 'driftwatch.yaml'),
    [
      'version: 1',
      'owners:',
      '  fallback: payments',
      '  teams: [{ id: payments, destinations: [{ type: email, address: p@example.com }] }]',
      'workspaces:',
      '  - id: payments-prod',
      '    owner: payments',
      '    environment: prod',
      '    source: { dir: infra }',
      '    backend: { bucket: tfstate, key: payments/terraform.tfstate, region: eu-west-1 }',
      '    vars: { region: eu-west-1, note: "it\'s" }',
      '',
    ].join('\n'),
  );
});

const remediate = (args: string[], cwd?: string) =>
  runCli(['remediate', ...args, '--store', storeDir], cwd ? { cwd } : {});

describe('driftwatch remediate', () => {
  it('premise: the evaluator made the findings this test needs', () => {
    expect(Object.keys(ids).sort()).toEqual([
      'aws_db_instance.main',
      'aws_s3_bucket.data',
      'aws_ssm_parameter.db_password',
      'backend-policy',
      'module.db.aws_sqs_queue.jobs',
      'module.vpc.aws_vpc.main',
    ]);
  });

  it('the remediate command a digest prints runs as printed; its output names the adopt command', async () => {
    const store = createFindingsStore(createFsObjectStore(storeDir));
    const [digest] = buildDigests({
      scanId: 'scan-1',
      now: new Date(),
      findings: await store.openFindings(),
      fallbackOwner: 'payments',
      settings: DEFAULT_NOTIFICATION_SETTINGS,
      store: storeDir,
    });
    const commands = (digest!.document?.items ?? []).flatMap((item) => item.commands);
    const remediations = commands.filter((command) => command.startsWith('driftwatch remediate '));
    // Every Terraform drift finding gets one; the backend finding, which neither mode fits, none.
    expect(remediations).toHaveLength(5);
    for (const command of remediations) {
      const [, , id, ...rest] = command.split(' ');
      expect(rest).toEqual(['--revert', '--store', storeDir]);
      const run = await runCli(['remediate', id!, ...rest]);
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain(
        `To adopt the live values in the configuration instead: driftwatch remediate ${id} --adopt --store ${storeDir}\n`,
      );
    }
  });

  it('without --revert or --adopt: exit 64, naming both commands for the id as given', async () => {
    const id = ids['aws_s3_bucket.data']!;
    const run = await remediate([id]);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain(`driftwatch remediate ${id} --revert --store ${storeDir}`);
    expect(run.stderr).toContain(`driftwatch remediate ${id} --adopt --store ${storeDir}`);
  });

  it('--revert prints the targeted plan, run in the registry’s source dir with its vars and backend', async () => {
    const run = await remediate([ids['aws_s3_bucket.data']!, '--revert'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Run through the team's pipeline, in infra (from registry ");
    expect(run.stdout).toContain(
      "  terraform plan -input=false -target='aws_s3_bucket.data' -var region=eu-west-1 -var 'note=it'\\''s' -out=driftwatch-revert.tfplan\n",
    );
    expect(run.stdout).toContain(
      '  terraform init -input=false -backend-config=bucket=tfstate -backend-config=key=payments/terraform.tfstate -backend-config=region=eu-west-1\n',
    );
    expect(run.stdout).toContain('tags.Owner: "fin\\u001b[2Jance\\u202e$(id)" → "payments"');
    // A tag added live is removed by the revert.
    expect(run.stdout).toContain('tags.Team: "ops" → (absent)');
    expect(run.stdout).toContain('driftwatch never runs terraform apply');
    expect(run.stdout).not.toMatch(ACTIVE);
  });

  it('--adopt prints HCL of the live values and the file and line of the resource block', async () => {
    const run = await remediate([ids['aws_s3_bucket.data']!, '--adopt', '--config', configDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Edit .*infra\/main\.tf:3:/);
    expect(run.stdout).toContain('    Owner = "fin\\u001b[2Jance\\u202e$(id)"\n');
    expect(run.stdout).not.toMatch(ACTIVE);
    const json = JSON.parse(
      (await remediate([ids['aws_s3_bucket.data']!, '--adopt', '--config', configDir, '--format', 'json']))
        .stdout,
    );
    expect(json).toMatchObject({ mode: 'adopt', system: 'terraform', line: 3, variables: [] });
    expect(json.file).toMatch(/infra\/main\.tf$/);
    expect(json.hcl).toContain('resource "aws_s3_bucket" "data" {');
  });

  it('follows a module call with a local source to the block; a registry module is out of reach', async () => {
    const local = await remediate([
      ids['module.db.aws_sqs_queue.jobs']!,
      '--adopt',
      '--config',
      configDir,
      '--format',
      'json',
    ]);
    expect(local.code, local.stderr).toBe(0);
    const json = JSON.parse(local.stdout);
    expect(json.file).toMatch(/infra\/modules\/db\/queue\.tf$/);
    expect(json.line).toBe(3);
    expect(json.hcl).toContain('visibility_timeout_seconds = 90');
    expect(json.hcl).toContain("set the value through the module's inputs instead");
    const registry = await remediate([ids['module.vpc.aws_vpc.main']!, '--adopt', '--config', configDir]);
    expect(registry.stdout).toContain(
      'module.vpc comes from terraform-aws-modules/vpc/aws, not a local directory',
    );
  });

  // The block is at main.tf:3 in each; what is around it is what real roots have.
  const BLOCK = '# the data bucket\n\nresource "aws_s3_bucket" "data" {\n  bucket = "payments-data"\n}\n';
  it.each<[string, Record<string, string>, (root: string) => void]>([
    [
      'an override file that sorts first amends the block (Terraform reads override files last)',
      {
        'main.tf': BLOCK,
        'a_override.tf': 'resource "aws_s3_bucket" "data" {\n  force_destroy = true\n}\n',
        'override.tf': '\nresource "aws_s3_bucket" "data" {\n  force_destroy = true\n}\n',
      },
      () => {},
    ],
    [
      'an editor lock file, a backup and a directory named like .tf files',
      { 'main.tf': BLOCK, 'main.tf~': 'resource "aws_s3_bucket" "data" {\n' },
      (root) => {
        symlinkSync('someone@host.4242:1700000000', join(root, '.#main.tf'));
        mkdirSync(join(root, 'a.tf'));
      },
    ],
  ])('--adopt finds the block when %s', async (_name, files, extra) => {
    const root = mkdtempSync(join(dir, 'root-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
    extra(root);
    const run = await remediate([
      ids['aws_s3_bucket.data']!,
      '--adopt',
      '--config',
      root,
      '--format',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ file: expect.stringMatching(/\/main\.tf$/), line: 3 });
  });

  it('says when the resource block is not in the configuration', async () => {
    const run = await remediate([ids['aws_db_instance.main']!, '--adopt', '--config', configDir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'The resource block was not located: no resource "aws_db_instance" "main" block',
    );
  });

  it('canary: planted secrets of sensitive changes appear in no output, text or json, either mode', async () => {
    const outputs: string[] = [];
    for (const address of ['aws_ssm_parameter.db_password', 'aws_db_instance.main'])
      for (const mode of ['--revert', '--adopt'])
        for (const format of ['text', 'json']) {
          const run = await remediate([ids[address]!, mode, '--format', format]);
          expect(run.code, run.stderr).toBe(0);
          outputs.push(run.stdout, run.stderr);
        }
    const everything = outputs.join('\n');
    for (const secret of PLANTED) expect(everything).not.toContain(secret);
    expect(everything).toContain('value = var.db_password_value');
    expect(everything).toMatch(/\n {2}password += var\.main_password\n/);
    expect(everything).toMatch(/\n {2}allocated_storage += 50\n/);
    expect(everything).toContain('variable "main_password" {\n  sensitive = true\n}');
  });

  it('a backend finding: its own steps, a one-line reason and exit 64', async () => {
    const run = await remediate([ids['backend-policy']!, '--revert']);
    expect(run.code).toBe(64);
    expect(run.stdout).toContain('Turn on versioning in the bucket’s stack.');
    // A snippet keeps its lines, indented under its step, so it can be copied as it is.
    expect(run.stdout).toContain(
      '- Terraform:\n    resource "aws_s3_bucket_versioning" "state" {\n      bucket = "tfstate"\n    }\n',
    );
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^driftwatch: --revert applies to terraform-drift, pending-change and cluster-drift findings, not to backend-policy/,
      ),
    ]);
    const json = JSON.parse(
      (await remediate([ids['backend-policy']!, '--adopt', '--format', 'json'])).stdout,
    );
    expect(json).toMatchObject({
      mode: 'adopt',
      steps: [
        expect.stringContaining('Turn on versioning'),
        expect.stringContaining('\n    bucket = "tfstate"'),
      ],
    });
  });

  it('usage errors are one line with exit 64; an unknown id is exit 1', async () => {
    const neither = await remediate([ids['aws_s3_bucket.data']!]);
    expect(neither.code).toBe(64);
    expect(neither.stderr).toContain('give --revert');
    const both = await remediate([ids['aws_s3_bucket.data']!, '--revert', '--adopt']);
    expect(both.code).toBe(64);
    expect((await remediate(['xyz!', '--revert'])).code).toBe(64);
    expect((await remediate([ids['aws_s3_bucket.data']!, '--adopt', '--format', 'yaml'])).code).toBe(64);
    const unknown = await remediate(['abcdef012345', '--revert']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no finding abcdef012345');
    const missing = await remediate([ids['aws_s3_bucket.data']!, '--adopt', '--config', join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such directory');
    for (const run of [neither, both, unknown, missing]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a driftwatch.yaml here that does not load is a warning: the plan is printed without it', async () => {
    const elsewhere = join(dir, 'broken');
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, 'driftwatch.yaml'), 'version: 7\n');
    const run = await remediate([ids['aws_s3_bucket.data']!, '--revert'], elsewhere);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^driftwatch: driftwatch\.yaml here is not a valid registry \(.*\): going on without it/,
    );
    expect(run.stdout).toContain(
      "terraform plan -input=false -target='aws_s3_bucket.data' -out=driftwatch-revert.tfplan",
    );
    expect(run.stdout).toContain('The root module directory is not known');
  });

  it('prints the plan but exits 1 when part of the store could not be read, as findings show does', async () => {
    // Another scope's current document, cut short: the id was judged among fewer findings than stored.
    const partial = join(dir, 'partial-store');
    cpSync(storeDir, partial, { recursive: true });
    writeFileSync(join(partial, 'current', 'other-prod.json'), '{"workspace":');
    for (const command of [
      ['remediate', ids['aws_s3_bucket.data']!, '--revert'],
      ['findings', 'show', ids['aws_s3_bucket.data']!],
    ]) {
      const run = await runCli([...command, '--store', partial]);
      expect(run.code, command.join(' ')).toBe(1);
      expect(run.stdout, command.join(' ')).toContain('aws_s3_bucket.data');
      expect(run.stderr).toMatch(
        /^driftwatch: current\/other-prod\.json in the findings store is not a valid /,
      );
    }
  });

  it('--help says it never applies', async () => {
    const help = await runCli(['remediate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('never applies');
    expect(help.stdout).toContain('does not run terraform apply, kubectl apply or argocd app sync');
  });
});
