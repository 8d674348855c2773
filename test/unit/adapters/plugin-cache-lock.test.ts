import { mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withPluginCacheLock } from '../../../functions/adapters/terraform/plugin-cache-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const cacheDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-cache-'));
  dirs.push(dir);
  return dir;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    await Promise.all([
      withPluginCacheLock(dir, work),
      withPluginCacheLock(dir, work),
      withPluginCacheLock(dir, work),
    ]);
    expect(most).toBe(1);
    await expect(
      withPluginCacheLock(dir, async () => Promise.reject(new Error('init failed'))),
    ).rejects.toThrow('init failed');
    await expect(withPluginCacheLock(dir, async () => 'free again')).resolves.toBe('free again');
  });

  it('takes over a lock left behind by a process that died', async () => {
    const dir = cacheDir();
    const lock = join(dir, '.driftwatch-init.lock');
    mkdirSync(lock);
    const old = new Date(Date.now() - 11 * 60_000);
    utimesSync(lock, old, old);
    await expect(withPluginCacheLock(dir, async () => 'ran')).resolves.toBe('ran');
  });
});
