import { randomBytes } from 'node:crypto';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { killRunningProcesses } from './run-process.js';

type Cleanup = () => void;

/** Cleanups still pending, in registration order (a Set keeps it). */
const pending = new Set<Cleanup>();

/**
 * Registers a synchronous cleanup for an interrupted run (Ctrl-C, SIGTERM). The normal path cleans
 * up in `finally` blocks, but `process.exit` in a signal handler runs none of them: whatever a run
 * leaves on disk or holds (working directories with plan files, the plugin cache lock) registers
 * here too. Returns the function that unregisters it, for when the normal path has cleaned up.
 */
export function onInterrupt(cleanup: Cleanup): () => void {
  // A wrapper, so that the same function registered twice is two entries.
  const entry: Cleanup = () => cleanup();
  pending.add(entry);
  return () => {
    pending.delete(entry);
  };
}

/** Removes a file or directory (recursively) if the run is interrupted. */
export function removeOnInterrupt(path: string): () => void {
  // Retries: a process killed a moment ago may still be closing a file in the directory.
  return onInterrupt(() => rmSync(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 }));
}

/**
 * A fresh directory (`<prefix>XXXXXX` in the system's temporary directory) removed when the run is
 * interrupted, and by `remove()` on the normal path. Made synchronously, so the removal is registered
 * in the same tick: a signal handled between an async mkdtemp and the registration would leave it.
 */
export function temporaryDirectory(prefix: string): { path: string; remove: () => Promise<void> } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const forget = removeOnInterrupt(path);
  return {
    path,
    remove: async () => {
      await rm(path, { recursive: true, force: true });
      forget();
    },
  };
}

/**
 * Ends an interrupted run: kills every Terraform process group first (so nothing writes into a
 * directory while it is removed, or outlives us holding 0.8 GB), then runs the pending cleanups,
 * newest first. Synchronous on purpose: it runs right before `process.exit`.
 */
export function cleanUpInterruptedRun(): void {
  killRunningProcesses('SIGKILL');
  for (const cleanup of [...pending].reverse()) {
    pending.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Best effort: one cleanup that fails must not keep the others from running.
    }
  }
}

/** The exit codes a shell reports for these signals (128 + signal number). */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * On SIGINT and SIGTERM: clean up the interrupted run, then exit with 128 + the signal's number.
 * Terraform and its providers run in their own process groups, so the terminal's Ctrl-C does not
 * reach them: without this they would outlive the CLI.
 */
export function exitCleanlyOnSignals(): void {
  for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
    process.on(signal, () => {
      cleanUpInterruptedRun();
      process.exit(code);
    });
  }
}

/**
 * An error raised outside any awaited promise (a stream's 'error' event, a rejected promise nobody
 * awaits) ends the process like a signal does: nothing left behind, then `report`'s exit code.
 */
export function exitCleanlyOnFatalErrors(report: (error: unknown) => number): void {
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (error: unknown) => {
      cleanUpInterruptedRun();
      process.exit(report(error));
    });
  }
}

/** Tells this process's directories from those of an earlier process that had its pid (a restarted container). */
const OWNER_TOKEN = randomBytes(8).toString('hex');
const OWNER_FILE = '.driftwatch-owner';

/**
 * Marks a run's directory as this process's. A process killed outright (SIGKILL, the out-of-memory
 * killer) runs no cleanup at all: its working directories, plan files with state values in them
 * included, stay; the next runner removes them (sweepAbandonedDirs).
 */
export function markOwner(dir: string): void {
  const owner = { pid: process.pid, host: hostname(), token: OWNER_TOKEN };
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify(owner), { mode: 0o600 });
}

/**
 * Removes the directories `<prefix>*` in `root` that markOwner marked for a process of this host
 * that is gone. Directories of live processes, of other hosts (a shared disk) and without a mark
 * stay. Returns the paths removed.
 */
export async function sweepAbandonedDirs(root: string, prefix: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(root, name);
    const owner = await readFile(join(dir, OWNER_FILE), 'utf8')
      .then((text) => JSON.parse(text) as { pid?: unknown; host?: unknown; token?: unknown })
      .catch(() => undefined);
    if (!owner || owner.host !== hostname() || typeof owner.pid !== 'number') continue;
    const abandoned = owner.pid === process.pid ? owner.token !== OWNER_TOKEN : !isAlive(owner.pid);
    if (!abandoned) continue;
    // Its Terraform and providers outlive it (their own process group, no timeout left): a plan
    // waiting on an endpoint that never answers would hold its ~0.8 GB for good.
    killProcessesWorkingIn(dir);
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/** Whether a process exists (EPERM: it does, but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * SIGKILLs the Terraform, OpenTofu and provider processes whose working directory is `dir` or below
 * it (Linux: /proc/<pid>/cwd; elsewhere nothing is found): they run in the root inside a run's directory.
 */
function killProcessesWorkingIn(dir: string): void {
  let pids: string[];
  let real: string;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    real = realpathSync(dir);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd !== real && !cwd.startsWith(`${real}/`)) continue;
      // Terraform, OpenTofu and their providers only: not a shell someone opened there to look.
      const program = basename(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0', 1)[0] ?? '');
      if (/^(terraform|tofu)/.test(program)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone meanwhile, or another user's process.
    }
  }
}
