import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { withHttpTimeouts } from '../functions/adapters/aws-http-timeouts.js';
import {
  bucketLocation,
  lazyObjectStore,
  openStoreAt,
  parseStoreLocation,
} from '../functions/adapters/object-store/location.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import type { LoadedRegistry } from './registry-file.js';
import { CliError, DEFAULT_STORE, UsageError } from './usage.js';

// The light definitions (errors, exit codes, help text) live in usage.ts so that `driftwatch --help`
// and the command registrations load them without this module's SDK client and registry parser.
export {
  CliError,
  DEFAULT_STORE,
  EXIT_RUNTIME_ERROR,
  EXIT_USAGE,
  HELP_EXIT_CODES_AND_ENVIRONMENT,
  STORE_OPTION_HELP,
  UsageError,
} from './usage.js';

/** Where an object of the store is, for messages: `<location>/<key>`. */
export function storedAt(store: { location: string }, key = ''): string {
  return `${store.location.replace(/\/?$/, '/')}${key}`;
}

/**
 * Where findings go: `s3://bucket` (the deployed layout) or a local directory with the same layout.
 * `--store` wins, then DRIFTWATCH_STORE, then `.driftwatch/store` under the current directory.
 */
export function openObjectStore(
  location: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: {
    /** Commands that only read findings: a directory that is not there is an error. */
    mustExist?: boolean;
    /** Commands that record findings: a directory may be missing (it is created), not a file. */
    writable?: boolean;
  } = {},
): ObjectStore {
  // `--store ''` would be the current directory (resolve('')): a scan would write its findings there.
  if (location === '') throw new UsageError('--store takes a directory or s3://bucket, not an empty value');
  // An empty DRIFTWATCH_STORE counts as unset, as an empty DRIFTWATCH_HASH_SALT or _LOG_LEVEL does:
  // `DRIFTWATCH_STORE= driftwatch findings` reads the default store, not a store named ''.
  const fromEnv = env.DRIFTWATCH_STORE || undefined;
  const chosen = location ?? fromEnv ?? DEFAULT_STORE;
  const chosenBy =
    location !== undefined ? '--store' : fromEnv !== undefined ? 'DRIFTWATCH_STORE' : 'the default';
  const parsed = parseStoreLocation(chosen);
  if (!parsed)
    throw new UsageError(
      `${chosenBy === 'DRIFTWATCH_STORE' ? chosenBy : '--store'} takes a directory or s3://bucket, not ${chosen}`,
    );
  if ('dir' in parsed && (options.mustExist || options.writable))
    assertStoreDirectory(parsed.dir, chosenBy, options.mustExist === true);
  return openStoreAt('dir' in parsed ? { dir: resolve(parsed.dir) } : parsed, openBucketStore);
}

/** A bucket's store, whose AWS SDK client loads at the first request: local stores never load it. */
function openBucketStore(bucket: string): ObjectStore {
  return lazyObjectStore(bucketLocation(bucket), async () => {
    const [{ S3Client }, { createS3ObjectStore }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('../functions/adapters/object-store/s3-object-store.js'),
    ]);
    return createS3ObjectStore(new S3Client(withHttpTimeouts()), bucket);
  });
}

/**
 * Commands that only read findings need a store that exists: an empty listing of a mistyped path
 * would read as "No findings." (a missing bucket fails on its own, with NoSuchBucket). Commands that
 * record (`mustExist` false) create a missing one, but not inside or in place of a file, which they
 * would only meet when they write, after minutes of checking.
 */
function assertStoreDirectory(dir: string, chosenBy: string, mustExist: boolean): void {
  const fix = `pass ${chosenBy === 'DRIFTWATCH_STORE' ? chosenBy : '--store'} with a directory or s3://bucket`;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!mustExist && code === 'ENOENT') return;
    if (!mustExist && code === 'ENOTDIR')
      throw new CliError(`the findings store ${dir} is below a file, not in a directory: ${fix}`);
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new CliError(
        `no findings store at ${dir} (chosen by ${chosenBy}): pass --store with the directory or s3://bucket a scan wrote to, or run driftwatch scan first`,
      );
    throw new CliError(`cannot read the findings store at ${dir} (${code ?? (error as Error).message})`);
  }
  if (!isDirectory) throw new CliError(`the findings store ${dir} is a file, not a directory: ${fix}`);
}

// Salt and hasher live in hasher.ts (evaluate-plan loads them without the SDK and registry parser).
export { resolveHasher, resolveSalt } from './hasher.js';

/**
 * For commands whose registry is optional: the registry file at `path`, its YAML parser and schemas
 * loaded only when there is one (reading a store alone never loads them).
 */
export async function loadOptionalRegistry(path: string | undefined): Promise<LoadedRegistry | undefined> {
  if (path === undefined) return undefined;
  const { loadRegistryFile } = await import('./registry-file.js');
  return loadRegistryFile(path);
}
