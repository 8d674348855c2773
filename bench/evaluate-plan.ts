/**
 * Benchmark: evaluating a `terraform show -json` plan versus merely parsing it.
 *
 * 1. A refresh-only plan with 50,000 drifted AWS resources (tags, security group ingress opened to
 *    the world, deletions, SecureString values, re-serialised IAM policies, null→{} noise):
 *    plain `JSON.parse(readFileSync(file, 'utf8'))` versus `readPlanFile` + `evaluateCompactPlan`,
 *    in-memory and streaming, median of 3 interleaved runs, each run in its own child process so
 *    peak RSS (process.resourceUsage().maxRSS) is measured per side. Goal: evaluation (streamed, the
 *    default at this size) ≤ 1.5× parse.
 * 2. A plan larger than V8's maximum string length (~512 MiB), which JSON.parse cannot even be
 *    handed: it evaluates through the streaming path with bounded memory.
 *
 * Run: `npx tsx bench/evaluate-plan.ts` (or through bench/run.ts, which calls `run()`).
 * Prints ratios; asserts nothing. Generated files go to os.tmpdir() and are deleted afterwards.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readPlanFile } from '../functions/adapters/plan-file.js';
import { createSensitiveHasher } from '../functions/core/redaction/secrets.js';
import { DEFAULT_POLICIES } from '../functions/core/registry/model.js';
import { evaluateCompactPlan } from '../functions/core/terraform/index.js';
import { entry, ingressRule, stateResource } from '../test/helpers/plan-builders.js';

const THIS_FILE = fileURLToPath(import.meta.url);
const REPO_ROOT = resolve(dirname(THIS_FILE), '..');
const RESOURCES = 50_000;
const RUNS = 3;
/** Big plan: resources × (before + after + prior_state) × attribute size > 512 MiB. */
const BIG_RESOURCES = 700;
const BIG_ATTRIBUTE_BYTES = 280 * 1024;

type Mode = 'parse' | 'evaluate-in-memory' | 'evaluate-streaming';

interface ChildReport {
  ms: number;
  maxRssMiB: number;
  findings?: number;
  error?: string;
}

// ---------------------------------------------------------------- plan generation (streaming writer)

/** A drift entry as Terraform prints it (the same builder the unit tests use). */
function driftEntry(
  address: string,
  actions: string[],
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  beforeMask: unknown = {},
  afterMask: unknown = {},
) {
  return entry(address, { actions, before, after, beforeSensitive: beforeMask, afterSensitive: afterMask });
}

function configEntry(address: string, expressions: unknown) {
  const [type, name] = address.split('.') as [string, string];
  return { address, mode: 'managed', type, name, provider_config_key: 'aws', expressions, schema_version: 0 };
}

function bucket(i: number, owner: string, versioning: boolean) {
  const name = `payments-data-${i}`;
  return {
    acceleration_status: '',
    acl: null,
    arn: `arn:aws:s3:::${name}`,
    bucket: name,
    bucket_domain_name: `${name}.s3.amazonaws.com`,
    bucket_prefix: '',
    bucket_regional_domain_name: `${name}.s3.eu-west-1.amazonaws.com`,
    cors_rule: [],
    force_destroy: false,
    grant: [
      {
        id: '75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a',
        permissions: ['FULL_CONTROL'],
        type: 'CanonicalUser',
        uri: '',
      },
    ],
    hosted_zone_id: 'Z1BKCTXD74EZPE',
    id: name,
    lifecycle_rule: [],
    logging: [],
    object_lock_configuration: [],
    object_lock_enabled: false,
    policy: '',
    region: 'eu-west-1',
    replication_configuration: [],
    request_payer: 'BucketOwner',
    server_side_encryption_configuration: [
      {
        rule: [
          {
            apply_server_side_encryption_by_default: [{ kms_master_key_id: '', sse_algorithm: 'AES256' }],
            bucket_key_enabled: false,
          },
        ],
      },
    ],
    tags: { Owner: owner, CostCenter: 'cc-1234', Service: 'payments' },
    tags_all: { Owner: owner, CostCenter: 'cc-1234', Service: 'payments' },
    timeouts: null,
    versioning: [{ enabled: versioning, mfa_delete: false }],
    website: [],
    website_domain: null,
    website_endpoint: null,
  };
}
const BUCKET_MASK = {
  cors_rule: [],
  grant: [{ permissions: [false] }],
  lifecycle_rule: [],
  logging: [],
  object_lock_configuration: [],
  replication_configuration: [],
  server_side_encryption_configuration: [{ rule: [{ apply_server_side_encryption_by_default: [{}] }] }],
  tags: {},
  tags_all: {},
  versioning: [{}],
  website: [],
};

