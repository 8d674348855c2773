import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { findProviderMirror, RUNNER_PLATFORM } from '../../functions/adapters/terraform/cli-config.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  type CliRun,
  REGION,
  runCli,
  STATE_BUCKET,
  TEST_REGISTRY_OWNERS,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';
import {
  buildFilesystemMirror,
  type MirroredProvider,
  type NetworkMirror,
  selfSignedCertificate,
  serveNetworkMirror,
} from '../helpers/provider-mirror.js';

/**
 * Providers come from whatever the workspace's lock file selects. This machine has no internet and
 * one copy of hashicorp/aws, so the test publishes that copy under its own version and under a
 * second, made-up one (hard links, never a copy of ~700 MB), as a filesystem mirror and as a network
 * mirror served over HTTPS with a self-signed CA (given to Terraform through SSL_CERT_FILE, which Go
 * honours on Linux). Each workspace's lock file is made by `terraform providers lock` against the
 * mirror, for this platform only. All scans of the file run in one beforeAll, in parallel.
 */
const aws = useMoto();
const temp = useTempDir('driftwatch-provider-mirror-');
const AWS = 'registry.terraform.io/hashicorp/aws';

/** The local provider package (unpacked) and its version. */
function localProvider(): { from: string; version: string } {
  const mirror = findProviderMirror(process.env);
  if (!mirror || /^https:/i.test(mirror))
    throw new Error(
      'this test publishes the local hashicorp/aws filesystem mirror: set DRIFTWATCH_PROVIDER_MIRROR to it',
    );
  const versions = join(mirror, AWS);
  for (const version of readdirSync(versions)) {
    const from = join(versions, version, RUNNER_PLATFORM);
    if (existsSync(from) && readdirSync(from).some((name) => name.startsWith('terraform-provider-aws')))
      return { from, version };
  }
  throw new Error(`no unpacked hashicorp/aws for ${RUNNER_PLATFORM} under ${versions}`);
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

interface Scan {
  run: CliRun;
  findings: Finding[];
}

const state = {} as {
  version: string;
  second: string;
  mirrorDir: string;
  network: NetworkMirror;
  lockHashes: Record<string, string>;
  fsScan: Scan;
  networkScan: Scan;
};

function workspaceDir(name: string, constraint: string): string {
  const dir = join(temp.path, 'workspaces', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'main.tf'),
    [
      'terraform {',
      `  required_providers {\n    aws = { source = "hashicorp/aws", version = "${constraint}" }\n  }`,
      '  backend "s3" {\n    use_lockfile = true\n  }',
      '}',
      `provider "aws" {\n  region = "${REGION}"\n}`,
      // Read at every plan: the provider must have been installed and must run.
      'data "aws_caller_identity" "current" {}',
      '',
    ].join('\n'),
  );
  return dir;
}

async function terraform(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const result = await runProcess('terraform', [...args, '-no-color'], {
    cwd,
    env: { ...env, CHECKPOINT_DISABLE: '1' },
    timeoutMs: 120_000,
  });
  if (result.exitCode !== 0) throw new Error(`terraform ${args.join(' ')}: ${result.stderr}`);
}

/** The state an apply of a configuration without resources leaves (no apply: it costs a provider start). */
async function writeEmptyState(name: string): Promise<void> {
  const body = JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial: 1,
    lineage: randomUUID(),
    outputs: {},
    resources: [],
    check_results: null,
  });
  await aws.s3.send(
    new PutObjectCommand({ Bucket: STATE_BUCKET, Key: `${name}/terraform.tfstate`, Body: body }),
  );
}

function registry(file: string, providerMirror: string, workspaces: string[]): string {
  const lines = [
    ...TEST_REGISTRY_OWNERS,
    `providerMirror: ${JSON.stringify(providerMirror)}`,
    'workspaces:',
    ...workspaces.flatMap((name) => [
      `  - id: ${name}`,
      '    owner: platform',
      '    environment: prod',
      `    source: { dir: ${JSON.stringify(join(temp.path, 'workspaces', name))} }`,
      `    backend: { bucket: ${STATE_BUCKET}, key: ${name}/terraform.tfstate, region: ${REGION} }`,
    ]),
    '',
  ];
  const path = join(temp.path, file);
  writeFileSync(path, lines.join('\n'));
  return path;
}

async function scan(registryPath: string, env: Record<string, string>): Promise<Scan> {
  const run = await runCli(
    ['scan', '--registry', registryPath, '--store', `${registryPath}.store`, '--format', 'json'],
    { env: { DRIFTWATCH_HASH_SALT: 'integration-test-salt-mirror', ...env } },
  );
  let findings: Finding[];
  try {
    findings = JSON.parse(run.stdout) as Finding[];
  } catch {
    throw new Error(`scan printed no JSON (exit ${run.code}): ${run.stderr}`);
  }
  return { run, findings };
}

/** What the Terraform scan of a workspace found (the state bucket's own policy findings aside). */
const TERRAFORM_KINDS = new Set(['terraform-drift', 'pending-change', 'scan-failed']);
const of = (scanned: Scan, workspace: string) =>
  scanned.findings.filter((finding) => finding.workspace === workspace && TERRAFORM_KINDS.has(finding.kind));

