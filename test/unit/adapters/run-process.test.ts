import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../../functions/adapters/terraform/run-process.js';
import { alive, sleep, useTempDirs } from '../../helpers/processes.js';

const tempDir = useTempDirs('driftwatch-proc-');

describe('runProcess', () => {
  it('kills the whole process group on timeout, children included', async () => {
    const dir = tempDir();
    // The child starts a grandchild (like terraform starting a provider) and records its pid.
    const script = `sleep 60 & echo $! > ${dir}/grandchild; wait`;
    const result = await runProcess('sh', ['-c', script], {
      cwd: dir,
      env: process.env,
      timeoutMs: 500,
      killGraceMs: 200,
    });
    expect(result.timedOut).toBe(true);
    const grandchild = Number(readFileSync(join(dir, 'grandchild'), 'utf8'));
    await sleep(300);
    expect(alive(grandchild)).toBe(false);
  });

  it('stopSignal SIGKILL: the timeout gives the command no chance to run its SIGTERM handler', async () => {
    const dir = tempDir();
    // Terraform persists state on SIGTERM during a plan; this stand-in records that it got one.
    const script = `trap 'echo term > ${dir}/handled; exit 1' TERM; sleep 60 & wait`;
    const result = await runProcess('sh', ['-c', script], {
      cwd: dir,
      env: process.env,
      timeoutMs: 500,
      stopSignal: 'SIGKILL',
    });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(existsSync(join(dir, 'handled'))).toBe(false);
  });

  it('keeps only the tail of stderr and writes stdout to a file', async () => {
    const dir = tempDir();
    const script = 'i=0; while [ $i -lt 2000 ]; do echo "line $i" >&2; i=$((i+1)); done; echo out; exit 3';
    const result = await runProcess('sh', ['-c', script], {
      cwd: dir,
      env: process.env,
      timeoutMs: 10_000,
      maxStderrBytes: 100,
      stdoutFile: join(dir, 'out'),
    });
    expect(result.exitCode).toBe(3);
    expect(result.stderr.length).toBeLessThanOrEqual(100);
    expect(result.stderr).toContain('line 1999');
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe('out\n');
  });

  it('rejects (once, cleanly) when the command does not exist', async () => {
    const dir = tempDir();
    await expect(
      runProcess('definitely-not-a-command-xyz', [], {
        cwd: dir,
        env: process.env,
        timeoutMs: 1000,
        stdoutFile: join(dir, 'out'),
      }),
    ).rejects.toThrow(/ENOENT/);
    // 'close' follows 'error': give it the chance to run the cleanup a second time.
    await sleep(100);
  });

  it('has sh available (sanity for the tests above)', () => {
    expect(execFileSync('sh', ['-c', 'echo ok']).toString()).toBe('ok\n');
  });
});
