import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { StagedWorkspace } from '../../cli/demo/provision.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';

/**
 * Real Terraform holding real locks: an apply waiting at its approval prompt holds the state lock
 * until it is answered, or killed like a CI runner that died.
 */
export interface HeldApply {
  child: ChildProcessWithoutNullStreams;
  /** Answers "no": Terraform releases the lock and exits. */
  release(): Promise<void>;
  /** SIGKILL to Terraform and its provider: the lock stays behind. */
  kill(): Promise<void>;
}

/** `args` must give the apply something to do (e.g. `-var name=other`): without changes it does not prompt. */
export async function applyWaitingAtPrompt(staged: StagedWorkspace, args: string[]): Promise<HeldApply> {
  // Its own process group, so that a kill takes the provider down with Terraform.
  const child = spawn('terraform', ['apply', '-no-color', ...args], {
    cwd: staged.dir,
    env: staged.env,
    stdio: 'pipe',
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Enter a value:')) resolve();
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('exit', (code) => reject(new Error(`apply exited with ${code} before prompting:\n${output}`)));
  });
  return {
    child,
    async release() {
      child.stdin.end('no\n');
      await exited;
    },
    async kill() {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** Runs terraform in the staged copy; `stdoutFile` keeps its output (`state pull`). */
export async function terraformIn(
  staged: StagedWorkspace,
  args: string[],
  stdoutFile?: string,
): Promise<void> {
  const result = await runProcess('terraform', args, {
    cwd: staged.dir,
    env: staged.env,
    timeoutMs: 5 * 60_000,
    ...(stdoutFile ? { stdoutFile } : {}),
  });
  if (result.exitCode !== 0) throw new Error(`terraform ${args.join(' ')} failed: ${result.stderr}`);
}

export function stagedPath(staged: StagedWorkspace, name: string): string {
  return join(staged.dir, name);
}

/** S3 keeps last-modified times to the second: a write and a lock in one second look simultaneous. */
export function nextSecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1_100));
}
