import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  type ListedObject,
  type ObjectStore,
  PreconditionFailedError,
  type PutOptions,
  type StoredObject,
} from '../../core/findings/object-store.js';

/**
 * The same layout as the findings bucket, in a local directory (the CLI's default store). Writes go
 * to a temporary file first and are renamed into place, so a reader never sees half an object.
 * The read-compare-rename is synchronous, so conditional writes are atomic within one process.
 */
export function createFsObjectStore(root: string): ObjectStore {
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

    async put(key: string, body: string, options: PutOptions = {}) {
      const path = pathOf(key);
      const existing = read(key);
      if (options.ifNoneMatch === '*' && existing) throw new PreconditionFailedError(key);
      if (options.ifMatch !== undefined && existing?.etag !== options.ifMatch)
        throw new PreconditionFailedError(key);
      mkdirSync(dirname(path), { recursive: true });
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
    },

    async delete(key: string) {
      try {
        unlinkSync(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },

    async *list(prefix: string): AsyncIterable<ListedObject> {
      for (const path of walk(base)) {
        const key = relative(base, path).split(sep).join('/');
        if (!key.startsWith(prefix) || key.endsWith('.tmp')) continue;
        const stats = statSync(path);
        yield { key, size: stats.size, lastModified: stats.mtime };
      }
    },
  };
}

function etagOf(body: string): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

function* walk(dir: string): Generator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}
