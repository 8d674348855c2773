import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ResourceNotFoundException, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetPublicAccessBlockCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkBackendAction } from '../../../cli/commands/check-backend-action.js';
import { readFailureLines } from '../../../cli/commands/check-backend-shared.js';
import { locksAction } from '../../../cli/commands/locks-action.js';
import { CliError, EXIT_USAGE } from '../../../cli/usage.js';
import { tlsOnlyPolicy } from '../../../functions/core/backend/rules/tls-only.js';
import type { FindingDraft } from '../../../functions/core/findings/model.js';
import { s3ServiceError } from '../../helpers/backend.js';
import { REPO_ROOT } from '../../helpers/integration.js';
import { type NodeRun, runNode } from '../../helpers/processes.js';

/**
 * `driftwatch check-backend` and `driftwatch locks` on what a hostile sweep found
 * (notes/sweep/backends D8-D17): option values that cannot be right are usage errors (exit 64)
 * before anything is read or recorded; a --key that names no object is an error, never "No
 * findings."; the findings store is checked (and named) before the state bucket is read; a read that
 * fails after the preflight is one `driftwatch:` line with the cause and the fix; nothing from a key,
 * a prefix or a registry reaches the terminal with its escape sequences.
 * The command lines run through the built CLI; the runs that read a bucket run in process against
 * aws-sdk-client-mock.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-backend-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nothing of this machine's AWS settings; an endpoint that refuses, should anything be sent. */
const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: dir,
  DRIFTWATCH_HASH_SALT: 'backend-cli-test-salt-0001',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_REGION: 'eu-west-1',
  AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
};

function cli(args: string[]): Promise<NodeRun> {
  return runNode([join(REPO_ROOT, 'bin', 'driftwatch.js'), ...args], { cwd: dir, env: ENV });
}

/** Exit 64, exactly this one line, and nothing read or recorded (no store was created). */
function expectUsageLine(run: NodeRun, line: string): void {
  expect(run.code, run.stderr).toBe(64);
  expect(run.stderr).toBe(`driftwatch: ${line}\n`);
  expect(run.stdout).toBe('');
}

