/**
 * Takes the directory store's lock of one key and holds it until killed (the test of a writer killed
 * mid-write). Writes its pid to <ready> once it holds the lock.
 * Usage: node bin/run-ts.js <this> <dir> <key> <ready>
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withKeyLock } from '../../functions/adapters/object-store/fs-object-store.js';

const [dir, key, ready] = process.argv.slice(2);
if (!dir || !key || !ready) throw new Error('usage: fs-lock-holder.ts <dir> <key> <ready>');
await withKeyLock(join(dir, key), { staleMs: 30_000, waitMs: 20_000 }, () => {
  writeFileSync(ready, String(process.pid));
  // Blocks this thread, holding the lock, as a write does until the SIGKILL lands.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
