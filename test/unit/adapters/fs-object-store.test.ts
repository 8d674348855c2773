import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  breakLock,
  createFsObjectStore,
  listingFolder,
  withKeyLock,
} from '../../../functions/adapters/object-store/fs-object-store.js';
import { PreconditionFailedError } from '../../../functions/core/findings/object-store.js';
import { runNode, useTempDirs, waitForPid } from '../../helpers/processes.js';

const tempDir = useTempDirs('driftwatch-fs-store-');

/** Runs the writer script in its own node process; resolves with its stdout. */
async function writerProcess(dir: string, writer: string, runs: number): Promise<string> {
  const { code, stdout, stderr } = await runNode([
    'bin/run-ts.js',
    'test/helpers/fs-store-writer.ts',
    dir,
    writer,
    String(runs),
  ]);
  if (code !== 0) throw new Error(`writer ${writer} exited ${code}: ${stderr}`);
  return stdout;
}

describe('fs object store', () => {
  it('loses no acknowledged update with 5 processes × 100 compare-and-swap increments of one key', async () => {
    const dir = tempDir();
    const writers = ['w0', 'w1', 'w2', 'w3', 'w4'];
    await Promise.all(writers.map((writer) => writerProcess(dir, writer, 100)));
    const counter = JSON.parse((await createFsObjectStore(dir).get('current/counter.json'))!.body);
    expect(counter.count).toBe(500);
    expect(counter.byWriter).toEqual({ w0: 100, w1: 100, w2: 100, w3: 100, w4: 100 });
  }, 180_000);

  it('breaks a lock left by a dead process, and names a live one it could not get', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'current'), { recursive: true });
    const lock = join(dir, 'current/a.json.lock');
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 60 * 60_000);
    utimesSync(lock, old, old);
    const store = createFsObjectStore(dir, { lockStaleMs: 30_000, lockWaitMs: 200 });
    await expect(store.put('current/a.json', '{}')).resolves.toMatchObject({ etag: expect.any(String) });

    writeFileSync(lock, '');
    await expect(store.put('current/a.json', '{"b":1}')).rejects.toThrow(
      /current\/a\.json stayed locked .* delete .*current\/a\.json\.lock if none is running/,
    );
    expect((await store.get('current/a.json'))?.body).toBe('{}');
  });

  it('deletes conditionally and lists no lock or temporary files', async () => {
    const dir = tempDir();
    const store = createFsObjectStore(dir);
    const { etag } = await store.put('outbox/a.json', 'one');
    writeFileSync(join(dir, 'outbox/b.json.lock'), '');
    await expect(store.delete('outbox/a.json', { ifMatch: '"other"' })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const keys: string[] = [];
    for await (const object of store.list('outbox/')) keys.push(object.key);
    expect(keys).toEqual(['outbox/a.json']);
    await store.delete('outbox/a.json', { ifMatch: etag });
    expect(await store.get('outbox/a.json')).toBeUndefined();
    await expect(store.delete('never/there.json', { ifMatch: etag })).resolves.toBeUndefined();
  });

  it("walks only the prefix's folder, and lists the same keys as a walk of the whole store", async () => {
    // A report lists one day of history at a time: from the root, each listing walked every day.
    expect(listingFolder('scans/dt=2026-12-05/')).toBe('scans/dt=2026-12-05/');
    expect(listingFolder('scans/dt=2026-12-05/scan=s1/summ')).toBe('scans/dt=2026-12-05/scan=s1/');
    expect(listingFolder('current/')).toBe('current/');
    expect(listingFolder('cur')).toBe('');
    expect(listingFolder('')).toBe('');
    const dir = tempDir();
    const store = createFsObjectStore(dir);
    const keys = [
      'current/billing-prod.json',
      'current/payments-prod.json',
      'scans/dt=2026-12-04/scan=s0/payments-prod.jsonl',
      'scans/dt=2026-12-05/scan=s1/payments-prod.jsonl',
      'scans/dt=2026-12-05/scan=s1/summary.json',
    ];
    for (const key of keys) await store.put(key, '{}');
    const listed = async (prefix: string) => {
      const found: string[] = [];
      for await (const object of store.list(prefix)) found.push(object.key);
      return found;
    };
    for (const prefix of ['', 'cur', 'current/', 'current/pay', 'scans/dt=2026-12-05/', 'scans/dt=2026-12-0'])
      expect(await listed(prefix), prefix).toEqual(keys.filter((key) => key.startsWith(prefix)));
    // A folder that is not there, or is a file, holds nothing.
    expect(await listed('scans/dt=2026-01-01/')).toEqual([]);
    expect(await listed('current/billing-prod.json/')).toEqual([]);
  });

  it('a file deleted by another process while its folder is listed is not listed, and the listing goes on', async () => {
    const dir = tempDir();
    const store = createFsObjectStore(dir);
    for (const name of ['a', 'b', 'c']) await store.put(`current/${name}.json`, '{}');
    const listed: string[] = [];
    for await (const object of store.list('current/')) {
      listed.push(object.key);
      // The folder was read before the first key: b goes between that and its turn.
      if (object.key === 'current/a.json') rmSync(join(dir, 'current/b.json'));
    }
    expect(listed).toEqual(['current/a.json', 'current/c.json']);
  });

  it("a writer killed while it held a key's lock does not stop the next one, started at once", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'current'), { recursive: true });
    const ready = join(dir, 'holder.pid');
    const holder = spawn(
      process.execPath,
      ['bin/run-ts.js', 'test/helpers/fs-lock-holder.ts', dir, 'current/a.json', ready],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    const pid = await waitForPid(ready);
    expect(readFileSync(join(dir, 'current/a.json.lock'), 'utf8')).toMatch(
      new RegExp(`^${hostname()}\\S* ${pid}$`),
    );
    holder.kill('SIGKILL');
    await exited;
    // The lock is seconds old, not stale by age: its holder is gone, which is what matters.
    const store = createFsObjectStore(dir);
    await expect(store.put('current/a.json', '{"after":1}', { ifNoneMatch: '*' })).resolves.toMatchObject({
      etag: expect.any(String),
    });
    expect((await store.get('current/a.json'))?.body).toBe('{"after":1}');
    expect(existsSync(join(dir, 'current/a.json.lock'))).toBe(false);
  });

  it('breaks only the lock it judged dead: a fresh lock taken meanwhile by another waiter stays', () => {
    const dir = tempDir();
    const lock = join(dir, 'a.json.lock');
    writeFileSync(lock, 'host 1');
    const old = new Date(Date.now() - 60 * 60_000);
    utimesSync(lock, old, old);
    const judged = { content: 'host 1', mtimeMs: statSync(lock).mtimeMs };
    // Another waiter broke that stale lock and took its own before this one acted on what it saw.
    rmSync(lock);
    writeFileSync(lock, 'host 2');
    expect(breakLock(lock, judged)).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe('host 2');
    // The one judged is broken, and nothing is left beside it.
    utimesSync(lock, old, old);
    expect(breakLock(lock, { content: 'host 2', mtimeMs: statSync(lock).mtimeMs })).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a holder whose lock was broken as stale meanwhile leaves the next holder's lock when it is done", async () => {
    const dir = tempDir();
    const lock = join(dir, 'a.json.lock');
    await withKeyLock(join(dir, 'a.json'), { staleMs: 30_000, waitMs: 1_000 }, () => {
      // Suspended past the stale age: another writer broke this lock and holds its own now.
      rmSync(lock);
      writeFileSync(lock, 'other-host 7');
    });
    expect(readFileSync(lock, 'utf8')).toBe('other-host 7');
    // Its own lock it removes.
    rmSync(lock);
    await withKeyLock(join(dir, 'a.json'), { staleMs: 30_000, waitMs: 1_000 }, () => {});
    expect(existsSync(lock)).toBe(false);
  });
});
