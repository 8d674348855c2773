/**
 * One of several processes hammering one key of a local findings store (the fs store's
 * cross-process test): `runs` read-modify-write increments, each a compare-and-swap retried on
 * conflict exactly as the findings store does it. Usage: node bin/run-ts.js <this> <dir> <writer> <runs>
 */
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import { PreconditionFailedError } from '../../functions/core/findings/object-store.js';

const [dir, writer, runs] = process.argv.slice(2);
if (!dir || !writer || !runs) throw new Error('usage: fs-store-writer.ts <dir> <writer> <runs>');
const store = createFsObjectStore(dir);
const key = 'current/counter.json';
let conflicts = 0;
for (let run = 0; run < Number(runs); run++) {
  for (;;) {
    const current = await store.get(key);
    const counter: { count: number; byWriter: Record<string, number> } = current
      ? JSON.parse(current.body)
      : { count: 0, byWriter: {} };
    counter.count++;
    counter.byWriter[writer] = (counter.byWriter[writer] ?? 0) + 1;
    try {
      await store.put(
        key,
        JSON.stringify(counter),
        current ? { ifMatch: current.etag } : { ifNoneMatch: '*' },
      );
      break;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      conflicts++;
    }
  }
}
process.stdout.write(JSON.stringify({ writer, conflicts }));
