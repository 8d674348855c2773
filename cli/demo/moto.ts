import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface MotoServer {
  /** `http://127.0.0.1:<port>`: an IP, not localhost, so S3 clients use path-style requests. */
  endpoint: string;
  port: number;
  /** Clears every service's state (POST /moto-api/reset). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export class MotoUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MotoUnavailableError';
  }
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts `moto_server` on a free port chosen by the OS (`-p 0`) and waits until it says where it
 * listens. The server is stopped by `stop()`, and in any case when this process exits.
 */
export async function startMoto(options: { command?: string; timeoutMs?: number } = {}): Promise<MotoServer> {
  const command = options.command ?? process.env.DRIFTWATCH_MOTO_SERVER ?? 'moto_server';
  installExitHook();
  const child = spawn(command, ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new MotoUnavailableError(
          `moto_server did not report its port within ${options.timeoutMs ?? 20_000} ms:\n${output}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      running.delete(child);
      reject(
        new MotoUnavailableError(
          error.code === 'ENOENT'
            ? `${command} is not on PATH. Install it with: pip install 'moto[server]'`
            : `cannot start ${command}: ${error.message}`,
        ),
      );
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      running.delete(child);
      reject(new MotoUnavailableError(`${command} exited with ${code} before it was ready:\n${output}`));
    });
  });
  // Keep draining its request log so the pipe never fills up and blocks the server.
  child.stdout?.resume();
  child.stderr?.resume();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    port,
    async reset() {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`moto reset failed: ${response.status}`);
    },
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(timer);
      running.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => killAndAwaitSync([...running]));
}

/**
 * SIGKILLs the children and waits (synchronously: an `exit` handler cannot await) until the kernel
 * has torn them down, at most `limitMs`: a Ctrl-C'd demo must not leave moto accepting connections
 * on its port for a moment after the shell prompt returns. Dead means gone or a zombie (its sockets
 * are closed); where /proc is missing (not Linux), a process cannot be watched and is taken as dead.
 */
export function killAndAwaitSync(children: readonly ChildProcess[], limitMs = 2_000): void {
  const pids = children
    .filter((child) => child.kill('SIGKILL') && child.pid !== undefined)
    .map((child) => child.pid!);
  const deadline = Date.now() + limitMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some(isAlive) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 10);
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3 (after the parenthesised command name) is the state: Z zombie, X dead.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Environment that points the AWS SDK, Terraform's AWS provider and its S3 backend at moto. */
export function motoEnvironment(endpoint: string, region = 'eu-west-1'): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: 'driftwatch-demo',
    AWS_SECRET_ACCESS_KEY: 'driftwatch-demo-secret',
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
  };
}
