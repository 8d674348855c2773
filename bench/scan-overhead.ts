/**
 * Benchmark: what driftwatch adds around Terraform.
 *
 * One example workspace (examples/estate/payments as payments-staging), applied in a local moto,
 * then, interleaved, RUNS times each with a warm plugin cache:
 *   bare:       terraform init && terraform plan -refresh-only -out && terraform show -json
 *               (in a fresh copy of the workspace, as a CI job would)
 *   driftwatch: `driftwatch scan --workspace payments-staging` (the real CLI: start-up, registry,
 *               STS preflight, two state-version reads, copy, init, plan, show, evaluation, store)
 * Prints the medians and their ratio (goal <= 1.10x). Asserts nothing.
 *
 * Run: `node bin/run-ts.js bench/scan-overhead.ts` (or `npm run bench`).
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { motoEnvironment, startMoto } from '../cli/demo/moto.js';
import { createStateBucket, stageWorkspace } from '../cli/demo/provision.js';
import { runProcess } from '../functions/adapters/terraform/run-process.js';

const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
const RUNS = 5;
const BACKEND = { bucket: 'bench-tfstate', key: 'payments/staging.tfstate', region: 'eu-west-1' };
const TF_ENV = { TF_VAR_environment: 'staging' };

export async function run(): Promise<void> {
  console.log('\n## scan overhead: driftwatch scan vs bare terraform init + plan -refresh-only + show -json');
  const moto = await startMoto();
  const work = await mkdtemp(join(tmpdir(), 'driftwatch-bench-scan-'));
  try {
    Object.assign(process.env, motoEnvironment(moto.endpoint));
    await createStateBucket(new S3Client({}), BACKEND.bucket, BACKEND.region);
    const staged = await stageWorkspace({
      source: join(REPO_ROOT, 'examples/estate/payments'),
      backend: BACKEND,
      env: TF_ENV,
    });
    await staged.terraform(['apply', '-auto-approve', '-input=false']);
    const registry = join(work, 'driftwatch.yaml');
    await writeFile(
      registry,
      [
        'version: 1',
        'owners: { fallback: payments, teams: [{ id: payments, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces:',
        '  - id: payments-staging',
        '    owner: payments',
        '    environment: staging',
        `    source: { dir: ${JSON.stringify(join(REPO_ROOT, 'examples/estate/payments'))} }`,
        `    backend: { bucket: ${BACKEND.bucket}, key: ${BACKEND.key}, region: ${BACKEND.region} }`,
        `    env: ${JSON.stringify(TF_ENV)}`,
        '',
      ].join('\n'),
    );
    // The bare side uses the same environment Terraform gets from driftwatch: CLI config (provider
    // mirror), plugin cache, automation flags.
    const env: NodeJS.ProcessEnv = { ...staged.env, DRIFTWATCH_HASH_SALT: 'bench-salt-0000000000001' };
    delete env.TF_DATA_DIR;

    const bare = async () => {
      const dir = await mkdtemp(join(work, 'bare-'));
      await cp(join(REPO_ROOT, 'examples/estate/payments'), dir, { recursive: true });
      const started = performance.now();
      const step = async (args: string[], stdoutFile?: string) => {
        const result = await runProcess('terraform', args, { cwd: dir, env, timeoutMs: 600_000, stdoutFile });
        if (result.exitCode !== 0 && !(args[0] === 'plan' && result.exitCode === 2)) {
          throw new Error(`terraform ${args[0]} exited ${result.exitCode}: ${result.stderr.slice(-500)}`);
        }
      };
      await step([
        'init',
        '-input=false',
        ...Object.entries(BACKEND).map(([key, value]) => `-backend-config=${key}=${value}`),
      ]);
      await step([
        'plan',
        '-refresh-only',
        '-lock=false',
        '-input=false',
        '-detailed-exitcode',
        '-out=bench.tfplan',
      ]);
      await step(['show', '-json', 'bench.tfplan'], join(dir, 'plan.json'));
      const ms = performance.now() - started;
      await rm(dir, { recursive: true, force: true });
      return ms;
    };
    const driftwatch = async () => {
      const started = performance.now();
      const code = await new Promise<number | null>((resolvePromise, reject) => {
        const child = spawn(
          process.execPath,
          [
            join(REPO_ROOT, 'bin/driftwatch.js'),
            'scan',
            '--registry',
            registry,
            '--store',
            join(work, 'store'),
            '--format',
            'json',
          ],
          { env, stdio: 'ignore' },
        );
        child.on('error', reject);
        child.on('exit', resolvePromise);
      });
      if (code !== 0 && code !== 2) throw new Error(`driftwatch scan exited ${code}`);
      return performance.now() - started;
    };

    await bare(); // warm-up: the plugin cache and the OS page cache hold the provider
    await driftwatch();
    const bareRuns: number[] = [];
    const driftwatchRuns: number[] = [];
    for (let index = 0; index < RUNS; index++) {
      bareRuns.push(await bare());
      driftwatchRuns.push(await driftwatch());
    }
    const bareMedian = median(bareRuns);
    const driftwatchMedian = median(driftwatchRuns);
    console.log(
      `bare terraform      median ${(bareMedian / 1000).toFixed(2)} s  (${bareRuns.map(seconds).join(', ')})`,
    );
    console.log(
      `driftwatch scan     median ${(driftwatchMedian / 1000).toFixed(2)} s  (${driftwatchRuns.map(seconds).join(', ')})`,
    );
    console.log(`ratio driftwatch / bare: ${(driftwatchMedian / bareMedian).toFixed(3)}x  (goal <= 1.10x)`);
    await staged.dispose();
  } finally {
    await rm(work, { recursive: true, force: true });
    await moto.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)}`;
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await run();
}
