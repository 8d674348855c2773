import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import type { ObjectStore } from '../../../../functions/core/findings/object-store.js';
import { writeNightlyReports } from '../../../../functions/core/report/nightly-reports.js';
import { type BuiltReportStore, buildReportStore } from './report-store.js';

let dir: string;
let built: BuiltReportStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftwatch-nightly-reports-'));
  built = await buildReportStore(dir, { nights: 8 });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The store, counting reads per key and failing puts of the keys asked. */
function instrumented(failPut: (key: string) => boolean = () => false) {
  const inner = createFsObjectStore(dir);
  const gets = new Map<string, number>();
  const lists = new Map<string, number>();
  const puts: string[] = [];
  const store: ObjectStore = {
    location: inner.location,
    get: (key) => {
      gets.set(key, (gets.get(key) ?? 0) + 1);
      return inner.get(key);
    },
    list: (prefix) => {
      lists.set(prefix, (lists.get(prefix) ?? 0) + 1);
      return inner.list(prefix);
    },
    put: async (key, body, options) => {
      if (failPut(key)) throw new Error(`SlowDown: ${key}`);
      puts.push(key);
      return inner.put(key, body, options);
    },
    delete: (key, options) => inner.delete(key, options),
  };
  return { store, gets, lists, puts };
}

describe('the nightly reports (WriteReports)', () => {
  it('writes one report for everybody and one per owner, reading each object of the store once', async () => {
    const { store, gets, lists, puts } = instrumented();
    const reports = await writeNightlyReports(store, 'night-x');
    expect(reports.everyone).toBe('reports/scan=night-x/everyone.html');
    expect(Object.keys(reports.owners).sort()).toEqual([...built.owners].sort());
    for (const owner of built.owners)
      expect(reports.owners[owner]).toBe(`reports/scan=night-x/owners/${owner}.html`);
    expect(puts.sort()).toEqual([reports.everyone, ...Object.values(reports.owners)].sort());
    expect(reports.failed).toEqual([]);
    // 1 + owners reports, but each object and listing was read once.
    expect(Math.max(...gets.values())).toBe(1);
    expect(Math.max(...lists.values())).toBe(1);
  });

  it('an owner whose report cannot be written does not cost the others theirs', async () => {
    const victim = built.owners[0]!;
    const { store, puts } = instrumented((key) => key.endsWith(`/owners/${victim}.html`));
    const reports = await writeNightlyReports(store, 'night-y');
    expect(reports.failed).toEqual([{ owner: victim, reason: expect.stringContaining('SlowDown') }]);
    expect(puts).toHaveLength(built.owners.length);
    expect(reports.owners[victim]).toBeUndefined();
  });
});
