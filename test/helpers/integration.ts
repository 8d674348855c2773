import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, inject } from 'vitest';
import { type MotoServer, motoEnvironment, startMoto } from '../../cli/demo/moto.js';
import { createStateBucket } from '../../cli/demo/provision.js';
import { type NodeRun, runNode } from './processes.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const STATE_BUCKET = 'tfstate';
export const REGION = 'eu-west-1';

export interface MotoContext {
  moto: MotoServer;
  env: Record<string, string>;
  s3: S3Client;
}

/**
 * Go's garbage collection for every Terraform (and provider) a test file starts: a Terraform command
 * lives seconds, and the AWS provider spends about a third of its CPU collecting the garbage of
 * building its schema. Off below a soft limit, collection frees little that exit would not (measured:
 * a refresh-only plan and its `show -json` take about 30% less CPU, ~130 MB more memory at peak).
 * Staging and held applies inherit them; driftwatch's own runs get them through DRIFTWATCH_PASS_ENV,
 * the operator's way to add names to what a run inherits (run-environment.ts), as an operator could.
 */
export const TERRAFORM_GC_ENV = { GOGC: 'off', GOMEMLIMIT: '1GiB' } as const;

/** TERRAFORM_GC_ENV into this process's environment, and named for driftwatch's runs to inherit. */
function setTerraformGc(): void {
  Object.assign(process.env, TERRAFORM_GC_ENV);
  const passed = (process.env.DRIFTWATCH_PASS_ENV ?? '').split(',').filter(Boolean);
  process.env.DRIFTWATCH_PASS_ENV = [...new Set([...passed, ...Object.keys(TERRAFORM_GC_ENV)])].join(',');
}

/**
 * An empty AWS per test file (files run in parallel; each gets its own), with a versioned state
 * bucket: one of the run's shared moto servers (test/global-moto.ts), claimed and reset, or one
 * started for this file. Points this process's AWS SDK and every Terraform it starts at it, and sets
 * those Terraform runs' garbage collection (TERRAFORM_GC_ENV).
 */
export function useMoto(): MotoContext {
  const context = {} as MotoContext;
  beforeAll(async () => {
    assertTerraformInstalled();
    context.moto = await claimMoto();
    context.env = motoEnvironment(context.moto.endpoint, REGION);
    for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN']) delete process.env[name];
    Object.assign(process.env, context.env);
    setTerraformGc();
    context.s3 = new S3Client({});
    await createStateBucket(context.s3, STATE_BUCKET, REGION);
  });
  afterAll(async () => {
    await context.moto?.stop();
  });
  return context;
}

/**
 * A shared moto no other file is using, claimed (an atomic mkdir in the run's claim directory) and
 * emptied, or a moto of this file's own when none is free or the run provides none. Claims, not
 * VITEST_POOL_ID: with two projects in one run, concurrent files can see the same pool id.
 */
async function claimMoto(): Promise<MotoServer> {
  const shared = inject('sharedMoto');
  for (const [index, endpoint] of (shared?.endpoints ?? []).entries()) {
    const claim = join(shared!.claims, String(index));
    try {
      mkdirSync(claim);
    } catch {
      continue;
    }
    const reset = async () => {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`moto reset failed (HTTP ${response.status}) at ${endpoint}`);
    };
    await reset();
    return {
      endpoint,
      port: Number(new URL(endpoint).port),
      reset,
      // The run's globalSetup stops it; a file hands it on to the next one.
      stop: async () => rmSync(claim, { recursive: true, force: true }),
    };
  }
  return startMoto({ timeoutMs: 120_000 });
}

/** Integration tests run the real binary; say so plainly when it is missing. */
function assertTerraformInstalled(): void {
  try {
    execFileSync('terraform', ['version'], {
      stdio: 'ignore',
      env: { ...process.env, CHECKPOINT_DISABLE: '1' },
    });
  } catch {
    throw new Error(
      'terraform is not on PATH: integration tests run real Terraform (>= 1.5). Install it, then rerun npm test.',
    );
  }
}

/** Every object version and delete marker of a bucket: proof that a scan wrote nothing. */
export async function bucketVersions(s3: S3Client, bucket: string): Promise<string[]> {
  const entries: string[] = [];
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectVersionsCommand({
        Bucket: bucket,
        KeyMarker: keyMarker,
        VersionIdMarker: versionIdMarker,
      }),
    );
    for (const version of page.Versions ?? [])
      entries.push(`${version.Key}@${version.VersionId}:${version.ETag}`);
    for (const marker of page.DeleteMarkers ?? []) entries.push(`${marker.Key}@${marker.VersionId}:deleted`);
    keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    versionIdMarker = page.IsTruncated ? page.NextVersionIdMarker : undefined;
  } while (keyMarker);
  return entries.sort();
}

export type CliRun = NodeRun;

/** Runs the real `driftwatch` binary, as a user would. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  return runNode([join(REPO_ROOT, 'bin', 'driftwatch.js'), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
  });
}

/** A temporary directory removed after the file's tests. */
export function useTempDir(prefix = 'driftwatch-test-'): { path: string } {
  const holder = { path: '' };
  beforeAll(() => {
    holder.path = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    rmSync(holder.path, { recursive: true, force: true });
  });
  return holder;
}

/** Concatenated text of every file under a directory (to search a store for leaked secrets). */
export function allFileText(dir: string): string {
  let text = '';
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    text += statSync(path).isDirectory() ? allFileText(path) : `${readFileSync(path, 'utf8')}\n`;
  }
  return text;
}

/** A unique secret for one test run, easy to search for and impossible to meet by accident. */
export function canary(label: string): string {
  return `CANARY-${label}-${Math.random().toString(36).slice(2, 10)}`;
}

export interface TestWorkspace {
  id: string;
  /** Terraform root under test/integration/terraform. */
  dir: string;
  owner?: string;
  environment?: string;
  env?: Record<string, string>;
  /** Extra YAML lines for the entry, indented as its keys (`    terraformVersion: 1.2.3`). */
  extra?: string[];
}

/** The head of every test registry: version and the owners platform (fallback) and payments. */
export const TEST_REGISTRY_OWNERS = [
  'version: 1',
  'owners:',
  '  fallback: platform',
  '  teams:',
  '    - { id: platform, destinations: [{ type: email, address: platform@example.com }] }',
  '    - { id: payments, destinations: [{ type: email, address: payments@example.com }] }',
];

/** Writes a registry for test workspaces (owners platform and payments; state in STATE_BUCKET). */
export function writeRegistry(path: string, workspaces: TestWorkspace[]): string {
  const lines = [
    ...TEST_REGISTRY_OWNERS,
    'workspaces:',
    ...workspaces.flatMap((workspace) => [
      `  - id: ${workspace.id}`,
      `    owner: ${workspace.owner ?? 'platform'}`,
      `    environment: ${workspace.environment ?? 'prod'}`,
      `    source: { dir: ${JSON.stringify(join(REPO_ROOT, 'test/integration/terraform', workspace.dir))} }`,
      `    backend: { bucket: ${STATE_BUCKET}, key: ${workspace.id}/terraform.tfstate, region: ${REGION} }`,
      `    env: ${JSON.stringify(workspace.env ?? {})}`,
      ...(workspace.extra ?? []),
    ]),
    '',
  ];
  writeFileSync(path, lines.join('\n'));
  return path;
}
