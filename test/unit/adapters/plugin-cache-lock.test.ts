import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../functions/adapters/logger.js';
import { cleanUpInterruptedRun } from '../../../functions/adapters/terraform/interrupt-cleanup.js';
import {
  type PluginCacheLockOwner,
  withPluginCacheLock,
} from '../../../functions/adapters/terraform/plugin-cache-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
const cacheDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-cache-'));
  dirs.push(dir);
  return dir;
};
const lockOf = (dir: string) => join(dir, '.driftwatch-init.lock');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger that keeps its lines, and resolves `next(text)` when a line containing text arrives. */
function recordingLogger() {
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const logger = createLogger({
    format: 'text',
    write: (line) => {
      lines.push(line);
      for (const waiter of waiters) if (line.includes(waiter.text)) waiter.resolve();
    },
  });
  const next = (text: string) =>
    lines.some((line) => line.includes(text))
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ text, resolve }));
  return { logger, lines, next };
}

function writeLock(dir: string, owner: Partial<PluginCacheLockOwner>): void {
  const now = Date.now();
  const record: PluginCacheLockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 15 * 60_000).toISOString(),
    token: 'someone-elses-token',
    ...owner,
  };
  writeFileSync(lockOf(dir), JSON.stringify(record));
}

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const pid = spawnSync('true').pid;
  expect(pid).toBeGreaterThan(0);
  return pid!;
}

/** A live process other than this one, standing in for another scan's init. */
function liveHolder(): ChildProcess {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('plugin cache lock', () => {
  it('lets one init at a time touch the cache, and releases on failure too', async () => {
    const dir = cacheDir();
    let inside = 0;
    let most = 0;
    const work = async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(50);
      inside--;
    };
    const { logger } = recordingLogger();
    await Promise.all([
      withPluginCacheLock(dir, work, { logger, pollMs: 10 }),
      withPluginCacheLock(dir, work, { logger, pollMs: 10 }),
      withPluginCacheLock(dir, work, { logger, pollMs: 10 }),
    ]);
    expect(most).toBe(1);
    await expect(
      withPluginCacheLock(dir, async () => Promise.reject(new Error('init failed')), { logger }),
    ).rejects.toThrow('init failed');
    await expect(withPluginCacheLock(dir, async () => 'free again', { logger })).resolves.toBe('free again');
    expect(existsSync(lockOf(dir))).toBe(false);
  });

  it('records who holds it: pid, host, start and the expiry the holder declares', async () => {
    const dir = cacheDir();
    const seen = await withPluginCacheLock(
      dir,
      async () => JSON.parse(readFileSync(lockOf(dir), 'utf8')) as PluginCacheLockOwner,
      { maxHoldMs: 5 * 60_000, logger: recordingLogger().logger },
    );
    expect(seen).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(Date.parse(seen.expiresAt) - Date.parse(seen.startedAt)).toBe(5 * 60_000);
  });

  it('takes over at once a lock whose holder on this host is gone, and says so', async () => {
    const dir = cacheDir();
    const pid = deadPid();
    writeLock(dir, { pid });
    const { logger, lines } = recordingLogger();
    await expect(withPluginCacheLock(dir, async () => 'ran', { logger })).resolves.toBe('ran');
    const takeover = lines.find((line) => line.includes('took over a stale plugin cache lock'));
    expect(takeover).toContain(`holderPid=${pid}`);
    expect(takeover).toContain(`is gone`);
  });

  it('takes over a lock left by an earlier process with our own pid (a restarted sandbox)', async () => {
    const dir = cacheDir();
    writeLock(dir, { pid: process.pid, token: 'from-a-previous-life' });
    const { logger, lines } = recordingLogger();
    await expect(withPluginCacheLock(dir, async () => 'ran', { logger })).resolves.toBe('ran');
    expect(lines.join('\n')).toContain('left by an earlier process');
  });

  it('takes over a lock past the expiry its holder recorded, even from a host it cannot check', async () => {
    const dir = cacheDir();
    const started = Date.now() - 20 * 60_000;
    writeLock(dir, {
      pid: 1,
      hostname: 'another-host',
      startedAt: new Date(started).toISOString(),
      expiresAt: new Date(started + 16 * 60_000).toISOString(),
    });
    const { logger, lines } = recordingLogger();
    await expect(withPluginCacheLock(dir, async () => 'ran', { logger })).resolves.toBe('ran');
    expect(lines.join('\n')).toContain('past the expiry');
  });

  it('takes over an old lock without a record (a directory left by an older driftwatch)', async () => {
    const dir = cacheDir();
    mkdirSync(lockOf(dir));
    const old = new Date(Date.now() - 17 * 60_000);
    utimesSync(lockOf(dir), old, old);
    const { logger } = recordingLogger();
    await expect(withPluginCacheLock(dir, async () => 'ran', { logger })).resolves.toBe('ran');
  });

  it('waits while the holder is alive, then takes over once it dies', async () => {
    const dir = cacheDir();
    const holder = liveHolder();
    writeLock(dir, { pid: holder.pid });
    const { logger, lines, next } = recordingLogger();
    let ran = false;
    const waiting = withPluginCacheLock(
      dir,
      async () => {
        ran = true;
      },
      { logger, pollMs: 20 },
    );
    await next('waiting for the plugin cache lock');
    await sleep(300); // Many polls: none of them may take a live holder's lock.
    expect(ran).toBe(false);
    expect(lines.join('\n')).not.toContain('took over');
    holder.kill('SIGKILL');
    await waiting;
    expect(ran).toBe(true);
    expect(lines.join('\n')).toContain(`holder ${holder.pid} is gone`);
  });

  it('waits for an unexpired lock of another host, and goes ahead when it is released', async () => {
    const dir = cacheDir();
    writeLock(dir, { pid: 1, hostname: 'another-host' });
    const { logger, lines, next } = recordingLogger();
    const waiting = withPluginCacheLock(dir, async () => 'ran', { logger, pollMs: 20 });
    await next('waiting for the plugin cache lock');
    await sleep(200);
    expect(existsSync(lockOf(dir))).toBe(true);
    rmSync(lockOf(dir));
    await expect(waiting).resolves.toBe('ran');
    expect(lines.join('\n')).not.toContain('took over');
  });

  it('never deletes a lock that is no longer its own', async () => {
    const dir = cacheDir();
    const { logger } = recordingLogger();
    await withPluginCacheLock(
      dir,
      async () => {
        // Taken over meanwhile (say, after our expiry) by someone else.
        writeLock(dir, { pid: 1, hostname: 'another-host', token: 'the-new-holder' });
      },
      { logger },
    );
    expect(JSON.parse(readFileSync(lockOf(dir), 'utf8')).token).toBe('the-new-holder');
  });

  it('is released synchronously when the run is interrupted', async () => {
    const dir = cacheDir();
    const { logger } = recordingLogger();
    let releasedOnInterrupt: boolean | undefined;
    await withPluginCacheLock(
      dir,
      async () => {
        expect(existsSync(lockOf(dir))).toBe(true);
        cleanUpInterruptedRun();
        releasedOnInterrupt = !existsSync(lockOf(dir));
      },
      { logger },
    );
    expect(releasedOnInterrupt).toBe(true);
  });
});