function securityGroup(i: number, rules: unknown[], tags: unknown) {
  const id = `sg-${i.toString(16).padStart(17, '0')}`;
  return {
    arn: `arn:aws:ec2:eu-west-1:123456789012:security-group/${id}`,
    description: `db ${i}`,
    egress: [{ ...ingressRule('0.0.0.0/0', 0), protocol: '-1' }],
    id,
    ingress: rules,
    name: `db-${i}`,
    name_prefix: '',
    owner_id: '123456789012',
    revoke_rules_on_delete: false,
    tags,
    tags_all: {},
    timeouts: null,
    vpc_id: 'vpc-0d58e360ed8929d18',
  };
}

function queue(i: number) {
  const name = `payments-events-${i}`;
  return {
    arn: `arn:aws:sqs:eu-west-1:123456789012:${name}`,
    content_based_deduplication: false,
    deduplication_scope: '',
    delay_seconds: 0,
    fifo_queue: false,
    fifo_throughput_limit: '',
    id: `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`,
    kms_data_key_reuse_period_seconds: 300,
    kms_master_key_id: '',
    max_message_size: 262144,
    message_retention_seconds: 345600,
    name,
    name_prefix: '',
    policy: '',
    receive_wait_time_seconds: 0,
    redrive_allow_policy: '',
    redrive_policy: '',
    sqs_managed_sse_enabled: true,
    tags: null,
    tags_all: {},
    timeouts: null,
    url: `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`,
    visibility_timeout_seconds: 30,
  };
}

function parameter(i: number, value: string, version: number, tags: unknown) {
  return {
    allowed_pattern: '',
    arn: `arn:aws:ssm:eu-west-1:123456789012:parameter/payments/db-password-${i}`,
    data_type: 'text',
    description: '',
    has_value_wo: null,
    id: `/payments/db-password-${i}`,
    insecure_value: null,
    key_id: 'alias/aws/ssm',
    name: `/payments/db-password-${i}`,
    overwrite: null,
    tags,
    tags_all: {},
    tier: 'Standard',
    type: 'SecureString',
    value,
    value_wo: null,
    value_wo_version: null,
    version,
  };
}
const PARAMETER_MASK = { tags_all: {}, value: true, value_wo: true };

function role(i: number, policy: string, maxSession: number) {
  return {
    arn: `arn:aws:iam::123456789012:role/app-${i}`,
    assume_role_policy: policy,
    create_date: '2026-01-01T00:00:00Z',
    description: '',
    force_detach_policies: false,
    id: `app-${i}`,
    inline_policy: [],
    managed_policy_arns: [],
    max_session_duration: maxSession,
    name: `app-${i}`,
    name_prefix: '',
    path: '/',
    permissions_boundary: '',
    tags: {},
    tags_all: {},
    unique_id: `AROA${i.toString().padStart(17, '0')}`,
  };
}
const TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});
// What IAM hands back: keys reordered, the singleton action wrapped in a list.
const TRUST_AS_STORED = JSON.stringify({
  Statement: [
    { Action: ['sts:AssumeRole'], Principal: { Service: 'lambda.amazonaws.com' }, Effect: 'Allow' },
  ],
  Version: '2012-10-17',
});

