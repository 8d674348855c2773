// Holds what an interrupted scan holds until a signal ends it: a process group with a child (like
// terraform and its provider), a working directory and the plugin cache lock. Run by
// test/unit/adapters/interrupt-cleanup.test.ts as `node bin/run-ts.js <this> <dir> <cacheDir> <pidFile> [fatal]`
// (with `fatal` it raises an uncaught error itself instead of waiting for a signal).
import { existsSync } from 'node:fs';
import {
  exitCleanlyOnFatalErrors,
  exitCleanlyOnSignals,
  removeOnInterrupt,
} from '../../functions/adapters/terraform/interrupt-cleanup.js';
import { withPluginCacheLock } from '../../functions/adapters/terraform/plugin-cache-lock.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';

const [dir, cacheDir, pidFile, mode] = process.argv.slice(2) as [string, string, string, string?];
exitCleanlyOnSignals();
exitCleanlyOnFatalErrors(() => 1);
if (mode === 'fatal') {
  // An error nobody awaits, once everything is held (as a failing stream would raise it).
  const timer = setInterval(() => {
    if (!existsSync(pidFile)) return;
    clearInterval(timer);
    setTimeout(() => {
      throw new Error('stream failed');
    }, 100);
  }, 50);
}
removeOnInterrupt(dir);
await withPluginCacheLock(cacheDir, async () => {
  // The pid file appears once everything is held: the test signals only then.
  await runProcess('sh', ['-c', `sleep 60 & echo $! > ${pidFile}; wait`], {
    cwd: dir,
    env: process.env,
    timeoutMs: 120_000,
  });
});
