import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cleanUpInterruptedRun,
  sweepAbandonedDirs,
} from '../../../functions/adapters/terraform/interrupt-cleanup.js';
import { createTerraformRunner } from '../../../functions/adapters/terraform/runner.js';
import type { WorkspaceConfig } from '../../../functions/core/registry/model.js';
import { TerraformRunError } from '../../../functions/core/scan/ports.js';
import { hashSensitive, plan } from '../../helpers/plan-builders.js';
import { alive, sleep, useTempDirs, waitForPid } from '../../helpers/processes.js';

/**
 * A stand-in for terraform that records what the runner gave it. It writes the plan file under a
 * permissive umask (as terraform does under the usual 022, it would be readable by others).
 */
const FAKE_TERRAFORM = `#!/bin/sh
umask 000
rec="$FAKE_TF_RECORD"
case "$1" in
  init)
    echo "workdir $(stat -c %a "$(dirname "$TF_DATA_DIR")")" >> "$rec"
    echo "tmpdir $(stat -c %a "$TMPDIR") $TMPDIR" >> "$rec"
    ;;
  plan)
    for arg in "$@"; do case "$arg" in -out=*) out="\${arg#-out=}";; esac; done
    printf plan > "$out"
    echo "planfile $out" >> "$rec"
    if [ -n "$FAKE_TF_PLAN_BLOCKS" ]; then
      sleep 60 &
      echo $! > "$FAKE_TF_PLAN_BLOCKS"
      wait
    fi
    exit 2
    ;;
  show)
    for arg in "$@"; do planfile="$arg"; done
    echo "planmode $(stat -c %a "$planfile")" >> "$rec"
    cat "$FAKE_TF_PLAN_JSON"
    ;;
esac
`;

const tempDir = useTempDirs('driftwatch-runner-');

function setUp(options: { blockPlan?: boolean } = {}) {
  const base = tempDir();
  const workRoot = join(base, 'work');
  const source = join(base, 'source');
  mkdirSync(workRoot);
  mkdirSync(source);
  writeFileSync(join(source, 'main.tf'), 'terraform {\n  backend "s3" {}\n}\n');
  const terraform = join(base, 'terraform');
  writeFileSync(terraform, FAKE_TERRAFORM, { mode: 0o755 });
  const record = join(base, 'record');
  const planJson = join(base, 'plan.json');
  writeFileSync(planJson, JSON.stringify(plan()));
  // With blockPlan, the fake plan writes its plan file, then waits with a child (a provider).
  const blocked = join(base, 'blocked');
  const runner = createTerraformRunner({
    hashSensitive,
    registryDir: base,
    terraformBinary: terraform,
    workRoot,
    pluginCacheDir: join(base, 'plugin-cache'),
    baseEnv: {
      PATH: process.env.PATH,
      FAKE_TF_RECORD: record,
      FAKE_TF_PLAN_JSON: planJson,
      DRIFTWATCH_PROVIDER_MIRROR: '',
      ...(options.blockPlan ? { FAKE_TF_PLAN_BLOCKS: blocked } : {}),
    },
    commandTimeoutMs: 30_000,
  });
  const workspace: WorkspaceConfig = {
    id: 'cleanup-test',
    owner: 'platform',
    environment: 'prod',
    source: { dir: source },
    backend: { bucket: 'tfstate', key: 'cleanup/terraform.tfstate', region: 'eu-west-1' },
    routes: [],
    env: {},
    varFiles: [],
  };
  const recorded = (name: string) =>
    readFileSync(record, 'utf8')
      .split('\n')
      .find((line) => line.startsWith(`${name} `))
      ?.slice(name.length + 1);
  return { workRoot, runner, workspace, recorded, blocked };
}

