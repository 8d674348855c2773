import {
  link,
  lstat,
  mkdir,
  readdir,
  readlink,
  realpath,
  rename,
  rm,
  symlink,
  unlink,
} from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isWithin } from '../path-within.js';
import { CACHE_LEVELS } from './run-environment.js';

/**
 * After `init`, each provider of a run is Terraform's symlink from
 * `<data dir>/providers/<host>/<namespace>/<type>/<version>/<platform>` into the shared plugin
 * cache. Another workspace's init replaces that cache entry whenever its lock file lacks the
 * package's `h1:` hash (no lock file committed, another platform's hashes only): it removes the
 * entry, then links or unpacks the package anew. A plan of this run starting a provider meanwhile
 * finds none ("Required plugins are not installed"), so concurrent scans failed at random. Right
 * after its init (under the plugin cache lock) a run's providers are therefore detached from the
 * cache's paths: a link to a package outside the cache (a filesystem mirror, a warm copy) is
 * pointed at that package itself; a package unpacked in the cache is hard-linked file by file (no
 * copy of a 700 MB binary, and the files outlive the removal of the cache entry). Where a hard link
 * is impossible (another file system, a file the run may not link) Terraform's link stays as it is.
 *
 * Returns the providers (relative to `<data dir>/providers`) left depending on the cache.
 */
export async function detachProvidersFromCache(dataDir: string, cacheDir: string): Promise<string[]> {
  const cache = await realpath(cacheDir).catch(() => cacheDir);
  const attached: string[] = [];
  const providers = join(dataDir, 'providers');
  for (const path of await packageLinks(providers)) {
    const target = await realpath(path).catch(() => undefined);
    if (target === undefined) continue;
    if (!isWithin(target, cache)) {
      await replaceWith(path, (staged) => symlink(target, staged));
      continue;
    }
    try {
      await replaceWith(path, (staged) => hardLinkTree(target, staged));
    } catch {
      attached.push(relative(providers, path));
    }
  }
  return attached;
}

/** The platform entries of Terraform's provider layout that are symlinks. */
async function packageLinks(dir: string, level = 0): Promise<string[]> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of entries) {
    if (!CACHE_LEVELS[level]!(name)) continue;
    const path = join(dir, name);
    const stats = await lstat(path).catch(() => undefined);
    if (level === CACHE_LEVELS.length - 1) {
      if (stats?.isSymbolicLink()) found.push(path);
    } else if (stats?.isDirectory()) found.push(...(await packageLinks(path, level + 1)));
  }
  return found;
}

/** Builds the replacement beside `path`, then puts it in place; nothing half-built is left. */
async function replaceWith(path: string, build: (staged: string) => Promise<void>): Promise<void> {
  const staged = `${path}.driftwatch-${process.pid}`;
  await rm(staged, { recursive: true, force: true });
  try {
    await build(staged);
    // A directory cannot be renamed over a symlink: the link goes first (no plan of this run is
    // running yet, and the cache lock keeps other inits out).
    await unlink(path);
    await rename(staged, path);
  } catch (error) {
    await rm(staged, { recursive: true, force: true });
    throw error;
  }
}

/** `to` as a tree of directories, hard links to the files of `from`, and copies of its symlinks. */
async function hardLinkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { mode: 0o755 });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) await hardLinkTree(source, target);
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else await link(source, target);
  }
}
