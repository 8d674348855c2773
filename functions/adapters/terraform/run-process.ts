import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The tail of stderr (bounded), unredacted: callers must redact before logging or storing it. */
  stderr: string;
  durationMs: number;
}

export interface RunProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Write stdout to this file instead of discarding it (show -json output can exceed any string). */
  stdoutFile?: string;
  /** Keep at most this many bytes of stderr (its tail, where Terraform prints errors). */
  maxStderrBytes?: number;
  /** Grace period between SIGTERM and SIGKILL when the timeout fires. */
  killGraceMs?: number;
  /**
   * What the timeout sends first: SIGTERM (default, then SIGKILL after the grace period), or
   * SIGKILL at once for a command whose own clean-up on SIGTERM must not run (see the runner's plans).
   */
  stopSignal?: 'SIGTERM' | 'SIGKILL';
}

/**
 * Runs a command in its own process group so that a timeout kills it together with everything it
 * started (Terraform runs each provider as a child process; killing only Terraform would leave
 * ~0.8 GB provider processes behind).
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  const started = Date.now();
  const maxStderr = options.maxStderrBytes ?? 256 * 1024;
  const stdoutFd = options.stdoutFile ? openSync(options.stdoutFile, 'w', 0o600) : undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', stdoutFd ?? 'ignore', 'pipe'],
    });
    if (child.pid !== undefined) runningGroups.add(child.pid);
    let stderr = Buffer.alloc(0);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > maxStderr) stderr = stderr.subarray(stderr.length - maxStderr);
    });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timeout = setTimeout(() => {
      timedOut = true;
      if (options.stopSignal === 'SIGKILL') return killGroup(child.pid, 'SIGKILL');
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 10_000);
    }, options.timeoutMs);
    let finished = false;
    // 'error' and 'close' both fire when the command cannot start: clean up once.
    const finish = () => {
      if (finished) return;
      finished = true;
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      if (stdoutFd !== undefined) closeSync(stdoutFd);
    };
    child.on('error', (error) => {
      finish();
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      if (finished) return;
      finish();
      // A provider that ignored SIGTERM may outlive Terraform: make sure the group is gone.
      if (timedOut) killGroup(child.pid, 'SIGKILL');
      resolve({
        exitCode,
        signal,
        timedOut,
        stderr: stderr.toString('utf8'),
        durationMs: Date.now() - started,
      });
    });
  });
}

/**
 * Why a command failed, for a reason when it printed no error of its own (or printed one before a
 * signal ended it, which is then not the cause). `exited with null` said nothing: a signal from
 * outside the scan (its own time limit is reported apart) is most often the out-of-memory killer.
 */
export function describeExit(command: string, result: Pick<ProcessResult, 'exitCode' | 'signal'>): string {
  if (result.signal === 'SIGKILL')
    return `${command} was killed (SIGKILL) before it finished: the out-of-memory killer is the usual cause (each Terraform run holds its providers in memory, the AWS provider ~0.8 GB); scan fewer workspaces at once (--concurrency) or give the scanner more memory`;
  if (result.signal)
    return `${command} was stopped by ${result.signal} from outside the scan before it finished; scan again`;
  return `${command} exited with ${result.exitCode} without printing an error`;
}

/** Process groups started by runProcess that have not exited yet. */
const runningGroups = new Set<number>();

/**
 * Kills every process group still running (Ctrl-C, SIGTERM from Lambda's runtime): they are
 * detached, so the terminal's SIGINT does not reach them on its own.
 */
export function killRunningProcesses(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of runningGroups) killGroup(pid, signal);
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