describe('option values that cannot be right: exit 64, one line, before anything is read or recorded', () => {
  it('--key: empty, an s3:// URL, a leading / (D9)', async () => {
    const store = join(dir, 'key-store');
    const base = ['check-backend', '--bucket', 'tfstate', '--store', store];
    const [empty, url, otherBucket, slash] = await Promise.all([
      cli([...base, '--key', '']),
      cli([...base, '--key', 's3://tfstate/app/terraform.tfstate']),
      cli([...base, '--key', 's3://other/app/terraform.tfstate']),
      cli([...base, '--key', '/app/terraform.tfstate']),
    ]);
    const hint = '--key takes the object key inside the bucket, e.g. env/app/terraform.tfstate';
    expectUsageLine(empty, `${hint}, not an empty value`);
    expectUsageLine(url, `${hint}, not an s3:// URL: pass --key app/terraform.tfstate`);
    expectUsageLine(
      otherBucket,
      `${hint}, not an s3:// URL: pass --key app/terraform.tfstate and --bucket other`,
    );
    expectUsageLine(
      slash,
      `${hint}, not a path: S3 keys have no leading '/' (pass --key app/terraform.tfstate)`,
    );
    expect(existsSync(store)).toBe(false);
  });

  it('--confirm-after beyond 1d and --stale-after beyond 365d (D10): no RangeError, no multi-year wait', async () => {
    const base = ['locks', '--bucket', 'tfstate', '--store', join(dir, 'duration-store')];
    const [overflow, years, twoDays, staleYear] = await Promise.all([
      cli([...base, '--confirm-after', '99999999d']),
      cli([...base, '--confirm-after', '3000000d']),
      cli([...base, '--confirm-after', '1d1s']),
      cli([...base, '--stale-after', '366d']),
    ]);
    const confirm = (value: string) =>
      `option '--confirm-after <duration>' argument '${value}' is invalid. must be at most 1d (locks waits this long between its two looks; the default is 10m) (the command's --help lists its arguments and options)`;
    expectUsageLine(overflow, confirm('99999999d'));
    expectUsageLine(years, confirm('3000000d'));
    expectUsageLine(twoDays, confirm('1d1s'));
    expectUsageLine(
      staleYear,
      "option '--stale-after <duration>' argument '366d' is invalid. must be at most 365d (a lock older than that is stale under any policy) (the command's --help lists its arguments and options)",
    );
    expect(existsSync(join(dir, 'duration-store'))).toBe(false);
  });

  it('a malformed --region (D11) and --lock-table (D12), for both commands', async () => {
    const store = join(dir, 'region-store');
    const [region, emptyRegion, locksRegion, table, emptyTable, shortTable] = await Promise.all([
      cli(['check-backend', '--bucket', 'tfstate', '--region', 'not a region', '--store', store]),
      cli(['check-backend', '--bucket', 'tfstate', '--region', '', '--store', store]),
      cli(['locks', '--bucket', 'tfstate', '--region', 'eu_west_1', '--store', store]),
      cli(['check-backend', '--bucket', 'tfstate', '--lock-table', 'bad name!', '--store', store]),
      cli(['locks', '--bucket', 'tfstate', '--lock-table', '', '--store', store]),
      cli(['check-backend', '--bucket', 'tfstate', '--lock-table', 'tf', '--store', store]),
    ]);
    const regionLine = (value: string) =>
      `--region '${value}' is not an AWS region such as eu-west-1 or us-gov-west-1: pass the bucket's region, or leave --region out for the registry's or the SDK's (AWS_REGION)`;
    expectUsageLine(region, regionLine('not a region'));
    expectUsageLine(emptyRegion, regionLine(''));
    expectUsageLine(locksRegion, regionLine('eu_west_1'));
    const tableLine = (value: string) =>
      `--lock-table '${value}' is not a DynamoDB table name: use 3-255 characters from letters, digits, '_', '-' and '.' (the dynamodb_table of the backend block, e.g. terraform-locks)`;
    expectUsageLine(table, tableLine('bad name!'));
    expectUsageLine(emptyTable, tableLine(''));
    expectUsageLine(shortTable, tableLine('tf'));
    expect(existsSync(store)).toBe(false);
  });

  it('a mistyped required option is an unknown option with "did you mean", for every command (D15)', async () => {
    const [bucket, until, missing] = await Promise.all([
      cli(['check-backend', '--buckte', 'tfstate']),
      cli(['suppress', 'abcd1234', '--reason', 'known', '--by', 'me', '--untl', '2030-01-01']),
      cli(['locks', '--prefix', 'app/']),
    ]);
    const help = "(the command's --help lists its arguments and options)";
    expectUsageLine(bucket, `unknown option '--buckte' (Did you mean --bucket?) ${help}`);
    expectUsageLine(until, `unknown option '--untl' (Did you mean --until?) ${help}`);
    // Nothing unknown: the required option is still reported as missing.
    expectUsageLine(missing, `required option '--bucket <bucket>' not specified ${help}`);
  });

  it('--store naming a file: "the findings store … is a file", before the bucket is read (D17)', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a store\n');
    const [check, locks] = await Promise.all([
      cli(['check-backend', '--bucket', 'tfstate', '--store', file]),
      cli(['locks', '--bucket', 'tfstate', '--store', join(file, 'below')]),
    ]);
    // The endpoint refuses every connection: a read of the bucket would have said so first.
    expect(check.code).toBe(1);
    expect(check.stderr).toBe(
      `driftwatch: the findings store ${file} is a file, not a directory: pass --store with a directory or s3://bucket\n`,
    );
    expect(locks.code).toBe(1);
    expect(locks.stderr).toBe(
      `driftwatch: the findings store ${join(file, 'below')} is below a file, not in a directory: pass --store with a directory or s3://bucket\n`,
    );
  });
});

// In process, against aws-sdk-client-mock: every S3 and DynamoDB client answers from here.
const s3 = mockClient(S3Client);
const dynamodb = mockClient(DynamoDBClient);
afterAll(() => {
  s3.restore();
  dynamodb.restore();
});

const BUCKET = 'tfstate';
const STATE_BODY = JSON.stringify({ version: 4, serial: 3, lineage: 'abcd-1', resources: [] });
const body = (text: string) => ({ Body: { transformToString: async () => text } as never });