function instance(i: number, type: string, tags: unknown) {
  return {
    ami: 'ami-0abcdef1234567890',
    arn: `arn:aws:ec2:eu-west-1:123456789012:instance/i-${i.toString(16).padStart(17, '0')}`,
    associate_public_ip_address: false,
    availability_zone: 'eu-west-1a',
    ebs_optimized: false,
    id: `i-${i.toString(16).padStart(17, '0')}`,
    instance_type: type,
    monitoring: false,
    private_ip: `10.0.${Math.floor(i / 250) % 250}.${i % 250}`,
    root_block_device: [
      {
        delete_on_termination: true,
        encrypted: true,
        iops: 3000,
        kms_key_id: '',
        tags: null,
        throughput: 125,
        volume_size: 8,
        volume_type: 'gp3',
      },
    ],
    subnet_id: 'subnet-0123456789abcdef0',
    tags,
    tags_all: {},
    vpc_security_group_ids: ['sg-0123456789abcdef0'],
  };
}

interface Generated {
  drift: unknown[];
  prior: unknown[];
  config: unknown[];
}

const pad = (index: number) => index.toString().padStart(6, '0');

/** Resource kinds (i % 6) in the order of their type names: Terraform lists resources by address. */
const KINDS_BY_ADDRESS = [4, 5, 0, 1, 2, 3];

/** The i of the resource at `position` when all RESOURCES are listed sorted by address. */
function indexAtPosition(position: number): number {
  let before = 0;
  for (const kind of KINDS_BY_ADDRESS) {
    const count = Math.floor((RESOURCES - 1 - kind) / 6) + 1;
    if (position < before + count) return kind + 6 * (position - before);
    before += count;
  }
  throw new Error(`position ${position} out of range`);
}

export function generateResourceAt(position: number): Generated {
  return generateResource(indexAtPosition(position));
}

function generateResource(i: number): Generated {
  switch (i % 6) {
    case 0: {
      const address = `aws_s3_bucket.data_${pad(i)}`;
      const versioning = `aws_s3_bucket_versioning.data_${pad(i)}`;
      const after = bucket(i, 'someone-else', true);
      return {
        drift: [
          driftEntry(address, ['update'], bucket(i, 'payments', false), after, BUCKET_MASK, BUCKET_MASK),
        ],
        prior: [
          stateResource(address, after, BUCKET_MASK),
          stateResource(versioning, {
            bucket: after.bucket,
            expected_bucket_owner: '',
            id: after.bucket,
            mfa: null,
            versioning_configuration: [{ mfa_delete: '', status: 'Enabled' }],
          }),
        ],
        config: [
          configEntry(address, { bucket: { constant_value: after.bucket } }),
          configEntry(versioning, { bucket: { references: [`${address}.id`] } }),
        ],
      };
    }
    case 1: {
      const address = `aws_security_group.db_${pad(i)}`;
      const before = securityGroup(i, [ingressRule('10.0.0.0/16', 5432)], null);
      const after = securityGroup(i, [ingressRule('0.0.0.0/0', 22), ingressRule('10.0.0.0/16', 5432)], {});
      return {
        drift: [driftEntry(address, ['update'], before, after)],
        prior: [stateResource(address, after)],
        config: [configEntry(address, { name: { constant_value: after.name } })],
      };
    }
    case 2: {
      const address = `aws_sqs_queue.events_${pad(i)}`;
      return {
        drift: [driftEntry(address, ['delete'], queue(i), null, { tags_all: {} }, false)],
        prior: [],
        config: [configEntry(address, { name: { constant_value: `payments-events-${i}` } })],
      };
    }
    case 3: {
      const address = `aws_ssm_parameter.pw_${pad(i)}`;
      const after = parameter(i, `rotated-secret-${i}-${(i * 7919).toString(36)}`, 2, {});
      return {
        drift: [
          driftEntry(
            address,
            ['update'],
            parameter(i, `initial-secret-${i}`, 1, null),
            after,
            PARAMETER_MASK,
            PARAMETER_MASK,
          ),
        ],
        prior: [stateResource(address, after, PARAMETER_MASK)],
        config: [
          configEntry(address, {
            type: { constant_value: 'SecureString' },
            value: { constant_value: `initial-secret-${i}` },
          }),
        ],
      };
    }
    case 4: {
      const address = `aws_iam_role.app_${pad(i)}`;
      const after = role(i, TRUST_AS_STORED, 7200);
      return {
        drift: [driftEntry(address, ['update'], role(i, TRUST, 3600), after)],
        prior: [stateResource(address, after)],
        config: [configEntry(address, { assume_role_policy: { constant_value: TRUST } })],
      };
    }
    default: {
      const address = `aws_instance.web_${pad(i)}`;
      const after = instance(i, i % 12 === 5 ? 't3.large' : 't3.micro', {});
      return {
        drift: [driftEntry(address, ['update'], instance(i, 't3.micro', null), after)],
        prior: [stateResource(address, after)],
        config: [configEntry(address, { instance_type: { constant_value: 't3.micro' } })],
      };
    }
  }
}

