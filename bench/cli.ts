/**
 * Benchmark: the compiled `driftwatch` binary as a whole process, against plain Node doing the least
 * it could, measured side by side in one run (issue 12 §3 and §4):
 *
 * 1. start-up: `driftwatch --help` versus `node -e 0`. Goal: ≤ 0.15 s on 2 cores.
 * 2. `driftwatch findings --store <local store>` (a command reading findings) versus `node -e 0`:
 *    what a store command costs before it reads anything (it loads no AWS SDK for a directory).
 * 3. `driftwatch evaluate-plan <50,000-resource plan> --format json > file` versus
 *    `node -e "JSON.parse(fs.readFileSync(f, 'utf8'))"` on the same file. Goal: ≤ 1.5×.
 *
 * Each pair runs alternately RUNS times and the medians are compared, in wall time and in CPU time
 * (user + system of the child, from /proc on Linux): on a shared, loaded machine wall time swings
 * with the neighbours, CPU time much less. The load average is printed with the results. Nothing is
 * asserted. Needs the build (`npm run build`); the plan is generated (bench/evaluate-plan.ts) into
 * os.tmpdir() and deleted afterwards.
 *
 * Run: `node bin/run-ts.js bench/cli.ts` (or through bench/run.ts, which calls `run()`).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createFsObjectStore } from '../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../functions/core/findings/findings-store.js';
import { driftDraft } from '../test/helpers/findings.js';
import { generateResourceAt, writePlan } from './evaluate-plan.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(REPO_ROOT, 'bin', 'driftwatch.js');
const RESOURCES = 50_000;
const STARTUP_RUNS = 11;
const EVALUATE_RUNS = 5;

interface Sample {
  wallMs: number;
  /** User + system CPU of the child, when the platform says (Linux /proc). */
  cpuMs?: number;
  status: number | null;
}

/** Clock ticks of reaped children (cutime + cstime of /proc/self/stat), or undefined off Linux. */
function childTicks(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command name start at field 3 (state); cutime and cstime are fields 16 and 17.
    return Number(fields[16 - 3]) + Number(fields[17 - 3]);
  } catch {
    return undefined;
  }
}
/** USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK) is not reachable from Node). */
const TICK_MS = 10;

function measure(args: string[], stdoutFile?: string): Sample {
  const out = stdoutFile ? openSync(stdoutFile, 'w') : 'ignore';
  const ticksBefore = childTicks();
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', out, 'pipe'],
    env: { ...process.env, DRIFTWATCH_HASH_SALT: 'benchmark-salt-0123456789' },
  });
  const wallMs = performance.now() - started;
  const ticksAfter = childTicks();
  if (typeof out === 'number') closeSync(out);
  if (result.error) throw result.error;
  return {
    wallMs,
    ...(ticksBefore !== undefined && ticksAfter !== undefined
      ? { cpuMs: (ticksAfter - ticksBefore) * TICK_MS }
      : {}),
    status: result.status,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** Runs the two sides alternately and prints one table row per side with the ratio to the baseline. */
function compare(
  title: string,
  runs: number,
  baseline: { label: string; args: string[] },
  subject: { label: string; args: string[]; stdoutFile?: string; okStatus: number[] },
): void {
  const base: Sample[] = [];
  const tested: Sample[] = [];
  const loadBefore = load();
  for (let round = 0; round < runs; round++) {
    base.push(measure(baseline.args));
    const sample = measure(subject.args, subject.stdoutFile);
    if (!subject.okStatus.includes(sample.status ?? -1))
      throw new Error(`${subject.label} exited with ${sample.status}`);
    tested.push(sample);
  }
  const wall = (samples: Sample[]) => median(samples.map((sample) => sample.wallMs));
  const cpu = (samples: Sample[]) =>
    samples.every((sample) => sample.cpuMs !== undefined)
      ? median(samples.map((sample) => sample.cpuMs!))
      : undefined;
  console.log(`\n## ${title} (median of ${runs} alternating runs; load average ${loadBefore} → ${load()})`);
  console.log('| side | wall ms | wall ratio | CPU ms (user+sys) | CPU ratio |');
  console.log('|---|---:|---:|---:|---:|');
  const baseCpu = cpu(base);
  for (const [label, samples] of [
    [baseline.label, base],
    [subject.label, tested],
  ] as const) {
    const sideCpu = cpu(samples);
    console.log(
      `| ${label} | ${wall(samples).toFixed(0)} | ${(wall(samples) / wall(base)).toFixed(2)}× | ${sideCpu ?? '-'} | ${
        sideCpu !== undefined && baseCpu ? `${(sideCpu / baseCpu).toFixed(2)}×` : '-'
      } |`,
    );
  }
}

export async function run(): Promise<void> {
  console.log(`# driftwatch CLI, whole process (node ${process.version}, ${process.arch})`);
  console.log(
    'The machine may be shared and loaded: compare ratios measured in this run, not absolute times.',
  );
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli', 'main.js'))) {
    console.log('dist/cli/main.js is missing: run `npm run build` first');
    return;
  }
  compare(
    'start-up: driftwatch --help',
    STARTUP_RUNS,
    { label: 'node -e 0', args: ['-e', '0'] },
    { label: 'driftwatch --help', args: [BIN, '--help'], okStatus: [0] },
  );
  console.log('goal: driftwatch --help ≤ 0.15 s on 2 cores');

  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-bench-cli-'));
  try {
    const store = join(dir, 'store');
    await recordSmallStore(store);
    compare(
      'a store command: driftwatch findings --store <directory> (20 findings)',
      STARTUP_RUNS,
      { label: 'node -e 0', args: ['-e', '0'] },
      // 2: findings above info.
      { label: 'driftwatch findings --store dir', args: [BIN, 'findings', '--store', store], okStatus: [2] },
    );

    const plan = join(dir, 'plan-50k.json');
    await writePlan(plan, RESOURCES, generateResourceAt);
    const output = join(dir, 'findings.json');
    compare(
      `evaluate-plan of a ${RESOURCES.toLocaleString('en')}-resource plan (${(statSync(plan).size / 1048576).toFixed(0)} MiB), JSON written to a file`,
      EVALUATE_RUNS,
      {
        label: "node -e JSON.parse(fs.readFileSync(f,'utf8'))",
        args: ['-e', `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(plan)}, 'utf8'))`],
      },
      {
        label: 'driftwatch evaluate-plan f --format json > out',
        args: [BIN, 'evaluate-plan', plan, '--format', 'json'],
        stdoutFile: output,
        // 2: findings above info (the plan is full of drift).
        okStatus: [2],
      },
    );
    console.log(`(${(statSync(output).size / 1048576).toFixed(0)} MiB of JSON written) goal: ≤ 1.5×`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A local store with one scan of 20 drift findings. */
async function recordSmallStore(dir: string): Promise<void> {
  const store = createFindingsStore(createFsObjectStore(dir));
  const at = new Date();
  const drafts = Array.from({ length: 20 }, (_, index) =>
    driftDraft({ resource: { address: `aws_s3_bucket.b${index}`, type: 'aws_s3_bucket' } }),
  );
  await store.recordWorkspace(
    { scanId: 'bench-scan', startedAt: at, now: at },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    drafts,
  );
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await run();
}
