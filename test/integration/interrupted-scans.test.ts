import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { basename, join } from 'node:path';
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../functions/adapters/logger.js';
import { createTerraformRunner } from '../../functions/adapters/terraform/runner.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import type { WorkspaceConfig } from '../../functions/core/registry/model.js';
import { TerraformRunError } from '../../functions/core/scan/ports.js';
import {
  REGION,
  REPO_ROOT,
  STATE_BUCKET,
  useMoto,
  useTempDir,
  writeRegistry,
} from '../helpers/integration.js';

/**
 * Interrupted scans leave nothing behind: real `driftwatch scan` runs, killed with SIGINT or SIGTERM
 * while Terraform is in init, plan and show, and a run whose command timeout fires. Afterwards no
 * process of the run is left, its temporary directory (plan files in it) is gone, and the plugin
 * cache lock is released, so the next scan does not wait for it.
 */
const aws = useMoto();
const temp = useTempDir('driftwatch-interrupted-');
let runTmp: string;
let pluginCache: string;
let registry: string;

beforeAll(() => {
  // The scan's TMPDIR is ours, so "nothing left behind" is "nothing in it"; the plugin cache is
  // ours, so its lock is only ever held by these runs. (A fresh cache links the provider mirror.)
  runTmp = join(temp.path, 'tmp');
  pluginCache = join(temp.path, 'plugin-cache');
  mkdirSync(runTmp);
  registry = writeRegistry(join(temp.path, 'driftwatch.yaml'), [
    { id: 'interrupted', dir: 'minimal', env: { TF_VAR_name: 'interrupted-bucket' } },
  ]);
});

const lockFile = () => join(pluginCache, '.driftwatch-init.lock');

/**
 * Every run gets a marker in its environment; the processes carrying one are this file's. Terraform
 * runs inherit only an allowlist of driftwatch's environment, so the CLI is told to pass it on.
 */
const markers: string[] = [];
function newMarker(): { marker: string; env: Record<string, string> } {
  const value = randomBytes(6).toString('hex');
  markers.push(`DRIFTWATCH_TEST_RUN=${value}`);
  return {
    marker: `DRIFTWATCH_TEST_RUN=${value}`,
    env: { DRIFTWATCH_TEST_RUN: value, DRIFTWATCH_PASS_ENV: 'DRIFTWATCH_TEST_RUN' },
  };
}

interface RunProcess {
  pid: number;
  argv: string[];
}

/**
 * Live processes started for one run, found by a marker in their environment: Terraform passes
 * its environment on to the providers, and the marker survives their parent dying (ancestry does not).
 */
function processesOf(marker: string): RunProcess[] {
  const found: RunProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(marker)) continue;
      const state = /State:\s+(\w)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (state === 'Z' || state === 'X') continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(entry), argv });
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

const isTerraform = (stage: string) => (process: RunProcess) =>
  basename(process.argv[0] ?? '') === 'terraform' && process.argv[1] === stage;
const isProvider = (process: RunProcess) => (process.argv[0] ?? '').includes('terraform-provider-aws');

