import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  AuthorizeSecurityGroupIngressCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { IAMClient, UpdateRoleCommand } from '@aws-sdk/client-iam';
import { DeleteBucketCommand, GetObjectCommand, PutBucketTaggingCommand } from '@aws-sdk/client-s3';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRegistryFile } from '../../cli/context.js';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { runLocalScan } from '../../cli/local-runner.js';
import { createLogger } from '../../functions/adapters/logger.js';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { createSensitiveHasher, SENSITIVE_MARKER } from '../../functions/core/redaction/secrets.js';
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
  const storeDir = join(temp.path, storeName);
  mkdirSync(storeDir, { recursive: true });
  return runLocalScan({
    loaded: loadRegistryFile(registryPath),
    store: createFsObjectStore(storeDir),
    hashSensitive: createSensitiveHasher(SALT),
    logger: createLogger({ format: 'json', write: (line) => logLines.push(line) }),
    // Drift is under test here; the harness's state bucket has backend findings of its own.
    backendChecks: false,
  });
}

function findingFor(findings: Finding[], address: string): Finding | undefined {
  return findings.find(
    (finding) => finding.resource && 'address' in finding.resource && finding.resource.address === address,
  );
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
    ).toHaveLength(6);

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
});

/**
 * Issue 11 §1 with real Terraform: the provider's region is set only by a var file, and a secret
 * variable (not declared sensitive) comes from sensitiveVars. One apply, then one scan of two
 * entries for the same state: with `varFiles` (one plan), and without it (fails before refreshing).
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
    const entry = (id: string, extra: string[]) => [
      `  - id: ${id}`,
      '    owner: platform',
      '    environment: prod',
      `    source: { dir: ${dir} }`,
      `    backend: { bucket: ${STATE_BUCKET}, key: var-region/terraform.tfstate, region: ${REGION} }`,
      '    sensitiveVars: { upstream_header: { env: VAR_REGION_UPSTREAM_HEADER } }',
      ...extra,
    ];
    const path = join(temp.path, 'var-region.yaml');
    writeFileSync(
      path,
      [
        ...TEST_REGISTRY_OWNERS,
        'workspaces:',
        ...entry('var-region', ['    varFiles: [prod.tfvars]']),
        ...entry('var-region-no-var-file', []),
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