beforeAll(async () => {
  const local = localProvider();
  const [major, minor] = local.version.split('.');
  state.version = local.version;
  // A version the origin registry never had: only the test's mirrors can provide it.
  state.second = `${major}.${minor}.99`;
  const providers: MirroredProvider[] = [state.version, state.second].map((version) => ({
    address: AWS,
    version,
    platform: RUNNER_PLATFORM,
    from: local.from,
  }));
  state.mirrorDir = join(temp.path, 'mirror');
  buildFilesystemMirror(state.mirrorDir, providers);
  const certificate = selfSignedCertificate(temp.path);
  state.network = await serveNetworkMirror(providers, certificate);

  // pinned-first / pinned-second: exact versions with lock files (a workspace without one is what every
  // other integration file scans);
  // foreign-lock: a lock file made for another platform only (its h1 is of no package here).
  const dirs = {
    'pinned-first': workspaceDir('pinned-first', state.version),
    'pinned-second': workspaceDir('pinned-second', state.second),
    'foreign-lock': workspaceDir('foreign-lock', state.version),
  };
  const lock = (dir: string) =>
    terraform(['providers', 'lock', `-fs-mirror=${state.mirrorDir}`, `-platform=${RUNNER_PLATFORM}`], dir);
  await Promise.all([
    lock(dirs['pinned-first']),
    lock(dirs['pinned-second']),
    ...['pinned-first', 'pinned-second', 'foreign-lock'].map(writeEmptyState),
  ]);
  writeFileSync(
    join(dirs['foreign-lock'], '.terraform.lock.hcl'),
    readFileSync(join(dirs['pinned-first'], '.terraform.lock.hcl'), 'utf8').replace(
      /"h1:[^"]+"/,
      '"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="',
    ),
  );
  state.lockHashes = Object.fromEntries(
    ['pinned-first', 'pinned-second', 'foreign-lock'].map((name) => [
      name,
      sha256(join(dirs[name as keyof typeof dirs], '.terraform.lock.hcl')),
    ]),
  );

  // Both scans at once, each with a plugin cache of its own (the network one starts empty, so every
  // package it installs comes over HTTPS). The network scan also has the local provider as a warm
  // copy: the lock file pinned to that version takes it from there, the other from the mirror.
  [state.fsScan, state.networkScan] = await Promise.all([
    scan(registry('fs.yaml', state.mirrorDir, ['pinned-first', 'pinned-second', 'foreign-lock']), {
      TF_PLUGIN_CACHE_DIR: join(temp.path, 'fs-cache'),
    }),
    scan(registry('network.yaml', state.network.url, ['pinned-first', 'pinned-second']), {
      TF_PLUGIN_CACHE_DIR: join(temp.path, 'network-cache'),
      SSL_CERT_FILE: certificate.caFile,
      DRIFTWATCH_PROVIDER_WARM_CACHE: join(local.from, '..', '..', '..', '..', '..'),
    }),
  ]);
  await state.network.close();
}, 240_000);

describe('providers: whatever the lock file selects (real terraform, local mirrors)', () => {
  it('two workspaces pinned to two versions of the same provider both scan from a filesystem mirror, with no drift', () => {
    const { findings, run } = state.fsScan;
    expect(of(state.fsScan, 'pinned-first'), run.stderr).toEqual([]);
    expect(of(state.fsScan, 'pinned-second'), run.stderr).toEqual([]);
    expect(
      findings.filter((finding) => finding.kind === 'scan-failed').map((finding) => finding.workspace),
    ).toEqual(['foreign-lock']);
  });

  it('a lock file without checksums for this platform is one scan-failed finding that names the fix', () => {
    const failed = of(state.fsScan, 'foreign-lock');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.init-failed' });
    const text = JSON.stringify(failed[0]);
    expect(text).toContain(`the lock file has no checksum for ${RUNNER_PLATFORM} of ${AWS} ${state.version}`);
    expect(text).toContain(`terraform providers lock -platform=${RUNNER_PLATFORM}`);
    expect(state.fsScan.run.code).toBe(1);
  });

  it('lock files are honoured and never rewritten', () => {
    for (const [name, hash] of Object.entries(state.lockHashes))
      expect(sha256(join(temp.path, 'workspaces', name, '.terraform.lock.hcl'))).toBe(hash);
  });

  it('a network mirror over HTTPS with a self-signed CA serves what the warm copy does not hold', () => {
    const { run } = state.networkScan;
    expect(of(state.networkScan, 'pinned-first'), run.stderr).toEqual([]);
    expect(of(state.networkScan, 'pinned-second'), run.stderr).toEqual([]);
    // No failed scan (1); the state bucket's policy findings may make it 2.
    expect(run.code).not.toBe(1);
    const zips = new Set(state.network.requests.filter((path) => path.endsWith('.zip')));
    // The second version came over HTTPS; the first, locked with the warm copy's h1, from the warm copy.
    expect([...zips]).toEqual([`/${AWS}/terraform-provider-aws_${state.second}_${RUNNER_PLATFORM}.zip`]);
  });
});