/** Polls until `ready` holds (generous: start-up on a loaded machine takes seconds) or the run ends. */
async function waitFor(ready: () => boolean, ended: () => boolean, what: string, output: () => string) {
  const deadline = Date.now() + 120_000;
  while (!ready()) {
    if (ended()) throw new Error(`the scan ended before ${what}:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within 120 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits (bounded) for processes killed a moment ago to be gone, and returns any that are not. */
async function leftovers(marker: string): Promise<RunProcess[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const left = processesOf(marker);
    if (left.length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return processesOf(marker);
}

/** What the run left in its TMPDIR (the compiled CLI writes nothing there of its own). */
function leftInTmp(): string[] {
  return readdirSync(runTmp);
}

function planFiles(): string[] {
  return readdirSync(runTmp, { recursive: true, encoding: 'utf8' }).filter((path) =>
    path.endsWith('.tfplan'),
  );
}

/** `driftwatch scan --format json` of this file's registry, as a user runs it, with a run marker. */
function startScan(store: string, markerEnv: Record<string, string>, registryPath = registry) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'bin', 'driftwatch.js'),
      'scan',
      '--registry',
      registryPath,
      '--store',
      join(temp.path, store),
      '--format',
      'json',
    ],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        TMPDIR: runTmp,
        TF_PLUGIN_CACHE_DIR: pluginCache,
        DRIFTWATCH_HASH_SALT: 'integration-test-salt-0007',
        ...markerEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stdout = { text: '' };
  const stderr = { text: '' };
  child.stdout?.on('data', (chunk) => {
    stdout.text += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr.text += chunk;
  });
  let exitCode: number | null | undefined;
  // 'close', not 'exit': the output is whole only once the pipes are drained.
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (exit) => {
      exitCode = exit;
      resolve(exit);
    }),
  );
  return { child, exited, ended: () => exitCode !== undefined, stdout, stderr };
}

describe('interrupted scans leave nothing behind', () => {
  const cases = [
    { stage: 'init', signal: 'SIGINT', code: 130 },
    { stage: 'plan', signal: 'SIGTERM', code: 143 },
    { stage: 'show', signal: 'SIGINT', code: 130 },
  ] as const;

  it.each(cases)('killed with $signal during terraform $stage', async ({ stage, signal, code }) => {
    const { marker, env: markerEnv } = newMarker();
    const { child, exited, ended, stderr: output } = startScan(`store-${stage}`, markerEnv);
    const stderr = () => output.text;

    // Plans and shows are killed with the provider up, so that it is part of what must go.
    await waitFor(
      () => {
        const running = processesOf(marker);
        return running.some(isTerraform(stage)) && (stage !== 'plan' || running.some(isProvider));
      },
      ended,
      `terraform ${stage}`,
      stderr,
    );
    // Premises: init runs under the plugin cache lock, held by the CLI; show reads a plan file.
    if (stage === 'init') expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(child.pid);
    if (stage === 'show') expect(planFiles()).not.toEqual([]);
    child.kill(signal);

    expect(await exited).toBe(code);
    expect(await leftovers(marker)).toEqual([]);
    expect(planFiles()).toEqual([]);
    expect(leftInTmp()).toEqual([]);
    expect(existsSync(lockFile())).toBe(false);
    // The previous run released the lock itself: this one neither waited nor took it over.
    expect(stderr()).not.toMatch(/waiting for the plugin cache lock|took over a stale plugin cache lock/);
  });

  it('terraform alone killed outright during plan (the out-of-memory killer): a scan-failed finding that says so, nothing left', async () => {
    const { marker, env: markerEnv } = newMarker();
    const { exited, ended, stdout, stderr } = startScan('store-oom', markerEnv);
    await waitFor(
      () => processesOf(marker).some(isTerraform('plan')) && processesOf(marker).some(isProvider),
      ended,
      'terraform plan',
      () => stderr.text,
    );
    // Terraform only, as the kernel kills the process that grew: not its group, not the CLI.
    for (const { pid } of processesOf(marker).filter(isTerraform('plan'))) process.kill(pid, 'SIGKILL');

    expect(await exited).toBe(1);
    const failed = (JSON.parse(stdout.text) as Finding[]).filter(
      (finding) => finding.workspace === 'interrupted',
    );
    expect(failed).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.plan-failed' })]);
    expect(failed[0]!.evidence.reason).toMatch(
      /^terraform plan was killed \(SIGKILL\) before it finished: the out-of-memory killer is the usual cause/,
    );
    expect(await leftovers(marker)).toEqual([]);
    expect(planFiles()).toEqual([]);
    expect(leftInTmp()).toEqual([]);
    expect(existsSync(lockFile())).toBe(false);
  });

  it('its provider killed outright mid-call (the out-of-memory killer takes the largest process): the failed scan says what likely killed it', async () => {
    // The provider waits on a data source read from an endpoint that never answers: it is mid-call.
    const connections: Socket[] = [];
    const blackhole: Server = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as { port: number }).port;
    const hanging = writeRegistry(join(temp.path, 'provider-killed.yaml'), [
      { id: 'provider-killed', dir: 'hanging-read', env: { TF_VAR_s3_endpoint: `http://127.0.0.1:${port}` } },
    ]);
    const { marker, env: markerEnv } = newMarker();
    const { exited, ended, stdout, stderr } = startScan('store-provider-killed', markerEnv, hanging);
    try {
      await waitFor(
        () => connections.length > 0 && processesOf(marker).some(isProvider),
        ended,
        'the provider reading the data source',
        () => stderr.text,
      );
      for (const { pid } of processesOf(marker).filter(isProvider)) process.kill(pid, 'SIGKILL');

      expect(await exited).toBe(1);
      const failed = (JSON.parse(stdout.text) as Finding[]).filter(
        (finding) => finding.workspace === 'provider-killed',
      );
      expect(failed).toEqual([expect.objectContaining({ kind: 'scan-failed' })]);
      // Terraform's words (which of the two depends on whether the connection closed first), then
      // what they leave out.
      expect(failed[0]!.detail).toMatch(/Error: (Plugin did not respond|Request cancelled)/);
      expect(failed[0]!.detail).toContain(
        '(driftwatch: a provider that stops answering without a crash report was killed, most often by the out-of-memory killer',
      );
      expect(await leftovers(marker)).toEqual([]);
      expect(leftInTmp()).toEqual([]);
    } finally {
      for (const socket of connections) socket.destroy();
      await new Promise((resolve) => blackhole.close(resolve));
    }
  });

  it("the runner's command timeout kills the process group, removes the working directory and releases the lock", async () => {
    // An endpoint that accepts connections and never answers: the S3 backend hangs in init.
    const sockets: Socket[] = [];
    const blackhole: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as { port: number }).port;
    const { marker, env: markerEnv } = newMarker();
    const workRoot = join(temp.path, 'timeout-work');
    mkdirSync(workRoot);
    const lines: string[] = [];
    const runner = createTerraformRunner({
      hashSensitive: createSensitiveHasher('integration-test-salt-0008'),
      registryDir: REPO_ROOT,
      workRoot,
      pluginCacheDir: pluginCache,
      commandTimeoutMs: 5_000,
      baseEnv: { ...process.env, ...markerEnv },
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    const workspace: WorkspaceConfig = {
      id: 'timed-out',
      owner: 'platform',
      environment: 'prod',
      source: { dir: join(REPO_ROOT, 'test/integration/terraform/minimal') },
      backend: { bucket: STATE_BUCKET, key: 'timed-out/terraform.tfstate', region: REGION },
      routes: [],
      env: { AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`, TF_VAR_name: 'timed-out' },
      varFiles: [],
    };
    try {
      const error = await runner.prepare(workspace, undefined).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(TerraformRunError);
      expect(error).toMatchObject({
        stage: 'init',
        reason: expect.stringContaining('terraform init did not finish in'),
      });
      expect(await leftovers(marker)).toEqual([]);
      expect(readdirSync(workRoot)).toEqual([]);
      expect(existsSync(lockFile())).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackhole.close(resolve));
    }
  });
  it('a plan stopped at its time limit writes no state into the backend, not even a first empty one', async () => {
    // Terraform answers SIGTERM during a plan by persisting its state: for a key with no state yet
    // that is a new empty state, which later scans would read as "no drift" (scan.state-missing gone).
    const connections: Socket[] = [];
    const blackhole: Server = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as { port: number }).port;
    const { marker, env: markerEnv } = newMarker();
    const workRoot = join(temp.path, 'plan-timeout-work');
    mkdirSync(workRoot);
    // The clock gives init all the time it needs and the plan 30 s from when it starts: enough to
    // start the provider and hang on the data source, checked below before anything else.
    const start = Date.now();
    const deadline = start + 60 * 60_000;
    let planning = false;
    const runner = createTerraformRunner({
      hashSensitive: createSensitiveHasher('integration-test-salt-0008'),
      registryDir: REPO_ROOT,
      workRoot,
      pluginCacheDir: pluginCache,
      deadline: { atMs: deadline, now: () => (planning ? deadline - 30_000 : start) },
      baseEnv: { ...process.env, ...markerEnv },
    });
    const key = 'plan-timed-out/terraform.tfstate';
    const workspace: WorkspaceConfig = {
      id: 'plan-timed-out',
      owner: 'platform',
      environment: 'prod',
      source: { dir: join(REPO_ROOT, 'test/integration/terraform/hanging-read') },
      backend: { bucket: STATE_BUCKET, key, region: REGION },
      routes: [],
      env: { TF_VAR_s3_endpoint: `http://127.0.0.1:${port}` },
      varFiles: [],
    };
    try {
      const prepared = await runner.prepare(workspace, undefined);
      planning = true;
      const error = await prepared.plan().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      await prepared.close();
      // Premise: the plan was stopped while its provider waited on the endpoint, its state loaded.
      expect(connections.length).toBeGreaterThan(0);
      expect(error).toMatchObject({ stage: 'plan', timedOut: true });
      const versions = await aws.s3.send(
        new ListObjectVersionsCommand({ Bucket: STATE_BUCKET, Prefix: key }),
      );
      expect([...(versions.Versions ?? []), ...(versions.DeleteMarkers ?? [])]).toEqual([]);
      expect(await leftovers(marker)).toEqual([]);
      expect(readdirSync(workRoot)).toEqual([]);
    } finally {
      for (const socket of connections) socket.destroy();
      await new Promise((resolve) => blackhole.close(resolve));
    }
  });
});

afterAll(() => {
  // Nothing this file started may outlive it, whatever failed above.
  for (const marker of markers) {
    for (const { pid } of processesOf(marker)) process.kill(pid, 'SIGKILL');
  }
});