/** Writes a plan section by section without ever holding it as one string. */
export async function writePlan(
  path: string,
  count: number,
  resourceAt: (i: number) => Generated,
): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 4 * 1024 * 1024 });
  const write = async (text: string) => {
    if (!out.write(text)) await new Promise<void>((done) => out.once('drain', done));
  };
  const section = async (header: string, pick: (generated: Generated) => unknown[], footer: string) => {
    await write(header);
    let first = true;
    for (let i = 0; i < count; i++) {
      for (const item of pick(resourceAt(i))) {
        await write(`${first ? '' : ','}${JSON.stringify(item)}`);
        first = false;
      }
    }
    await write(footer);
  };
  await write('{"format_version":"1.2","terraform_version":"1.11.4","planned_values":{"root_module":{}},');
  await section('"resource_drift":[', (generated) => generated.drift, '],');
  await section(
    '"prior_state":{"format_version":"1.0","terraform_version":"1.11.4","values":{"root_module":{"resources":[',
    (generated) => generated.prior,
    ']}}},',
  );
  await section(
    '"configuration":{"provider_config":{"aws":{"name":"aws","full_name":"registry.terraform.io/hashicorp/aws"}},"root_module":{"resources":[',
    (generated) => generated.config,
    ']}},',
  );
  await write('"timestamp":"2026-03-01T02:00:00Z","applyable":true,"complete":true,"errored":false}');
  await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
}

/** Objects with one big unchanged attribute (think inline file content) and a small drifted tag. */
function bigResource(i: number): Generated {
  const address = `aws_s3_object.blob_${pad(i)}`;
  const content = `${i}:`.padEnd(BIG_ATTRIBUTE_BYTES, 'abcdefghijklmnopqrstuvwxyz0123456789');
  const values = (owner: string) => ({
    bucket: 'artifacts',
    content,
    etag: `etag-${i}`,
    id: `blob-${i}`,
    key: `blobs/${i}`,
    tags: { Owner: owner },
    tags_all: { Owner: owner },
  });
  return {
    drift: [driftEntry(address, ['update'], values('payments'), values('someone-else'))],
    prior: [stateResource(address, values('someone-else'))],
    config: [configEntry(address, { key: { constant_value: `blobs/${i}` } })],
  };
}

// ---------------------------------------------------------------- child process side

const hashSensitive = createSensitiveHasher('benchmark-salt-0123456789');