/** A bucket every bucket rule passes, holding these objects. */
function compliantBucket(keys: string[]): void {
  const lastModified = new Date(Date.now() - 3_600_000);
  s3.on(ListObjectsV2Command).resolves({
    Contents: keys.map((Key) => ({ Key, Size: 100, ETag: `"${Key.length}"`, LastModified: lastModified })),
    IsTruncated: false,
  });
  s3.on(GetBucketVersioningCommand).resolves({ Status: 'Enabled' });
  s3.on(GetBucketEncryptionCommand).resolves({
    ServerSideEncryptionConfiguration: {
      Rules: [
        {
          ApplyServerSideEncryptionByDefault: {
            SSEAlgorithm: 'aws:kms',
            KMSMasterKeyID: 'arn:aws:kms:eu-west-1:111111111111:key/1',
          },
        },
      ],
    },
  });
  s3.on(GetPublicAccessBlockCommand).resolves({
    PublicAccessBlockConfiguration: {
      BlockPublicAcls: true,
      IgnorePublicAcls: true,
      BlockPublicPolicy: true,
      RestrictPublicBuckets: true,
    },
  });
  s3.on(GetBucketPolicyCommand).resolves({
    Policy: JSON.stringify(tlsOnlyPolicy(BUCKET)),
  });
  s3.on(GetBucketOwnershipControlsCommand).resolves({
    OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
  });
  s3.on(GetBucketPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: false } });
  s3.on(GetBucketAclCommand).resolves({ Grants: [] });
  s3.on(GetBucketLifecycleConfigurationCommand).resolves({
    Rules: [
      {
        ID: 'nc',
        Status: 'Enabled',
        Filter: { Prefix: '' },
        NoncurrentVersionExpiration: { NoncurrentDays: 90 },
      },
    ],
  });
  s3.on(ListObjectVersionsCommand).callsFake((input: { Prefix: string }) => ({
    Versions: [{ Key: input.Prefix, VersionId: 'v1', IsLatest: true, LastModified: lastModified }],
  }));
  s3.on(GetObjectCommand).resolves(body(STATE_BODY));
}

interface ActionRun {
  code: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs an action with stdout and stderr captured, and the exit code it set. */
async function inProcess(action: (run: (code: number) => void) => Promise<void>): Promise<ActionRun> {
  const result: ActionRun = { code: undefined, stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      result[stream] += chunk.toString();
      return true;
    });
  const spies = [capture('stdout'), capture('stderr')];
  try {
    await action((code) => {
      result.code = code;
    });
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return result;
}

let stores = 0;
const base = () => ({
  bucket: BUCKET,
  key: [] as string[],
  lockTable: [] as string[],
  format: 'table' as const,
  store: join(dir, `store-${++stores}`),
});
const scanFailedDraft = (): FindingDraft => ({
  kind: 'scan-failed',
  ruleId: 'scan.backend-failed',
  severity: 'high',
  workspace: 's3.tfstate',
  resource: { bucket: BUCKET },
  title: 'Backend check failed: AccessDenied on s3:GetObjectVersion',
  detail: 'detail',
  evidence: {},
  remediation: { summary: 'summary', steps: [] },
});
const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('driftwatch:'));

