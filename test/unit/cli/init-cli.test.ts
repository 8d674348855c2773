import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initAction } from '../../../cli/commands/init-action.js';
import { CliError } from '../../../cli/usage.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { stateObjectKey } from '../../../functions/core/registry/state-key.js';
import { runCli } from '../../helpers/integration.js';

/**
 * `driftwatch init` as a user runs it. The bucket side talks to a small local S3 stand-in that
 * answers ListObjectsV2 and GetBucketLocation, or refuses with NoSuchBucket / AccessDenied, so every
 * error path is real SDK parsing of a real HTTP answer (the moto run is test/integration/init.test.ts).
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-init-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEYS = [
  'payments/prod.tfstate',
  'payments/prod.tfstate.tflock',
  'env:/blue/network/terraform.tfstate',
  'readme.md',
];
/**
 * What anyone who can write to a state bucket can name an object: a line break that would end a YAML
 * comment and add a roleArn, invisible characters, a key the registry refuses, a CLI workspace
 * Terraform could not have made.
 */
const HOSTILE_KEYS = [
  'x\n    roleArn: arn:aws:iam::999999999999:role/attacker\n#.tfstate',
  'x\n    roleArn: arn:aws:iam::999999999999:role/attacker\n#.tfstate.tflock',
  'zw\u200b\u202e.tfstate',
  'zw\u200b\u202e.tfstate.tflock',
  '/lead.tfstate',
  'env:/default/app.tfstate',
  'env:/a b/app.tfstate',
];
const xmlText = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/[\n\r]/g, (char) => `&#${char.charCodeAt(0)};`);
const requests: string[] = [];
let server: Server;
let env: Record<string, string>;