async function child(mode: Mode, file: string): Promise<void> {
  const started = performance.now();
  const report: ChildReport = { ms: 0, maxRssMiB: 0 };
  try {
    if (mode === 'parse') {
      JSON.parse(readFileSync(file, 'utf8'));
    } else {
      const plan = await readPlanFile(file, {
        hashSensitive,
        inMemoryLimitBytes: mode === 'evaluate-in-memory' ? Number.POSITIVE_INFINITY : 0,
      });
      const result = evaluateCompactPlan(plan, {
        workspace: 'bench',
        owner: 'payments',
        environment: 'prod',
        policies: DEFAULT_POLICIES,
        now: new Date('2026-03-01T02:00:00Z'),
      });
      report.findings = result.findings.length;
    }
  } catch (error) {
    report.error = (error as Error).message;
  }
  report.ms = performance.now() - started;
  report.maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function runChild(mode: Mode, file: string): Promise<ChildReport> {
  return new Promise((done, fail) => {
    const processHandle = spawn(process.execPath, ['--import', 'tsx', THIS_FILE, '--child', mode, file], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    processHandle.stdout.on('data', (data: Buffer) => {
      output += data.toString();
    });
    processHandle.on('error', fail);
    processHandle.on('close', (code) => {
      const line = output.trim().split('\n').at(-1) ?? '';
      try {
        done(JSON.parse(line) as ChildReport);
      } catch {
        fail(new Error(`child ${mode} exited with ${code}: ${output}`));
      }
    });
  });
}

// ---------------------------------------------------------------- orchestration

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const fixed = (value: number, digits = 0) => value.toFixed(digits);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-bench-'));
  try {
    console.log(`# evaluate-plan benchmark (node ${process.version})`);

    const file = join(dir, 'plan-50k.json');
    let started = performance.now();
    await writePlan(file, RESOURCES, generateResourceAt);
    console.log(
      `\n## ${RESOURCES.toLocaleString('en')} drifted resources: ${mib(statSync(file).size)} written in ${fixed(performance.now() - started)} ms`,
    );

    const modes: Mode[] = ['parse', 'evaluate-in-memory', 'evaluate-streaming'];
    const reports = new Map<Mode, ChildReport[]>(modes.map((mode) => [mode, []]));
    for (let round = 0; round < RUNS; round++) {
      for (const mode of modes) reports.get(mode)!.push(await runChild(mode, file));
    }
    const parseMs = median(reports.get('parse')!.map((report) => report.ms));
    const parseRss = median(reports.get('parse')!.map((report) => report.maxRssMiB));
    console.log('| side | median ms | ratio to parse | peak RSS MiB | findings |');
    console.log('|---|---:|---:|---:|---:|');
    for (const mode of modes) {
      const runs = reports.get(mode)!;
      const failed = runs.find((report) => report.error);
      if (failed) {
        console.log(`| ${mode} | failed: ${failed.error} | | | |`);
        continue;
      }
      const ms = median(runs.map((report) => report.ms));
      const rss = median(runs.map((report) => report.maxRssMiB));
      const label =
        mode === 'parse'
          ? 'JSON.parse(readFileSync)'
          : mode === 'evaluate-in-memory'
            ? 'readPlanFile (in-memory) + evaluate'
            : 'readPlanFile (streaming, the default above 16 MiB) + evaluate';
      console.log(
        `| ${label} | ${fixed(ms)} | ${fixed(ms / parseMs, 2)}× | ${fixed(rss)} (${fixed(rss / parseRss, 2)}×) | ${runs[0]?.findings ?? '-'} |`,
      );
    }
    console.log('goal: evaluate ≤ 1.5× JSON.parse (readPlanFile streams plans of this size by default)');
    rmSync(file, { force: true });

    const big = join(dir, 'plan-big.json');
    started = performance.now();
    await writePlan(big, BIG_RESOURCES, bigResource);
    const bigSize = statSync(big).size;
    console.log(
      `\n## plan larger than V8's maximum string length: ${mib(bigSize)} written in ${fixed(performance.now() - started)} ms`,
    );
    const parsed = await runChild('parse', big);
    console.log(
      `JSON.parse(readFileSync): ${parsed.error ? `fails (${parsed.error})` : `${fixed(parsed.ms)} ms`}`,
    );
    const streamed = await runChild('evaluate-streaming', big);
    console.log(
      streamed.error
        ? `readPlanFile (streaming) + evaluate: failed: ${streamed.error}`
        : `readPlanFile (streaming) + evaluate: ${fixed(streamed.ms)} ms (${fixed(bigSize / 1024 / 1024 / (streamed.ms / 1000))} MiB/s), peak RSS ${fixed(streamed.maxRssMiB)} MiB (${fixed((streamed.maxRssMiB * 1024 * 1024) / bigSize, 2)}× the file size), ${streamed.findings} findings`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childIndex = process.argv.indexOf('--child');
if (childIndex >= 0) {
  await child(process.argv[childIndex + 1] as Mode, process.argv[childIndex + 2] ?? '');
} else if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await run();
}
