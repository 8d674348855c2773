import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  AuthorizeSecurityGroupIngressCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { IAMClient, UpdateRoleCommand } from '@aws-sdk/client-iam';
import {
  CopyObjectCommand,
  DeleteBucketCommand,
  GetObjectCommand,
  PutBucketPolicyCommand,
  PutBucketTaggingCommand,
} from '@aws-sdk/client-s3';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { SENSITIVE_MARKER } from '../../functions/core/redaction/secrets.js';
import { hclString } from '../../functions/core/remediation/hcl-render.js';
import { newCore } from '../helpers/canary-generator.js';
import {
  allFileText,
  canary,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  TEST_REGISTRY_OWNERS,
  useMoto,
  useTempDir,
  writeRegistry,
} from '../helpers/integration.js';
import { findingFor, scanInProcess } from '../helpers/local-scan.js';

/**
 * One real workspace, applied with real Terraform against moto, scanned after each step:
 * post-apply noise, a clean refresh-only plan (Terraform exits 2 anyway), then five kinds of
 * out-of-band change made through the AWS SDK. Canary secrets sit in state and plan throughout.
 */
const aws = useMoto();
const temp = useTempDir();
const SALT = 'integration-test-salt-0001';
const initialPassword = canary('db-password');
const changedPassword = canary('db-password-changed');
let staged: StagedWorkspace;
let registryPath: string;
const logLines: string[] = [];
const DB_PASSWORD_FROM_ENV = '    sensitiveVars: { db_password: { env: TF_VAR_db_password } }';

beforeAll(async () => {
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/drift'),
    backend: { bucket: STATE_BUCKET, key: 'scenario-prod/terraform.tfstate', region: REGION },
    env: { TF_VAR_db_password: initialPassword },
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
  // The secret is in the scanner's environment; the registry names it (sensitiveVars), never holds
  // it. Terraform runs inherit no TF_VAR_ of driftwatch's environment by themselves.
  process.env.TF_VAR_db_password = initialPassword;
  registryPath = writeRegistry(join(temp.path, 'driftwatch.yaml'), [
    { id: 'scenario-prod', dir: 'drift', owner: 'payments', extra: [DB_PASSWORD_FROM_ENV] },
  ]);
});

afterAll(async () => {
  await staged?.dispose();
});

async function scan(storeName: string) {
  return scanInProcess({ registryPath, dir: join(temp.path, storeName), salt: SALT, logLines });
}