function s3Error(code: string, status: number): [number, string] {
  return [
    status,
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`,
  ];
}

/** Buckets whose region a least-privilege role may not ask GetBucketLocation for; HEAD names it or not. */
const REGION_BY_HEAD: Record<string, string | undefined> = {
  'no-location-bucket': 'ap-southeast-2',
  'no-region-bucket': undefined,
};

function answer(method: string, url: URL): [number, string, Record<string, string>?] {
  const bucket = url.pathname.split('/')[1] ?? '';
  if (bucket in REGION_BY_HEAD) {
    const region = REGION_BY_HEAD[bucket];
    if (method === 'HEAD') return region ? [200, '', { 'x-amz-bucket-region': region }] : [403, ''];
    if (url.searchParams.has('location')) return s3Error('AccessDenied', 403);
  }
  if (method !== 'GET') return s3Error('MethodNotAllowed', 405);
  // A role allowed to list payments/ only (an s3:prefix condition): the rest of the bucket is denied.
  if (bucket === 'prefix-only-bucket' && !url.searchParams.has('location')) {
    const prefix = url.searchParams.get('prefix') ?? '';
    if (!prefix.startsWith('payments/')) return s3Error('AccessDenied', 403);
    const contents = KEYS.filter((key) => key.startsWith(prefix))
      .map((key) => `<Contents><Key>${xmlText(key)}</Key><Size>1</Size></Contents>`)
      .join('');
    return [
      200,
      `<ListBucketResult><Name>${bucket}</Name><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
    ];
  }
  if (bucket === 'missing-bucket') return s3Error('NoSuchBucket', 404);
  // GetBucketEncryption: a bucket whose default is SSE-KMS (the others answer a listing, no rules).
  if (bucket === 'kms-bucket' && url.searchParams.has('encryption'))
    return [
      200,
      '<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>arn:aws:kms:eu-central-1:111111111111:key/1</KMSMasterKeyID></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>',
    ];
  if (bucket === 'denied-bucket') return s3Error('AccessDenied', 403);
  if (bucket === 'empty-bucket')
    return [
      200,
      '<ListBucketResult><Name>empty-bucket</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>',
    ];
  if (url.searchParams.has('location'))
    return [
      200,
      '<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">eu-central-1</LocationConstraint>',
    ];
  const keys = bucket === 'hostile-bucket' ? HOSTILE_KEYS : KEYS;
  const contents = keys
    .map((key) => `<Contents><Key>${xmlText(key)}</Key><Size>1</Size></Contents>`)
    .join('');
  return [
    200,
    `<ListBucketResult><Name>${bucket}</Name><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
  ];
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const [status, body, headers] = answer(request.method ?? 'GET', url);
    response.writeHead(status, { 'content-type': 'application/xml', ...headers }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  env = {
    AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
    AWS_ACCESS_KEY_ID: 'init-test',
    AWS_SECRET_ACCESS_KEY: 'init-test-secret',
    AWS_REGION: 'eu-west-1',
    AWS_PROFILE: '',
  };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function workdir(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

const init = (args: string[], cwd: string) => runCli(['init', ...args], { cwd, env });

describe('driftwatch init --bucket', () => {
  it('writes one workspace per state object, with the bucket region, and only reads', async () => {
    const cwd = workdir('bucket');
    const run = await init(['--bucket', 'tfstate'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'Wrote driftwatch.yaml: 2 workspaces from s3://tfstate (eu-central-1), 1 locking with use_lockfile.',
    );
    expect(run.stdout).toContain('npx driftwatch routes --check --registry driftwatch.yaml');
    expect(run.stdout).toContain('npx driftwatch scan --registry driftwatch.yaml');
    const registry = parseRegistry(readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8'));
    expect(registry.workspaces.map((workspace) => [workspace.id, workspace.backend])).toEqual([
      [
        'network-blue',
        {
          bucket: 'tfstate',
          key: 'network/terraform.tfstate',
          region: 'eu-central-1',
          workspace: 'blue',
          workspaceKeyPrefix: 'env:',
        },
      ],
      ['payments-prod', { bucket: 'tfstate', key: 'payments/prod.tfstate', region: 'eu-central-1' }],
    ]);
    expect(requests.every((request) => request.startsWith('GET '))).toBe(true);
    // Written whole, nothing left beside it.
    expect(readdirSync(cwd)).toEqual(['driftwatch.yaml']);
  });

  it('a bucket whose default encryption is SSE-KMS: every workspace requires KMS, and the file says why', async () => {
    const cwd = workdir('kms');
    const run = await init(['--bucket', 'kms-bucket'], cwd);
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8');
    expect(text).toContain(
      '# requireKms: s3://kms-bucket encrypts new objects with SSE-KMS by default, so each state must be SSE-KMS too',
    );
    expect(parseRegistry(text).workspaces.map((workspace) => workspace.backend.requireKms)).toEqual([
      true,
      true,
    ]);
    // The other buckets of this file answer GetBucketEncryption with no rule: no requireKms there.
    expect(requests).toContain('GET /kms-bucket/?encryption=');
  });

  it('--region wins over the bucket location', async () => {
    const cwd = workdir('region');
    const run = await init(['--bucket', 'tfstate', '--region', 'us-west-2', '--out', 'estate.yaml'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(parseRegistry(readFileSync(join(cwd, 'estate.yaml'), 'utf8')).workspaces[0]?.backend.region).toBe(
      'us-west-2',
    );
  });

  it('reads the region with HeadBucket when GetBucketLocation is refused, and says when it is only a guess', async () => {
    const cwd = workdir('no-location');
    const headed = await init(['--bucket', 'no-location-bucket'], cwd);
    expect(headed.code, headed.stderr).toBe(0);
    expect(headed.stdout.split('\n')[0]).toBe(
      'Wrote driftwatch.yaml: 2 workspaces from s3://no-location-bucket (ap-southeast-2), 1 locking with use_lockfile.',
    );
    const starter = readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8');
    expect(parseRegistry(starter).workspaces.map((workspace) => workspace.backend.region)).toEqual(
      Array(2).fill('ap-southeast-2'),
    );
    // Neither answers: AWS_REGION is written, and both the summary and the file say it is a guess.
    const guessed = await init(['--bucket', 'no-region-bucket', '--out', 'guessed.yaml'], cwd);
    expect(guessed.code, guessed.stderr).toBe(0);
    const note =
      "the bucket's region could not be read (s3:GetBucketLocation and HeadBucket refused), so eu-west-1 is the configured region: pass --region if the bucket is elsewhere";
    expect(guessed.stdout).toContain(`\nNote: ${note}.\n`);
    expect(readFileSync(join(cwd, 'guessed.yaml'), 'utf8')).toContain(`\n# Note: ${note}.\n`);
  });

  it('--prefix with a role that may list only that prefix: its states are written, env:/ is said unlisted', async () => {
    const cwd = workdir('prefix-only');
    const run = await init(['--bucket', 'prefix-only-bucket', '--prefix', 'payments/'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      '\nNote: s3://prefix-only-bucket/env:/ could not be listed (AccessDenied on s3:ListBucket), so states of CLI workspaces there (env:/*/payments/) are left out.\n',
    );
    expect(
      parseRegistry(readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8')).workspaces.map((workspace) =>
        stateObjectKey(workspace),
      ),
    ).toEqual(['payments/prod.tfstate']);
    // Without --prefix, the whole bucket is what was asked for: a denial is the error it was.
    const whole = await init(['--bucket', 'prefix-only-bucket', '--out', 'whole.yaml'], cwd);
    expect(whole.code).toBe(1);
    expect(whole.stderr).toMatch(
      /^driftwatch: cannot list s3:\/\/prefix-only-bucket: AccessDenied on s3:ListBucket/,
    );
  });

  it('refuses to overwrite an existing file (exit 1, one line), and --force overwrites it', async () => {
    const cwd = workdir('exists');
    writeFileSync(join(cwd, 'driftwatch.yaml'), 'hand-edited\n');
    const refused = await init(['--bucket', 'tfstate'], cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'driftwatch: driftwatch.yaml already exists: pass --force to overwrite it, or --out <file> to write another\n',
    );
    expect(readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8')).toBe('hand-edited\n');
    const forced = await init(['--bucket', 'tfstate', '--force'], cwd);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8')).toContain('key: payments/prod.tfstate');
    expect(readdirSync(cwd)).toEqual(['driftwatch.yaml']);
  });

  it('prints the next commands with --out as one shell word, and the path without terminal escapes', async () => {
    const cwd = workdir('odd-out');
    mkdirSync(join(cwd, 'team a'));
    // A space and a command substitution: pasted unquoted, the command would run `id` and split the path.
    const spaced = await init(['--bucket', 'tfstate', '--out', 'team a/dw $(id).yaml'], cwd);
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(spaced.stdout).toContain("\n  npx driftwatch routes --check --registry 'team a/dw $(id).yaml'\n");
    expect(spaced.stdout).toContain("\n  npx driftwatch scan --registry 'team a/dw $(id).yaml'\n");
    const escaped = await init(['--bucket', 'tfstate', '--out', 'red\u001b[31m.yaml'], cwd);
    expect(escaped.code, escaped.stderr).toBe(0);
    expect(escaped.stdout).not.toContain('\u001b');
    expect(escaped.stdout).toContain("\n  npx driftwatch scan --registry $'red\\x1b[31m.yaml'\n");
    expect(existsSync(join(cwd, 'red\u001b[31m.yaml'))).toBe(true);
    // Its errors name it escaped too: stripped, they named red.yaml, another file.
    const again = await init(['--bucket', 'tfstate', '--out', 'red\u001b[31m.yaml'], cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'driftwatch: "red\\u001b[31m.yaml" already exists: pass --force to overwrite it, or --out <file> to write another\n',
    );
  });

  it('--out naming a directory says so, with or without --force, and writes nothing', async () => {
    const cwd = workdir('out-dir');
    mkdirSync(join(cwd, 'config'));
    for (const force of [[], ['--force']]) {
      const run = await init(['--bucket', 'tfstate', '--out', 'config', ...force], cwd);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `driftwatch: cannot write config: it is a directory, not a regular file, and is left as it is: pass --out with the path of a new or regular file, e.g. ${join('config', 'driftwatch.yaml')}\n`,
      );
      expect(readdirSync(join(cwd, 'config'))).toEqual([]);
    }
  });

  it.each([
    [
      'missing-bucket',
      /^driftwatch: cannot list s3:\/\/missing-bucket: the bucket does not exist \(NoSuchBucket\): check the name given to --bucket/,
    ],
    [
      'denied-bucket',
      /^driftwatch: cannot list s3:\/\/denied-bucket: AccessDenied on s3:ListBucket: init lists the bucket: use credentials \(AWS_PROFILE\) allowed s3:ListBucket on arn:aws:s3:::denied-bucket\n$/,
    ],
    [
      'empty-bucket',
      /^driftwatch: no Terraform state objects \(\*\.tfstate\) among the 0 objects listed in s3:\/\/empty-bucket: check --bucket and --prefix\n$/,
    ],
  ])('%s: one line with the fix, exit 1, no file', async (bucket, line) => {
    const cwd = workdir(bucket);
    const run = await init(['--bucket', bucket], cwd);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(line);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(existsSync(join(cwd, 'driftwatch.yaml'))).toBe(false);
  });
});

