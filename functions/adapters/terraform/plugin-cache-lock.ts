import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const POLL_MS = 200;
/** A lock older than this was left by a process that died mid-init: take it over. */
const STALE_MS = 10 * 60_000;

/**
 * Runs `work` while holding the plugin cache's lock. Terraform's plugin cache is not safe for
 * concurrent installs ("after installing ... it is still not detected ... this is a bug in
 * Terraform"), and several processes share it: parallel scans, test files, the demo. `mkdir` is
 * atomic, so a lock directory next to the cache serialises `terraform init` across processes,
 * while plans (which only read the installed providers) still run in parallel.
 */
export async function withPluginCacheLock<T>(cacheDir: string, work: () => Promise<T>): Promise<T> {
  const lock = join(cacheDir, '.driftwatch-init.lock');
  await mkdir(cacheDir, { recursive: true });
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (stats) => Date.now() - stats.mtimeMs,
        () => 0,
      );
      if (age > STALE_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
