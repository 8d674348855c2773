import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { killAndAwaitSync } from '../../../cli/demo/moto.js';

/** The process state letter of /proc/<pid>/stat, or 'gone'. */
function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return 'gone';
  }
}

/**
 * A child that takes the kernel a moment to tear down, as moto does: 256 MiB of touched memory is
 * released before its sockets close and before it becomes a zombie. It says when it holds it.
 */
function startHeavySleeper() {
  const child = spawn(
    'python3',
    ['-c', 'x = b"x" * (256 << 20); print("ready", flush=True); import time; time.sleep(60)'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  return new Promise<typeof child>((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('error', reject);
  });
}

describe('killAndAwaitSync (the demo exit hook that stops moto)', () => {
  it('returns only once every child is dead: a zombie or gone, never still running', async () => {
    const children = [await startHeavySleeper(), await startHeavySleeper()];
    expect(children.map((child) => stateOf(child.pid!))).not.toContain('gone');
    killAndAwaitSync(children);
    for (const child of children) expect(['Z', 'X', 'gone']).toContain(stateOf(child.pid!));
  });
});
