import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  type ListedObject,
  type ObjectStore,
  PreconditionFailedError,
  type PutOptions,
  type StoredObject,
} from '../../core/findings/object-store.js';

/** A lock older than this was left by a process that died holding it: a holder needs milliseconds. */
const LOCK_STALE_MS = 30_000;
/** How long a writer waits for a key's lock before it gives up with an error naming the lock. */
const LOCK_WAIT_MS = 20_000;

export interface FsObjectStoreOptions {
  lockStaleMs?: number;
  lockWaitMs?: number;
}

/**
 * The same layout as the findings bucket, in a local directory (the CLI's default store). Writes go
 * to a temporary file first and are renamed into place, so a reader never sees half an object.
 * Every write and delete of a key holds that key's lock file (`<key>.lock`, created with O_EXCL,
 * which is atomic across processes), so the compare of a conditional write and its rename happen
 * with no other writer in between: the same promise as S3's conditional writes, for many processes
 * (parallel CLI scans, a scan and a `suppress`) sharing one directory.
 */
export function createFsObjectStore(root: string, options: FsObjectStoreOptions = {}): ObjectStore {
  const lockStaleMs = options.lockStaleMs ?? LOCK_STALE_MS;
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
  const base = resolve(root);
  const pathOf = (key: string) => {
    const path = resolve(base, key);
    if (!path.startsWith(base + sep)) throw new Error(`key ${key} leaves the store`);
    return path;
  };
  const read = (key: string): StoredObject | undefined => {
    try {
      const body = readFileSync(pathOf(key), 'utf8');
      return { body, etag: etagOf(body) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  return {
    location: base,

    async get(key: string) {
      return read(key);
    },

    async put(key: string, body: string, putOptions: PutOptions = {}) {
      const path = pathOf(key);
      mkdirSync(dirname(path), { recursive: true });
      return withKeyLock(path, { staleMs: lockStaleMs, waitMs: lockWaitMs }, () => {
        const existing = read(key);
        if (putOptions.ifNoneMatch === '*' && existing) throw new PreconditionFailedError(key);
        if (putOptions.ifMatch !== undefined && existing?.etag !== putOptions.ifMatch)
          throw new PreconditionFailedError(key);
        const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
        try {
          writeFileSync(temporary, body, { mode: 0o600 });
          renameSync(temporary, path);
        } catch (error) {
          try {
            unlinkSync(temporary);
          } catch {
            // nothing was written
          }
          throw error;
        }
        return { etag: etagOf(body) };
      });
    },

    async delete(key: string, deleteOptions: { ifMatch?: string } = {}) {
      const path = pathOf(key);
      if (!existsDir(dirname(path))) return;
      await withKeyLock(path, { staleMs: lockStaleMs, waitMs: lockWaitMs }, () => {
        const existing = read(key);
        if (!existing) return;
        if (deleteOptions.ifMatch !== undefined && existing.etag !== deleteOptions.ifMatch)
          throw new PreconditionFailedError(key);
        try {
          unlinkSync(path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      });
    },

    async *list(prefix: string): AsyncIterable<ListedObject> {
      const folder = listingFolder(prefix);
      for (const path of walk(folder ? pathOf(folder) : base)) {
        const key = relative(base, path).split(sep).join('/');
        if (!key.startsWith(prefix) || key.endsWith('.tmp') || key.endsWith('.lock')) continue;
        // Deleted since its folder was read (another process quarantined it, sent an outbox digest):
        // gone, as S3 would not have listed it, not an ENOENT that stops the listing.
        const stats = statSync(path, { throwIfNoEntry: false });
        if (!stats) continue;
        yield { key, size: stats.size, lastModified: stats.mtime };
      }
    },
  };
}

/**
 * The folder a listing of `prefix` starts its walk from (`''`: the store's root): the prefix up to its
 * last `/`. From the root, a listing of one day of history walked every file of every day, and a
 * report (one listing per day of its window) walked the whole store 30 times: seconds for a store
 * of a few months, while only that day's folder can hold keys under the prefix.
 */
export function listingFolder(prefix: string): string {
  return prefix.slice(0, prefix.lastIndexOf('/') + 1);
}

/**
 * Runs `work` holding `<path>.lock`. O_EXCL creation is atomic across processes; a lock older than
 * `staleMs`, or whose holder (host and pid, written in it) is a process of this host that no longer
 * runs, belonged to a process that died holding it and is broken. Waiters back off with jitter so
 * five processes hammering one key do not move in lockstep. Exported for the test that kills a holder.
 */
export async function withKeyLock<T>(
  path: string,
  limits: { staleMs: number; waitMs: number },
  work: () => T,
): Promise<T> {
  const lock = `${path}.lock`;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      try {
        writeSync(fd, LOCK_HOLDER);
      } catch (error) {
        // A disk full: not left behind as a lock nobody releases for 30 s.
        closeSync(fd);
        unlinkSync(lock);
        throw error;
      }
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // A scan killed (SIGKILL, the OOM killer) while it held a lock: the next run, started at once,
    // waited out its 20 s and failed before the 30 s age made the lock stale.
    const seen = observeLock(lock);
    if (!seen) continue; // released meanwhile: try again at once
    if (Date.now() - seen.mtimeMs > limits.staleMs || holderIsGone(seen.content)) {
      breakLock(lock, seen);
      continue;
    }
    if (Date.now() - started > limits.waitMs) {
      throw new Error(
        `${path} stayed locked for ${Math.round(limits.waitMs / 1000)}s by another driftwatch process: ` +
          `wait for it to finish, or delete ${lock} if none is running`,
      );
    }
    const ceiling = Math.min(50, 2 ** Math.min(attempt, 6));
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * ceiling));
  }
  try {
    return work();
  } finally {
    // Only its own: a holder that outlived the stale age (a machine suspended mid-write) had its lock
    // broken, and removing the lock another writer took since would let a third one in beside it.
    const seen = observeLock(lock);
    if (seen?.content === LOCK_HOLDER) breakLock(lock, seen);
  }
}

/**
 * Where this process's pid means something: the host and, on Linux, its pid namespace. Containers
 * that share a store directory and a host name (host networking) each number their own processes:
 * another container's live holder must not be judged by whether that pid runs here.
 */
const PID_SPACE = `${hostname()}${pidNamespace()}`;

/** Who holds a lock this process takes, so a waiter in the same pid space can tell a dead holder. */
const LOCK_HOLDER = `${PID_SPACE} ${process.pid}`;

function pidNamespace(): string {
  try {
    return `/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return '';
  }
}

/**
 * Whether the lock names a holder in this pid space (host, namespace) that is not running: a pid that does not exist, or
 * this process's own (its locks are held only during synchronous work, so a lock naming its pid was
 * left by an earlier process with the same pid: a container's runs all start as the same pid).
 * Another host's holder, or a lock without a holder (written before its content), is judged by age.
 */
function holderIsGone(content: string): boolean {
  const match = /^(.+) (\d+)$/.exec(content);
  if (!match || match[1] !== PID_SPACE) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A lock as a waiter saw it (its holder and when it was taken); undefined when it is gone. */
interface SeenLock {
  content: string;
  mtimeMs: number;
}

function observeLock(lock: string): SeenLock | undefined {
  try {
    return { mtimeMs: statSync(lock).mtimeMs, content: readFileSync(lock, 'utf8') };
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock a waiter judged dead, and only that one. Several waiters judge the same dead lock;
 * the first removes it and takes a fresh one, and a plain unlink by the next removed that live lock
 * (two writers then compared and renamed at once: a lost update). The lock is moved aside first (one
 * mover wins), removed if it is the one judged, else put back unless a newer one is already there.
 * Whether it removed the judged lock.
 */
export function breakLock(lock: string, judged: SeenLock): boolean {
  const aside = `${lock}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    renameSync(lock, aside);
  } catch {
    return false; // another waiter moved it first
  }
  const moved = observeLock(aside);
  const same = moved?.mtimeMs === judged.mtimeMs && moved.content === judged.content;
  if (!same) {
    try {
      linkSync(aside, lock);
    } catch {
      // a newer lock is already in place
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // nothing left to remove
  }
  return same;
}

function existsDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function etagOf(body: string): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

function* walk(dir: string): Generator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    // A folder that is not there holds nothing; one that cannot be read (EACCES) is an error, or a
    // listing of an unreadable store would say "No findings.".
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}