describe('working directories of a scan killed outright (SIGKILL, out of memory)', () => {
  it('are removed by the next runner; those of live processes, other hosts or unmarked stay', async () => {
    const { workRoot, runner, workspace } = setUp();
    // A process that has exited: its pid is free, as a SIGKILLed scan's is.
    const dead = spawnSync('true').pid;
    const dirs = {
      killed: { pid: dead, host: hostname(), token: 'a' },
      // This process's pid in a directory of an earlier process (a restarted container reuses pids).
      earlierWithOurPid: { pid: process.pid, host: hostname(), token: 'earlier' },
      live: { pid: process.ppid, host: hostname(), token: 'b' },
      otherHost: { pid: dead, host: `not-${hostname()}`, token: 'c' },
      unmarked: undefined,
    };
    for (const [name, owner] of Object.entries(dirs)) {
      const dir = join(workRoot, `driftwatch-${name}-x1`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'scan-1.tfplan'), 'state values');
      if (owner) writeFileSync(join(dir, '.driftwatch-owner'), JSON.stringify(owner));
    }
    // What the killed scan's Terraform left running in its directory (its own process group), and a
    // shell someone opened there (spared: only terraform, tofu and their providers are killed).
    const killedDir = join(workRoot, 'driftwatch-killed-x1');
    const orphan = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
      argv0: 'terraform-provider-aws_v5.100.0_x5',
      cwd: killedDir,
      detached: true,
      stdio: 'ignore',
    });
    orphan.unref();
    const onlooker = spawn('sleep', ['60'], { cwd: killedDir, detached: true, stdio: 'ignore' });
    onlooker.unref();
    const survivor = spawn('sleep', ['60'], {
      cwd: join(workRoot, 'driftwatch-live-x1'),
      detached: true,
      stdio: 'ignore',
    });
    survivor.unref();
    let prepared: Awaited<ReturnType<typeof runner.prepare>>;
    try {
      prepared = await runner.prepare(workspace, undefined);
      await sleep(100);
      expect(alive(orphan.pid!)).toBe(false);
      expect(alive(onlooker.pid!)).toBe(true);
      expect(alive(survivor.pid!)).toBe(true);
    } finally {
      for (const child of [orphan, onlooker, survivor]) child.kill('SIGKILL');
    }
    // The open run's directory is marked as this process's: another runner here leaves it alone.
    expect(await sweepAbandonedDirs(workRoot, 'driftwatch-')).toEqual([]);
    expect(readdirSync(workRoot).filter((name) => name.startsWith('driftwatch-cleanup-test-'))).toHaveLength(
      1,
    );
    await prepared.close();
    expect(readdirSync(workRoot).sort()).toEqual([
      'driftwatch-live-x1',
      'driftwatch-otherHost-x1',
      'driftwatch-unmarked-x1',
    ]);
  });
});

describe('Terraform runner files', () => {
  it('keeps plan files 0600 and its directories 0700 whatever the umask, and removes them', async () => {
    const { workRoot, runner, workspace, recorded } = setUp();
    // A umask that strips the owner's own bits: modes must come from explicit chmods, not from it.
    const previous = process.umask(0o277);
    try {
      const prepared = await runner.prepare(workspace, undefined);
      await prepared.plan();
      await prepared.close();
    } finally {
      process.umask(previous);
    }
    expect(recorded('workdir')).toBe('700');
    // Terraform's and the providers' temp files (go-plugin sockets) go under the working directory.
    const [tmpMode, tmpPath] = recorded('tmpdir')!.split(' ');
    expect(tmpMode).toBe('700');
    expect(dirname(tmpPath!)).toBe(dirname(recorded('planfile')!));
    expect(recorded('planmode')).toBe('600');
    expect(readdirSync(workRoot)).toEqual([]);
  });

  it('a work root (TMPDIR) that does not exist or is a file: a failed scan naming it and the fix, not a raw mkdtemp error', async () => {
    const { workspace } = setUp();
    const base = tempDir();
    writeFileSync(join(base, 'a-file'), '');
    for (const [workRoot, what] of [
      [join(base, 'missing'), 'it does not exist'],
      [join(base, 'a-file'), 'it, or a directory above it, is a file'],
    ]) {
      const runner = createTerraformRunner({ hashSensitive, registryDir: base, workRoot });
      const error = await runner.prepare(workspace, undefined).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TerraformRunError);
      expect(error).toMatchObject({
        stage: 'source',
        reason: `cannot create the scan's working directory in ${workRoot} (${what}): set TMPDIR to a writable directory with room for a checkout and its providers (~1 GB)`,
      });
    }
  });

  it('a plugin cache (TF_PLUGIN_CACHE_DIR) below a file: a failed scan naming it and the fix, not a raw mkdir error', async () => {
    const { workspace, workRoot } = setUp();
    const base = tempDir();
    writeFileSync(join(base, 'a-file'), '');
    const pluginCacheDir = join(base, 'a-file', 'cache');
    const runner = createTerraformRunner({ hashSensitive, registryDir: base, workRoot, pluginCacheDir });
    const error = await runner.prepare(workspace, undefined).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TerraformRunError);
    expect(error).toMatchObject({
      stage: 'init',
      reason: `cannot use the plugin cache ${pluginCacheDir} (it, or a directory above it, is a file): set TF_PLUGIN_CACHE_DIR to a writable directory with room for the providers (~1 GB)`,
    });
    // Its working directory went with the failure.
    expect(readdirSync(workRoot)).toEqual([]);
  });

  it('an interrupted plan: its process group is killed and the working directory, plan file included, is gone at once', async () => {
    const { workRoot, runner, workspace, recorded, blocked } = setUp({ blockPlan: true });
    const prepared = await runner.prepare(workspace, undefined);
    const planning = prepared.plan().catch((error: unknown) => error);
    const sleeper = await waitForPid(blocked);
    const planFile = recorded('planfile')!;
    expect(existsSync(planFile)).toBe(true);

    cleanUpInterruptedRun();

    // Synchronously: by the time process.exit runs, nothing is left.
    expect(readdirSync(workRoot)).toEqual([]);
    expect(existsSync(planFile)).toBe(false);
    await planning;
    await sleep(200);
    expect(alive(sleeper)).toBe(false);
  });
});
