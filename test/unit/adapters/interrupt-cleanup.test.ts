import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cleanUpInterruptedRun,
  onInterrupt,
  removeOnInterrupt,
  temporaryDirectory,
} from '../../../functions/adapters/terraform/interrupt-cleanup.js';
import { alive, sleep, useTempDirs, waitForPid } from '../../helpers/processes.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const tempDir = useTempDirs('driftwatch-interrupt-');

describe('interrupt cleanup', () => {
  it('runs pending cleanups newest first, past one that fails, and not the ones already done', () => {
    const ran: string[] = [];
    onInterrupt(() => ran.push('first'));
    const done = onInterrupt(() => ran.push('cleaned up normally'));
    onInterrupt(() => {
      throw new Error('cannot');
    });
    onInterrupt(() => ran.push('last'));
    done();
    cleanUpInterruptedRun();
    expect(ran).toEqual(['last', 'first']);
    // Each runs once: a second interrupt finds nothing pending.
    cleanUpInterruptedRun();
    expect(ran).toEqual(['last', 'first']);
  });

  it('a temporary directory goes on interrupt, and on remove() without staying registered', async () => {
    const interrupted = temporaryDirectory('driftwatch-interrupt-tmp-');
    writeFileSync(join(interrupted.path, 'state.json'), 'copy');
    const finished = temporaryDirectory('driftwatch-interrupt-tmp-');
    await finished.remove();
    expect(existsSync(finished.path)).toBe(false);
    // A directory of the same name made after remove() is someone else's: the interrupt leaves it.
    mkdirSync(finished.path);
    cleanUpInterruptedRun();
    expect(existsSync(interrupted.path)).toBe(false);
    expect(existsSync(finished.path)).toBe(true);
    rmSync(finished.path, { recursive: true });
  });

  it('removes a registered directory with everything in it', () => {
    const dir = join(tempDir(), 'work');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    writeFileSync(join(dir, 'nested', 'scan-1.tfplan'), 'plan');
    removeOnInterrupt(dir);
    cleanUpInterruptedRun();
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['an uncaught error', 1],
  ] as const)(
    'on %s a process kills its process groups, removes its directory and releases the lock, then exits %i',
    async (ending, code) => {
      const base = tempDir();
      const work = join(base, 'work');
      const cache = join(base, 'cache');
      const pidFile = join(base, 'sleeper.pid');
      mkdirSync(work);
      writeFileSync(join(work, 'scan-1.tfplan'), 'plan');
      const fatal = ending === 'an uncaught error';
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, 'bin', 'run-ts.js'),
          join(REPO_ROOT, 'test/helpers/interrupted-child.ts'),
          work,
          cache,
          pidFile,
          ...(fatal ? ['fatal'] : []),
        ],
        { cwd: REPO_ROOT, stdio: 'ignore' },
      );
      const exited = new Promise<number | null>((resolveExit) => child.on('exit', resolveExit));
      // Start-up on a loaded machine takes seconds: waitForPid allows a generous bound.
      const sleeper = await waitForPid(pidFile);
      if (!fatal) {
        expect(existsSync(join(cache, '.driftwatch-init.lock'))).toBe(true);
        child.kill(ending);
      }
      expect(await exited).toBe(code);
      expect(existsSync(work)).toBe(false);
      expect(existsSync(join(cache, '.driftwatch-init.lock'))).toBe(false);
      // The group was killed before exit; the orphan is reaped by init shortly after.
      await sleep(200);
      expect(alive(sleeper)).toBe(false);
    },
    90_000,
  );
});