describe('check-backend and locks against a bucket (in process, aws-sdk-client-mock)', () => {
  beforeEach(() => {
    s3.reset();
    dynamodb.reset();
    vi.stubEnv('AWS_REGION', 'eu-west-1');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('a --key that names no object: exit 1 with one line, never "No findings." (D9)', async () => {
    compliantBucket(['app/terraform.tfstate']);
    const typo = await inProcess((run) =>
      checkBackendAction(run, { ...base(), key: ['app/terraform.tfstat'] }),
    );
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(errorLines(typo.stderr)).toEqual([
      `driftwatch: no state object at s3://${BUCKET}/app/terraform.tfstat: --key names no object in the bucket (a typo, or a state never applied); list the keys with aws s3 ls s3://${BUCKET}/app/ and pass one of them`,
    ]);
    // The same bucket with the key spelled right: nothing to report.
    const right = await inProcess((run) =>
      checkBackendAction(run, { ...base(), key: ['app/terraform.tfstate'] }),
    );
    expect(right.code).toBe(0);
    expect(right.stdout).toBe('No findings.\n');
    expect(errorLines(right.stderr)).toEqual([]);
    // JSON is for programs: the (empty) list is printed, the exit code still says it failed.
    const json = await inProcess((run) =>
      checkBackendAction(run, { ...base(), key: ['app/terraform.tfstat'], format: 'json' }),
    );
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('a read that fails after the preflight is one line with the object, the cause and the fix (D8)', async () => {
    compliantBucket(['secret/terraform.tfstate', 'open/terraform.tfstate']);
    s3.on(GetObjectCommand, { Key: 'secret/terraform.tfstate' }).rejects(s3ServiceError('AccessDenied', 403));
    dynamodb
      .on(ScanCommand)
      .rejects(new ResourceNotFoundException({ $metadata: {}, message: 'Requested resource not found' }));
    const run = await inProcess((set) =>
      checkBackendAction(set, {
        ...base(),
        key: ['secret/terraform.tfstate', 'open/terraform.tfstate'],
        lockTable: ['tf-locks'],
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/scan\.backend-failed/);
    expect(errorLines(run.stderr)).toEqual([
      `driftwatch: the DynamoDB lock table tf-locks does not exist (ResourceNotFoundException): check the name (--lock-table, or backend.lockTable in the registry) and the region (--region, or backend.region); aws dynamodb list-tables lists the tables there`,
      // The bucket encrypts with SSE-KMS: S3's AccessDenied may be the key's, so the key is named.
      `driftwatch: s3://${BUCKET}/secret/terraform.tfstate not read: AccessDenied on s3:GetObjectVersion of an SSE-KMS object: s3:GetObjectVersion or kms:Decrypt on its key. Allow kms:Decrypt on arn:aws:kms:eu-west-1:111111111111:key/1 to the role driftwatch reads with (its IAM policy, and the key policy for a key in another account), and s3:GetObjectVersion on arn:aws:s3:::${BUCKET}/secret/terraform.tfstate (S3 answers a missing kms:Decrypt with the same AccessDenied as a missing s3:GetObject).`,
    ]);
  });

  it('locks: a lock listed but not readable is counted and said, with its line (D8)', async () => {
    compliantBucket(['app/terraform.tfstate', 'app/terraform.tfstate.tflock']);
    s3.on(GetObjectCommand, { Key: 'app/terraform.tfstate.tflock' }).rejects(
      s3ServiceError('AccessDenied', 403),
    );
    dynamodb
      .on(ScanCommand)
      .rejects(new ResourceNotFoundException({ $metadata: {}, message: 'Requested resource not found' }));
    const run = await inProcess((set) =>
      locksAction(set, { ...base(), lockTable: ['tf-locks'], confirmAfter: 1000 }),
    );
    expect(run.code).toBe(1);
    expect(errorLines(run.stderr)).toEqual([
      `driftwatch: the DynamoDB lock table tf-locks does not exist (ResourceNotFoundException): check the name (--lock-table, or backend.lockTable in the registry) and the region (--region, or backend.region); aws dynamodb list-tables lists the tables there`,
      `driftwatch: s3://${BUCKET}/app/terraform.tfstate.tflock not read: AccessDenied on s3:GetObject. Allow s3:GetObject on arn:aws:s3:::${BUCKET}/app/terraform.tfstate.tflock to the role driftwatch reads with (the registry workspace's roleArn, or the CLI's credentials), or remove the Deny that blocks it (bucket policy, SCP, permissions boundary); for an object encrypted with SSE-KMS, S3 gives the same AccessDenied when the role may not use the key: allow kms:Decrypt on that key too (\`aws s3api head-object\` by an admin shows SSEKMSKeyId).`,
    ]);
    expect(run.stderr).toMatch(
      new RegExp(
        `^locks: 1 lock\\(s\\) in s3://${BUCKET}/, 1 of them could not be read \\(AccessDenied\\), lock table tf-locks not read \\(ResourceNotFoundException\\); findings stored in `,
        'm',
      ),
    );
    expect(run.stderr).not.toMatch(/0 lock\(s\)/);
  });

  it('keys, prefixes and registry keys reach stderr without their escape sequences (D14)', async () => {
    compliantBucket([]);
    const registry = join(dir, 'escapes.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces:',
        '  - id: esc-ws',
        '    owner: platform',
        '    environment: prod',
        '    source: { dir: app }',
        `    backend: { bucket: ${BUCKET}, key: "x\\e]0;PWNED\\a\\e[2Jy/terraform.tfstate", region: eu-west-1 }`,
        '',
      ].join('\n'),
    );
    const check = await inProcess((run) =>
      checkBackendAction(run, {
        ...base(),
        registry,
        key: ['k\u001b]0;TITLE\u0007\u001b[31m/terraform.tfstate'],
      }),
    );
    const locks = await inProcess((run) => locksAction(run, { ...base(), prefix: 'p\u001b[31m/' }));
    for (const stderr of [check.stderr, locks.stderr]) {
      expect(stderr).not.toContain('\u001b');
      expect(stderr).not.toContain('\u0007');
    }
    // The command lists the prefix as it is (its escape sequence written out, inert), not another one.
    expect(errorLines(check.stderr)).toEqual([
      `driftwatch: no state object at s3://${BUCKET}/k/terraform.tfstate: --key names no object in the bucket (a typo, or a state never applied); list the keys with aws s3 ls $'s3://${BUCKET}/k\\x1b]0;TITLE\\x07\\x1b[31m/' and pass one of them`,
      `driftwatch: no state object at s3://${BUCKET}/xy/terraform.tfstate (never applied, or a typo)`,
    ]);
    expect(locks.stderr).toMatch(
      new RegExp(`^locks: 0 lock\\(s\\) in s3://${BUCKET}/p/; findings stored in `, 'm'),
    );
  });

  it("the preflight's line is inert too: its cause can quote the prefix and the service's message (D14)", async () => {
    s3.on(ListObjectsV2Command).rejects(
      new S3ServiceException({
        name: 'InternalError',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
        message: 'We encountered an internal error \u001b]0;PWNED\u0007',
      }),
    );
    const run = await inProcess((set) => locksAction(set, { ...base(), prefix: 'p\u001b[2J/' }));
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('\u001b');
    expect(errorLines(run.stderr)).toEqual([
      `driftwatch: s3://${BUCKET} not checked: InternalError on s3:ListBucket. An unexpected error reading s3://${BUCKET}/p/: the next scan tries again; the detail has the full message.`,
    ]);
  });

  it('many failed reads: ten lines at most, the last one says how many more', () => {
    const failures = Array.from({ length: 12 }, (_, index) => ({
      resource: `s3://${BUCKET}/s${String(index).padStart(2, '0')}/terraform.tfstate`,
      action: 's3:GetObjectVersion',
      code: 'AccessDenied',
      message: 'Access Denied',
    }));
    const lines = readFailureLines([
      {
        placement: { workspace: 's3.tfstate' },
        outcome: 'failed',
        drafts: [{ ...scanFailedDraft(), evidence: { failures } }],
      },
    ]);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(
      /^s3:\/\/tfstate\/s00\/terraform\.tfstate not read: AccessDenied on s3:GetObjectVersion\. Allow /,
    );
    expect(lines[9]).toBe(
      '3 more reads failed: the scan-failed findings name each one with its fix (--format json, or driftwatch findings show <id>)',
    );
  });

  it('the findings store is checked, and named, before the state bucket is read (D17)', async () => {
    compliantBucket(['app/terraform.tfstate']);
    s3.on(GetObjectCommand, { Bucket: 'no-such-findings-bucket' }).rejects(
      s3ServiceError('NoSuchBucket', 404),
    );
    const missing = checkBackendAction(() => {}, { ...base(), store: 's3://no-such-findings-bucket' });
    await expect(missing).rejects.toThrow(
      new CliError(
        'the findings store s3://no-such-findings-bucket does not exist (NoSuchBucket): pass --store with the bucket findings are recorded in (not the state bucket, which is --bucket), or create it',
      ),
    );
    const file = join(dir, 'store-file');
    writeFileSync(file, '');
    await expect(locksAction(() => {}, { ...base(), store: file })).rejects.toThrow(
      `the findings store ${file} is a file, not a directory`,
    );
    // Neither read the state bucket.
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(0);
  });

  it("the registry's locks.confirmAfter beyond 1d is refused before anything is read (D10)", async () => {
    const registry = join(dir, 'long-window.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'locks: { confirmAfter: 99999999d }',
        'workspaces: []',
        '',
      ].join('\n'),
    );
    await expect(locksAction(() => {}, { ...base(), registry })).rejects.toThrow(
      `locks.confirmAfter in ${registry} is 99999999d, longer than 1d, the longest window locks waits out: pass --confirm-after (e.g. 10m), or shorten it in the registry`,
    );
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(0);
    // --confirm-after wins over the registry's.
    compliantBucket([]);
    const run = await inProcess((set) => locksAction(set, { ...base(), registry, confirmAfter: 600_000 }));
    expect(run.code).toBe(0);
  });

  it('usage errors thrown in process carry exit code 64', async () => {
    const error = await checkBackendAction(() => {}, { ...base(), region: 'nowhere' }).catch(
      (caught: unknown) => caught,
    );
    expect((error as CliError).exitCode).toBe(EXIT_USAGE);
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(0);
  });
});
