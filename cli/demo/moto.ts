import { type ChildProcess, spawn } from 'node:child_process';

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
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
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