describe('driftwatch init --bucket with hostile keys', () => {
  it('writes every key back as the same state object, adds nothing to the file, says what it left out', async () => {
    const cwd = workdir('hostile');
    const run = await init(['--bucket', 'hostile-bucket'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "Note: 1 state object left out: a registry cannot name a key that starts with '/' (/lead.tfstate).",
    );
    const text = readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8');
    // No raw line break inside a comment or value, no invisible character: the file reads as it is.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e]/);
    const { workspaces } = parseRegistry(text);
    expect(workspaces.map((workspace) => stateObjectKey(workspace)).sort()).toEqual(
      HOSTILE_KEYS.filter((key) => !key.endsWith('.tflock') && !key.startsWith('/')).sort(),
    );
    for (const workspace of workspaces) {
      expect(workspace).not.toHaveProperty('roleArn');
      expect(workspace.backend.workspace).toBeUndefined();
    }
  });
});

describe('driftwatch init --root', () => {
  it('a backend that names its kms_key_id requires KMS for its state; one without does not', async () => {
    const cwd = workdir('root-kms');
    for (const [name, kms] of [
      ['kms', '    encrypt = true\n    kms_key_id = "alias/tfstate"\n'],
      ['plain', '    encrypt = true\n'],
    ] as const) {
      mkdirSync(join(cwd, name));
      writeFileSync(
        join(cwd, name, 'backend.tf'),
        `terraform {\n  backend "s3" {\n    bucket = "tfstate-prod"\n    key = "${name}.tfstate"\n    region = "eu-west-1"\n${kms}  }\n}\n`,
      );
    }
    const withKey = await init(['--root', 'kms', '--out', 'kms.yaml'], cwd);
    expect(withKey.code, withKey.stderr).toBe(0);
    const text = readFileSync(join(cwd, 'kms.yaml'), 'utf8');
    expect(text).toContain('# requireKms: kms/backend.tf sets kms_key_id, so each state must be SSE-KMS too');
    expect(parseRegistry(text).workspaces[0]?.backend.requireKms).toBe(true);
    const without = await init(['--root', 'plain', '--out', 'plain.yaml'], cwd);
    expect(without.code, without.stderr).toBe(0);
    const plain = readFileSync(join(cwd, 'plain.yaml'), 'utf8');
    expect(plain).not.toContain('requireKms');
  });

  it('fills the backend from the root and points source.dir at it, relative to the file', async () => {
    const cwd = workdir('root');
    mkdirSync(join(cwd, 'infra', 'payments'), { recursive: true });
    writeFileSync(
      join(cwd, 'infra', 'payments', 'backend.tf'),
      'terraform {\n  backend "s3" {\n    bucket = "tfstate-prod"\n    key = "payments/terraform.tfstate"\n    region = "eu-west-1"\n    dynamodb_table = "tf-locks"\n  }\n}\n',
    );
    mkdirSync(join(cwd, 'config'));
    const run = await init(['--root', 'infra/payments', '--out', 'config/driftwatch.yaml'], cwd);
    expect(run.code, run.stderr).toBe(0);
    // source.dir is filled in: only what is left to do is named.
    expect(run.stdout).toMatch(/^Replace its TODOs \(owners, destinations(, environment)?\); this lists/m);
    const [workspace] = parseRegistry(
      readFileSync(join(cwd, 'config', 'driftwatch.yaml'), 'utf8'),
    ).workspaces;
    expect(workspace).toMatchObject({
      id: 'payments',
      source: { dir: '../infra/payments' },
      backend: {
        bucket: 'tfstate-prod',
        key: 'payments/terraform.tfstate',
        region: 'eu-west-1',
        lockTable: 'tf-locks',
      },
    });
  });

  // Roots Terraform itself refuses, or that driftwatch cannot read: one line about the file, exit 1,
  // no starter (before, a key starting with '/' failed with problems in a starter never written, and
  // of two backend blocks the first was used).
  it.each([
    {
      name: 'two backend blocks in two files',
      files: {
        'a.tf': 'terraform {\n  backend "s3" {\n    bucket = "a-bucket"\n    key = "a.tfstate"\n  }\n}\n',
        'b.tf': 'terraform {\n  backend "s3" {\n    bucket = "b-bucket"\n    key = "b.tfstate"\n  }\n}\n',
      },
      line: 'bad has 2 backend or cloud blocks (in a.tf, b.tf): Terraform allows one per root; remove the others',
    },
    {
      name: 'a backend and a cloud block',
      files: {
        'main.tf':
          'terraform {\n  backend "s3" {\n    bucket = "a-bucket"\n    key = "a.tfstate"\n  }\n  cloud {\n    organization = "acme"\n  }\n}\n',
      },
      line: 'bad has 2 backend or cloud blocks (in main.tf): Terraform allows one per root; remove the others',
    },
    {
      name: 'a cloud block (HCP Terraform)',
      files: { 'main.tf.json': JSON.stringify({ terraform: { cloud: { organization: 'acme' } } }) },
      line: 'bad/main.tf.json keeps its state in HCP Terraform (a cloud block): driftwatch reads S3 backends only',
    },
    {
      name: 'a variable in the backend block',
      files: {
        'main.tf':
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform interpolation, not ours.
          'terraform {\n  backend "s3" {\n    bucket = var.bucket\n    key = "${var.env}.tfstate"\n  }\n}\n',
      },
      line: 'bad/main.tf: backend "s3" sets bucket with an expression, which Terraform does not allow in a backend block (no variables there): write the value itself',
    },
    {
      name: 'a key starting with /',
      files: {
        'main.tf':
          'terraform {\n  backend "s3" {\n    bucket = "a-bucket"\n    key = "/a.tfstate"\n    region = "eu-west-1"\n  }\n}\n',
      },
      line: `bad/main.tf: backend "s3" key: must not start with '/' (S3 keys are relative, e.g. payments/terraform.tfstate)`,
    },
    {
      name: 'a region that is not one',
      files: {
        'main.tf':
          'terraform {\n  backend "s3" {\n    bucket = "a-bucket"\n    key = "a.tfstate"\n    region = "eu-west-1 "\n  }\n}\n',
      },
      line: `bad/main.tf: backend "s3" region: 'eu-west-1 ' is not an AWS region such as eu-west-1 or us-gov-west-1`,
    },
    {
      name: 'a lock table that is not a table name',
      files: {
        'main.tf':
          'terraform {\n  backend "s3" {\n    bucket = "a-bucket"\n    key = "a.tfstate"\n    region = "eu-west-1"\n    dynamodb_table = "my locks"\n  }\n}\n',
      },
      line: `bad/main.tf: backend "s3" dynamodb_table: 'my locks' is not a DynamoDB table name: use 3-255 characters from letters, digits, '_', '-' and '.'`,
    },
  ])('a root with $name: one line about its file, exit 1, nothing written', async ({ name, files, line }) => {
    const cwd = workdir(`root-${name.replace(/\W+/g, '-')}`);
    mkdirSync(join(cwd, 'bad'));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(cwd, 'bad', file), text);
    // In process (a CLI start per row cost a second each): the action's error is the line main prints.
    const root = join(cwd, 'bad');
    const out = join(cwd, 'driftwatch.yaml');
    const error = await initAction(() => undefined, { root, out }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(`${root}${line.slice('bad'.length)}`);
    expect(existsSync(out)).toBe(false);
  });

  it('a root Terraform refuses fails through the real binary with that one line and exit 1', async () => {
    const cwd = workdir('root-refused-binary');
    mkdirSync(join(cwd, 'bad'));
    writeFileSync(join(cwd, 'bad', 'main.tf'), 'terraform {\n  backend "s3" {}\n  cloud {}\n}\n');
    const run = await init(['--root', 'bad'], cwd);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'driftwatch: bad has 2 backend or cloud blocks (in main.tf): Terraform allows one per root; remove the others\n',
    );
    expect(existsSync(join(cwd, 'driftwatch.yaml'))).toBe(false);
  });

  it('a root whose name holds a line break is named on one line, and its starter loads back', async () => {
    const cwd = workdir('root-line-break');
    mkdirSync(join(cwd, 'a\nb'));
    writeFileSync(
      join(cwd, 'a\nb', 'main.tf'),
      'terraform {\n  backend "s3" {\n    bucket = "a-bucket"\n    key = "a.tfstate"\n    region = "eu-west-1"\n    use_lockfile = true\n  }\n}\n',
    );
    const run = await init(['--root', 'a\nb'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(
      'Wrote driftwatch.yaml: 1 workspace from the backend block of "a\\nb"/main.tf (eu-west-1), 1 locking with use_lockfile.',
    );
    const [workspace] = parseRegistry(readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8')).workspaces;
    expect(workspace?.source).toEqual({ dir: 'a\nb' });
  });

  it('fills a partial backend block from what the last terraform init in the root recorded', async () => {
    const cwd = workdir('initialised');
    const root = join(cwd, 'infra', 'payments');
    mkdirSync(join(root, '.terraform'), { recursive: true });
    // As real roots keep it: bucket, key and region come from -backend-config at terraform init,
    // which also overrides the key the block gives (Terraform lets it).
    writeFileSync(
      join(root, 'backend.tf'),
      'terraform {\n  backend "s3" {\n    key = "default.tfstate"\n    use_lockfile = true\n  }\n}\n',
    );
    // What terraform 1.11.4 wrote after `terraform init -backend-config=…` (settings left unset are
    // null, as it writes them; a secret given at init must not reach the starter).
    const config: Record<string, unknown> = Object.fromEntries(
      ['acl', 'assume_role', 'dynamodb_table', 'encrypt', 'endpoints', 'kms_key_id', 'profile', 'token'].map(
        (name) => [name, null],
      ),
    );
    Object.assign(config, {
      bucket: 'acme-tfstate',
      key: 'payments/prod.tfstate',
      region: 'eu-central-1',
      secret_key: 'init-secret-9f8e7d',
      use_lockfile: true,
      workspace_key_prefix: null,
    });
    writeFileSync(
      join(root, '.terraform', 'terraform.tfstate'),
      JSON.stringify({
        version: 3,
        terraform_version: '1.11.4',
        backend: { type: 's3', config, hash: 505299539 },
      }),
    );
    // `terraform workspace select staging` was the last thing done there (written without a newline).
    writeFileSync(join(root, '.terraform', 'environment'), 'staging');
    const run = await init(['--root', 'infra/payments'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[1]).toBe(
      "Note: infra/payments has the CLI workspace staging selected (.terraform/environment), whose state is env:/staging/payments/prod.tfstate; this file names the default workspace's state, payments/prod.tfstate: add workspace: staging to the backend for that one, or list every workspace with driftwatch init --bucket acme-tfstate --prefix payments/prod.tfstate.",
    );
    expect(run.stdout.split('\n')[0]).toBe(
      'Wrote driftwatch.yaml: 1 workspace from the backend block of infra/payments/backend.tf and infra/payments/.terraform/terraform.tfstate (the last terraform init there) (eu-central-1), 1 locking with use_lockfile.',
    );
    const text = readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8');
    expect(text).not.toContain('init-secret');
    expect(parseRegistry(text).workspaces[0]).toMatchObject({
      id: 'payments-prod',
      environment: 'prod',
      source: { dir: 'infra/payments' },
      backend: { bucket: 'acme-tfstate', key: 'payments/prod.tfstate', region: 'eu-central-1' },
    });

    // Initialised with another backend (a local one, for a try-out): the block is what counts.
    writeFileSync(
      join(root, '.terraform', 'terraform.tfstate'),
      JSON.stringify({ version: 3, backend: { type: 'local', config: { path: null }, hash: 1 } }),
    );
    const local = await init(['--root', 'infra/payments', '--out', 'other.yaml'], cwd);
    expect(local.code).toBe(1);
    expect(local.stderr).toBe(
      'driftwatch: infra/payments/backend.tf: backend "s3" sets no bucket (partial configuration, given at terraform init?): add it there, run terraform init in that root first (driftwatch then reads .terraform/terraform.tfstate), or use driftwatch init --bucket <state-bucket>\n',
    );
  });

  it('reads what terraform init recorded from TF_DATA_DIR when the environment sets it', async () => {
    const cwd = workdir('data-dir');
    const root = join(cwd, 'app');
    mkdirSync(root);
    writeFileSync(join(root, 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
    const recorded = (bucket: string) =>
      JSON.stringify({
        version: 3,
        backend: { type: 's3', config: { bucket, key: 'app/terraform.tfstate', region: 'eu-central-1' } },
      });
    // An old .terraform from before the wrapper set TF_DATA_DIR: not what Terraform uses now.
    mkdirSync(join(root, '.terraform'));
    writeFileSync(join(root, '.terraform', 'terraform.tfstate'), recorded('stale-bucket'));
    mkdirSync(join(root, 'tf-data'));
    writeFileSync(join(root, 'tf-data', 'terraform.tfstate'), recorded('current-bucket'));
    writeFileSync(join(root, 'tf-data', 'environment'), 'blue\n');
    const relativeDir = await runCli(['init', '--root', 'app'], {
      cwd,
      env: { ...env, TF_DATA_DIR: 'tf-data' },
    });
    expect(relativeDir.code, relativeDir.stderr).toBe(0);
    expect(relativeDir.stdout.split('\n')[0]).toBe(
      'Wrote driftwatch.yaml: 1 workspace from the backend block of app/main.tf and app/tf-data/terraform.tfstate (the last terraform init there) (eu-central-1).',
    );
    expect(relativeDir.stdout).toContain('app has the CLI workspace blue selected (tf-data/environment)');
    const text = readFileSync(join(cwd, 'driftwatch.yaml'), 'utf8');
    expect(parseRegistry(text).workspaces[0]?.backend.bucket).toBe('current-bucket');

    // An absolute TF_DATA_DIR is read where it is, and named so.
    const elsewhere = join(cwd, 'shared-data');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'terraform.tfstate'), recorded('absolute-bucket'));
    const absoluteDir = await runCli(['init', '--root', 'app', '--out', 'abs.yaml'], {
      cwd,
      env: { ...env, TF_DATA_DIR: elsewhere },
    });
    expect(absoluteDir.code, absoluteDir.stderr).toBe(0);
    expect(absoluteDir.stdout.split('\n')[0]).toContain(
      `and ${join(elsewhere, 'terraform.tfstate')} (the last`,
    );
    expect(parseRegistry(readFileSync(join(cwd, 'abs.yaml'), 'utf8')).workspaces[0]?.backend.bucket).toBe(
      'absolute-bucket',
    );

    // Nothing recorded there: the advice names the file driftwatch would read.
    const missing = await runCli(['init', '--root', 'app', '--out', 'none.yaml'], {
      cwd,
      env: { ...env, TF_DATA_DIR: 'not-initialised' },
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(driftwatch then reads not-initialised/terraform.tfstate)');
  });

  it('says what is missing from a partial backend block or a root without one', async () => {
    const cwd = workdir('partial');
    mkdirSync(join(cwd, 'app'));
    writeFileSync(
      join(cwd, 'app', 'main.tf'),
      'terraform {\n  backend "s3" {\n    key = "app.tfstate"\n  }\n}\n',
    );
    const partial = await init(['--root', 'app'], cwd);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(
      /^driftwatch: app\/main\.tf: backend "s3" sets no bucket \(partial configuration/,
    );
    mkdirSync(join(cwd, 'none'));
    writeFileSync(join(cwd, 'none', 'main.tf'), 'resource "aws_sqs_queue" "q" {}\n');
    const none = await init(['--root', 'none'], cwd);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^driftwatch: no backend "s3" block in none \(1 \.tf files\)/);
  });
});

describe('driftwatch init usage and routes --check on its output', () => {
  it.each([
    [[]],
    [['--bucket', 'a-bucket', '--root', 'x']],
    [['--root', 'x', '--prefix', 'p/']],
    [['--bucket', 'Not_A_Bucket']],
    [['--bucket', 'a-bucket', '--region', 'Europe']],
    // '-' reads as standard output; it was a file named '-' in the current directory.
    [['--bucket', 'tfstate', '--out', '-']],
  ])('%j is a usage error (64)', async (args) => {
    const cwd = workdir('usage');
    const run = await init(args, cwd);
    expect(run.code, run.stderr).toBe(64);
    expect(existsSync(join(cwd, 'driftwatch.yaml'))).toBe(false);
    expect(existsSync(join(cwd, '-'))).toBe(false);
  });

  it('routes --check lists every TODO of a fresh starter and exits 1', async () => {
    const cwd = workdir('routes');
    expect((await init(['--bucket', 'tfstate'], cwd)).code).toBe(0);
    const check = await runCli(['routes', '--check'], { cwd });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'placeholder at owners.teams[0].destinations[0].address (todo-team@example.com)',
    );
    expect(check.stdout).toContain(
      'placeholder at workspaces[1].source.dir (TODO-path-to-the-terraform-root)',
    );
    expect(check.stdout).toContain('placeholder at workspaces[0].environment (TODO-environment)');
  });
});