describe('drift scenarios with real terraform and moto', () => {
  it('premise: the state in S3 holds the canary password in plaintext', async () => {
    const state = await aws.s3.send(
      new GetObjectCommand({ Bucket: STATE_BUCKET, Key: 'scenario-prod/terraform.tfstate' }),
    );
    expect(await state.Body?.transformToString()).toContain(initialPassword);
  });

  it('right after apply: companion and null-versus-empty noise is removed, no findings', async () => {
    const result = await scan('after-apply');
    const outcome = result.outcomes[0]!;
    expect(outcome.result?.status).toBe('ok');
    expect(result.findings).toEqual([]);
    const rules = new Set(outcome.result?.noiseRemoved.map((removal) => removal.rule));
    expect(rules).toContain('companion-attributes');
    expect(rules).toContain('null-versus-empty');
    const companions =
      outcome.result?.noiseRemoved.filter((removal) => removal.rule === 'companion-attributes') ?? [];
    const pathsOf = (address: string) =>
      companions.filter((removal) => removal.address === address).flatMap((removal) => removal.paths);
    expect(pathsOf('aws_s3_bucket.data').some((path) => path.startsWith('versioning'))).toBe(true);
    expect(pathsOf('aws_iam_role.app').some((path) => path.startsWith('inline_policy'))).toBe(true);
    // The rule of an aws_vpc_security_group_ingress_rule, as the provider lists it in its group.
    expect(pathsOf('aws_security_group.web').some((path) => path.startsWith('ingress'))).toBe(true);
  });

  it('a clean refresh-only plan yields no findings although Terraform exits 2', async () => {
    await staged.terraform(['apply', '-refresh-only', '-auto-approve', '-input=false']);
    const result = await scan('clean');
    const outcome = result.outcomes[0]!;
    expect(result.findings).toEqual([]);
    expect(outcome.result?.noiseRemoved).toEqual([]);
    expect(outcome.result?.terraformExitCodes).toEqual([2]);
  });

  it('out-of-band changes become findings with paths, severities and no secrets', async () => {
    const ec2 = new EC2Client({});
    const group = await ec2.send(new DescribeSecurityGroupsCommand({ GroupNames: ['scenario-db'] }));
    await ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: group.SecurityGroups?.[0]?.GroupId,
        IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
      }),
    );
    await aws.s3.send(
      new PutBucketTaggingCommand({
        Bucket: 'scenario-data',
        Tagging: {
          TagSet: [
            { Key: 'Owner', Value: 'payments' },
            { Key: 'Team', Value: 'treasury' },
          ],
        },
      }),
    );
    await new IAMClient({}).send(
      new UpdateRoleCommand({ RoleName: 'scenario-app', MaxSessionDuration: 7200 }),
    );
    await new SSMClient({}).send(
      new PutParameterCommand({
        Name: '/scenario/db-password',
        Value: changedPassword,
        Type: 'SecureString',
        Overwrite: true,
      }),
    );
    await aws.s3.send(new DeleteBucketCommand({ Bucket: 'scenario-logs' }));
    // Only the tag that lifecycle.ignore_changes covers.
    await aws.s3.send(
      new PutBucketTaggingCommand({
        Bucket: 'scenario-archive',
        Tagging: {
          TagSet: [
            { Key: 'Owner', Value: 'finance' },
            { Key: 'Team', Value: 'ledger' },
          ],
        },
      }),
    );

    // A rule added by hand to a group whose other rule is its own resource.
    const web = await ec2.send(new DescribeSecurityGroupsCommand({ GroupNames: ['scenario-web'] }));
    await ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: web.SecurityGroups?.[0]?.GroupId,
        IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
      }),
    );
    // A public statement put first, the rest as AWS stores a policy (one-element lists unwrapped).
    const publicRead = {
      Sid: 'PublicRead',
      Effect: 'Allow',
      Principal: '*',
      Action: 's3:GetObject',
      Resource: 'arn:aws:s3:::scenario-shared/*',
    };
    await aws.s3.send(
      new PutBucketPolicyCommand({
        Bucket: 'scenario-shared',
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            publicRead,
            {
              Sid: 'Reader',
              Effect: 'Allow',
              Principal: { AWS: 'arn:aws:iam::123456789012:role/reader' },
              Action: 's3:GetObject',
              Resource: 'arn:aws:s3:::scenario-shared/*',
            },
          ],
        }),
      }),
    );

    const storeDir = join(temp.path, 'cli-store');
    const run = await runCli(['scan', '--registry', registryPath, '--store', storeDir, '--format', 'json'], {
      env: { DRIFTWATCH_HASH_SALT: SALT },
    });
    expect(run.code).toBe(2);
    const findings = JSON.parse(run.stdout) as Finding[];

    const tag = findingFor(findings, 'aws_s3_bucket.data');
    expect(tag).toMatchObject({
      kind: 'terraform-drift',
      ruleId: 'drift.update',
      severity: 'low',
      status: 'new',
    });
    expect(tag?.drift?.changes).toEqual([
      { path: 'tags.Team', before: 'ledger', after: 'treasury', sensitive: false },
    ]);

    const role = findingFor(findings, 'aws_iam_role.app');
    expect(role?.drift?.changes).toEqual([
      { path: 'max_session_duration', before: 3600, after: 7200, sensitive: false },
    ]);
    expect(role?.severity).toBe('medium');
    // The check block on the role's session duration fails, in Terraform's words (a warning only).
    const check = findingFor(findings, 'check.app_session_duration');
    expect(check).toMatchObject({
      ruleId: 'drift.check-failed',
      severity: 'medium',
      title: 'Check check.app_session_duration fails',
      evidence: { messages: ['scenario-app allows sessions of 7200 seconds, not 3600'] },
    });

    const group2 = findingFor(findings, 'aws_security_group.db');
    expect(group2?.severity).toBe('critical');
    expect(
      group2?.drift?.changes.some(
        (change) => change.path.startsWith('ingress[') && JSON.stringify(change.after).includes('0.0.0.0/0'),
      ),
    ).toBe(true);

    const password = findingFor(findings, 'aws_ssm_parameter.db_password');
    const value = password?.drift?.changes.find((change) => change.path === 'value');
    expect(value?.sensitive).toBe(true);
    expect(value?.before).toMatch(SENSITIVE_MARKER);
    expect(value?.after).toMatch(SENSITIVE_MARKER);
    expect(value?.before).not.toBe(value?.after);

    const deleted = findingFor(findings, 'aws_s3_bucket.logs');
    expect(deleted).toMatchObject({
      ruleId: 'drift.delete',
      drift: expect.objectContaining({ action: 'delete' }),
    });
    expect(deleted?.remediation.steps.join(' ')).toMatch(/removed|state rm/);

    // One added statement, public: not edits of the statement it displaced.
    const opened = findingFor(findings, 'aws_s3_bucket_policy.shared');
    expect(opened?.severity).toBe('critical');
    expect(opened?.drift?.changes).toEqual([
      { path: 'policy.Statement[0]', before: null, after: publicRead, sensitive: false },
    ]);

    // The hand-made rule is drift; the companion's rule beside it is not.
    const handMade = findingFor(findings, 'aws_security_group.web');
    expect(handMade?.severity).toBe('critical');
    expect(handMade?.drift?.changes.map((change) => [change.path, JSON.stringify(change.after)])).toEqual([
      ['ingress[0]', expect.stringContaining('"cidr_blocks":["0.0.0.0/0"]')],
    ]);

    const ignored = findingFor(findings, 'aws_s3_bucket.archive');
    expect(ignored).toMatchObject({ ruleId: 'drift.ignored-changes', severity: 'info' });
    expect(ignored?.drift?.changes.map((change) => change.path)).toEqual(['tags.Owner']);
    expect(ignored?.detail).toContain('ignored by lifecycle.ignore_changes in main.tf');

    for (const finding of findings.filter((f) => f.kind === 'terraform-drift')) {
      expect(finding.remediation.steps.join(' ')).toMatch(/plan/);
      expect(finding.id).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(
      findings.filter((finding) => finding.status !== 'resolved' && finding.check === 'terraform'),
    ).toHaveLength(9);

    // No secret anywhere: stdout, stderr (the logs), or any object in the store.
    const everything = [run.stdout, run.stderr, allFileText(storeDir), logLines.join('\n')].join('\n');
    for (const secret of [initialPassword, changedPassword]) expect(everything).not.toContain(secret);
    expect(run.stderr).toContain('findings stored in');
  });

  it('a moved block is a refactor: the open finding follows the resource to its new address', async () => {
    // The same workspace, its configuration now renaming aws_s3_bucket.archive with a moved block.
    const moved = join(temp.path, 'moved-source');
    cpSync(join(REPO_ROOT, 'test/integration/terraform/drift'), moved, { recursive: true });
    const mainTf = join(moved, 'main.tf');
    writeFileSync(
      mainTf,
      `${readFileSync(mainTf, 'utf8').replace('resource "aws_s3_bucket" "archive" {', 'resource "aws_s3_bucket" "archive2" {')}
moved {
  from = aws_s3_bucket.archive
  to   = aws_s3_bucket.archive2
}
`,
    );
    const movedRegistry = writeRegistry(join(temp.path, 'moved.yaml'), [
      {
        id: 'scenario-prod',
        dir: relative(join(REPO_ROOT, 'test/integration/terraform'), moved),
        owner: 'payments',
        extra: [DB_PASSWORD_FROM_ENV],
      },
    ]);
    const storeDir = join(temp.path, 'cli-store');
    const run = await runCli(['scan', '--registry', movedRegistry, '--store', storeDir, '--format', 'json'], {
      env: { DRIFTWATCH_HASH_SALT: SALT },
    });
    const findings = JSON.parse(run.stdout) as Finding[];
    const archive = findingFor(findings, 'aws_s3_bucket.archive2');
    expect(archive).toMatchObject({
      ruleId: 'drift.ignored-changes',
      severity: 'info',
      status: 'ongoing',
      resource: { address: 'aws_s3_bucket.archive2', movedFrom: 'aws_s3_bucket.archive' },
    });
    expect(archive?.evidence.carriedOverFrom).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));
    // Not "old resolved, new new": nothing is left at the old address.
    expect(findingFor(findings, 'aws_s3_bucket.archive')).toBeUndefined();
    expect(findings.filter((finding) => finding.status === 'resolved')).toEqual([]);
    expect(findings.some((finding) => finding.drift?.action === 'move')).toBe(false);
  });

  // Issue 13 §4, on the findings of the out-of-band changes above (same store, same staged root: no
  // terraform init of its own). Each revert command is run as printed, through sh, in the root.
  it('remediate: adopt HCL that terraform fmt accepts, and a revert command whose plan proposes the reverse of the drift', async () => {
    const storeDir = join(temp.path, 'cli-store');
    const listed = JSON.parse(
      (await runCli(['findings', '--store', storeDir, '--format', 'json'])).stdout,
    ) as Finding[];
    const idOf = (address: string) => findingFor(listed, address)!.id.slice(0, 12);
    const outputs: string[] = [];
    const remediate = async (address: string, mode: '--adopt' | '--revert', format = 'json') => {
      const run = await runCli(
        [
          'remediate',
          idOf(address),
          mode,
          '--store',
          storeDir,
          '--registry',
          registryPath,
          '--format',
          format,
        ],
        { env: { DRIFTWATCH_HASH_SALT: SALT } },
      );
      outputs.push(run.stdout, run.stderr);
      expect(run.code, run.stderr).toBe(0);
      return format === 'json' ? (JSON.parse(run.stdout) as Record<string, unknown>) : { text: run.stdout };
    };
    const fmtAccepts = (hcl: string) =>
      spawnSync('terraform', ['fmt', '-check', '-'], { input: hcl, env: staged.env, encoding: 'utf8' })
        .status;
    const mainTf = readFileSync(join(REPO_ROOT, 'test/integration/terraform/drift/main.tf'), 'utf8').split(
      '\n',
    );
    const lineOf = (header: string) => mainTf.indexOf(header) + 1;

    const tag = await remediate('aws_s3_bucket.data', '--adopt');
    expect(tag.hcl).toContain('resource "aws_s3_bucket" "data" {');
    expect(tag.hcl).toMatch(/tags = \{\n(?:\s+#.*\n)*\s+Team = "treasury"\n/);
    expect(tag).toMatchObject({
      file: 'test/integration/terraform/drift/main.tf',
      line: lineOf('resource "aws_s3_bucket" "data" {'),
    });
    const group = await remediate('aws_security_group.db', '--adopt');
    expect(group.hcl).toMatch(/ingress \{[^}]*cidr_blocks\s+= \["0\.0\.0\.0\/0"\][^}]*from_port\s+= 22/s);
    expect(group.line).toBe(lineOf('resource "aws_security_group" "db" {'));
    const role = await remediate('aws_iam_role.app', '--adopt');
    expect(role.hcl).toMatch(/max_session_duration = 7200/);
    const deleted = await remediate('aws_s3_bucket.logs', '--adopt');
    expect(deleted.hcl).toMatch(/removed \{\n\s+from = aws_s3_bucket\.logs\n/);
    const secret = await remediate('aws_ssm_parameter.db_password', '--adopt');
    expect(secret.hcl).toMatch(
      / value += var\.(\w+)\n[\s\S]*\n\n#[\s\S]*\nvariable "\1" \{\n\s+sensitive = true\n\}/,
    );
    // The parameter's version moved with the value: the provider sets it, so it is a comment.
    expect(secret.hcl).toMatch(/# version: the live value is 2; the provider usually sets version itself/);
    for (const snippet of [tag, group, role, deleted, secret])
      expect(fmtAccepts(snippet.hcl as string)).toBe(0);

    // Terraform itself reads the rendered strings back to the same text (console: no providers, no state).
    const hostile = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
      '${var.x} %{ if true }',
      '$${x} %%{y} $ %',
      'quote " back \\ \n\r\t',
      '\u202e\u0000\u001b[2J\u200b',
      'café 😀 日本',
    ];
    const consoleDir = join(temp.path, 'console');
    mkdirSync(consoleDir, { recursive: true });
    const evaluated = spawnSync('terraform', ['console'], {
      cwd: consoleDir,
      // Not the staged root's environment: its TF_DATA_DIR belongs to that root's backend.
      env: { PATH: process.env.PATH, HOME: consoleDir, CHECKPOINT_DISABLE: '1' },
      encoding: 'utf8',
      // One expression: console without a terminal prints only the last result.
      input: `join(",", [${hostile.map((text) => `base64encode(${hclString(text)})`).join(', ')}])\n`,
    });
    expect(evaluated.status, evaluated.stderr).toBe(0);
    expect(evaluated.stdout.trim()).toBe(
      JSON.stringify(hostile.map((text) => Buffer.from(text, 'utf8').toString('base64')).join(',')),
    );

    const text = await remediate('aws_s3_bucket.data', '--revert', 'text');
    expect(text.text).toContain("terraform plan -input=false -target='aws_s3_bucket.data'");
    expect(text.text).toContain('tags.Team: "treasury" → "ledger"');
    expect(text.text).toContain('never runs terraform apply');

    // Each printed plan command, run by sh in the root, proposes the reverse of its finding.
    const planOf = async (address: string) => {
      const revert = await remediate(address, '--revert');
      expect(revert.cwd).toBe('test/integration/terraform/drift');
      const plan = await runProcess('sh', ['-c', revert.command as string], {
        cwd: staged.dir,
        env: staged.env,
        timeoutMs: 5 * 60_000,
      });
      expect(plan.exitCode, plan.stderr).toBe(0);
      const shown = join(temp.path, 'revert-plan.json');
      await runProcess('terraform', ['show', '-json', 'driftwatch-revert.tfplan'], {
        cwd: staged.dir,
        env: staged.env,
        timeoutMs: 60_000,
        stdoutFile: shown,
      });
      const json = JSON.parse(readFileSync(shown, 'utf8')) as {
        resource_changes: {
          address: string;
          change: { actions: string[]; after: Record<string, unknown> };
        }[];
      };
      rmSync(shown);
      // -target plans only the finding's resource (and what it depends on).
      expect(
        json.resource_changes
          .filter((change) => change.change.actions.join() !== 'no-op')
          .map((change) => change.address),
      ).toEqual([address]);
      return { revert, change: json.resource_changes.find((change) => change.address === address)!.change };
    };
    const tagPlan = await planOf('aws_s3_bucket.data');
    expect(tagPlan.change.actions).toEqual(['update']);
    expect(tagPlan.change.after.tags).toEqual({ Owner: 'payments', Team: 'ledger' });
    expect(tagPlan.revert.changes).toEqual([
      { path: 'tags.Team', from: 'treasury', to: 'ledger', sensitive: false },
    ]);
    const groupPlan = await planOf('aws_security_group.db');
    expect(groupPlan.change.actions).toEqual(['update']);
    expect(JSON.stringify(groupPlan.change.after.ingress)).not.toContain('0.0.0.0/0');
    expect(JSON.stringify(groupPlan.change.after.ingress)).toContain('10.0.0.0/16');
    const deletedPlan = await planOf('aws_s3_bucket.logs');
    expect(deletedPlan.change.actions).toEqual(['create']);
    expect(deletedPlan.revert.effect).toMatch(/recreates it/);

    for (const output of outputs) {
      expect(output).not.toContain(initialPassword);
      expect(output).not.toContain(changedPassword);
    }
  });
});

/**
 * Issue 11 §1 with real Terraform: the provider's region is set only by a var file, and a secret
 * variable (not declared sensitive) comes from sensitiveVars. One apply, then one scan of two
 * entries for the same state (the second reads a copy): with `varFiles` (one plan), and without it
 * (fails before refreshing).
 */
describe('a workspace whose var file sets the region', () => {
  const header = `hdr-${newCore()}`;
  let varRegion: StagedWorkspace;
  beforeAll(async () => {
    varRegion = await stageWorkspace({
      source: join(REPO_ROOT, 'test/integration/terraform/var-region'),
      backend: { bucket: STATE_BUCKET, key: 'var-region/terraform.tfstate', region: REGION },
      env: { TF_VAR_upstream_header: header },
    });
    // The parameter lives in us-east-2; the scanner's own AWS_REGION is eu-west-1.
    await varRegion.terraform(['apply', '-auto-approve', '-input=false', '-var-file=prod.tfvars']);
    // The entry without the var file reads a copy of the state: the registry refuses two entries
    // naming one state object (an entry copied with its key left as it was).
    await aws.s3.send(
      new CopyObjectCommand({
        Bucket: STATE_BUCKET,
        CopySource: `${STATE_BUCKET}/var-region/terraform.tfstate`,
        Key: 'var-region-copy/terraform.tfstate',
      }),
    );
  });
  afterAll(async () => {
    await varRegion?.dispose();
  });

  it('scans with no drift through varFiles and sensitiveVars; without the var file it fails clearly, never reporting deletions', async () => {
    // Premise: the parameter exists only in the var file's region, so a plan in the scanner's
    // default region would find it gone.
    const name = '/var-region/endpoint';
    await expect(
      new SSMClient({ region: 'us-east-2' }).send(new GetParameterCommand({ Name: name })),
    ).resolves.toBeDefined();
    await expect(
      new SSMClient({ region: REGION }).send(new GetParameterCommand({ Name: name })),
    ).rejects.toThrow();
    const dir = JSON.stringify(join(REPO_ROOT, 'test/integration/terraform/var-region'));
    const entry = (id: string, key: string, extra: string[]) => [
      `  - id: ${id}`,
      '    owner: platform',
      '    environment: prod',
      `    source: { dir: ${dir} }`,
      `    backend: { bucket: ${STATE_BUCKET}, key: ${key}, region: ${REGION} }`,
      '    sensitiveVars: { upstream_header: { env: VAR_REGION_UPSTREAM_HEADER } }',
      ...extra,
    ];
    const path = join(temp.path, 'var-region.yaml');
    writeFileSync(
      path,
      [
        ...TEST_REGISTRY_OWNERS,
        'workspaces:',
        ...entry('var-region', 'var-region/terraform.tfstate', ['    varFiles: [prod.tfvars]']),
        ...entry('var-region-no-var-file', 'var-region-copy/terraform.tfstate', []),
        '',
      ].join('\n'),
    );
    const storeDir = join(temp.path, 'var-region-store');
    const run = await runCli(['scan', '--registry', path, '--store', storeDir, '--format', 'json'], {
      env: { DRIFTWATCH_HASH_SALT: SALT, VAR_REGION_UPSTREAM_HEADER: header },
    });
    // Backend checks report on the harness's state bucket: not what is under test here.
    const findings = (JSON.parse(run.stdout) as Finding[]).filter((finding) => finding.check === 'terraform');

    // With the var file: the plan refreshed the parameter in us-east-2 and found it as applied.
    expect(findings.filter((finding) => finding.workspace === 'var-region')).toEqual([]);
    // Without it: one scan-failed finding that names the missing variable, and no deletions.
    const failed = findings.filter((finding) => finding.workspace === 'var-region-no-var-file');
    expect(failed).toEqual([expect.objectContaining({ kind: 'scan-failed' })]);
    expect(failed[0]!.detail).toContain('No value for required variable');
    expect(failed[0]!.detail).toMatch(/variable "region" is not set/);
    expect(failed[0]!.detail).toContain('give it in the registry entry: varFiles, vars');
    expect(findings.some((finding) => finding.ruleId === 'drift.delete')).toBe(false);
    expect(run.code).toBe(1);

    // The secret reached Terraform (the plan needs it) but no output, log line or stored object.
    const everything = [run.stdout, run.stderr, allFileText(storeDir)].join('\n');
    expect(everything).not.toContain(header);
  });
});
