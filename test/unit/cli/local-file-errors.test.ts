import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveSalt } from '../../../cli/hasher.js';
import { reportError } from '../../../cli/report-error.js';
import { CliError } from '../../../cli/usage.js';
import { isAwsError } from '../../../functions/adapters/aws-error.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { useTempDirs } from '../../helpers/processes.js';

/**
 * Errors of local files, as a user without a writable home (HOME=/nonexistent, a CI runner's user)
 * or with an unreadable store met them: `evaluate-plan` said "EACCES on this request (from AWS)",
 * and `findings --store <unreadable dir>` said "No findings." with exit 0. Real errors of the file
 * system here (ENOTDIR, ELOOP: the tests may run as root, for whom no permission is ever denied).
 */
const tempDir = useTempDirs('driftwatch-file-errors-');

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

/** A file where a directory is expected: mkdir below it fails with ENOTDIR, a real Node error. */
function fileInTheWay(): string {
  const file = join(tempDir(), 'not-a-dir');
  writeFileSync(file, '');
  return file;
}

describe('errors of local files', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are not taken for AWS errors, and are one line naming the file, the cause and the fix', () => {
    const error = thrownBy(() => mkdirSync(join(fileInTheWay(), 'driftwatch'), { recursive: true }));
    expect(isAwsError(error)).toBe(false);
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    expect(reportError(error, false)).toBe(1);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^driftwatch: cannot create .*not-a-dir.* \(ENOTDIR\): .*check the path\n$/);
    expect(written[0]).not.toMatch(/AWS|unexpected/);
  });

  it('a home where the salt cannot be kept names DRIFTWATCH_HASH_SALT', () => {
    const error = thrownBy(() => resolveSalt({ XDG_CONFIG_HOME: fileInTheWay() }));
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(
      /^cannot keep the salt for hashes of sensitive values in .*not-a-dir.* \(ENOTDIR\): set DRIFTWATCH_HASH_SALT/,
    );
  });

  it('a store folder that cannot be listed is an error, not an empty store', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'scans'));
    // A link to itself: readdir fails with ELOOP, as an unreadable folder fails with EACCES.
    symlinkSync('loop', join(dir, 'loop'));
    const unlistable = createFsObjectStore(join(dir, 'loop'));
    const listing = async () => {
      for await (const _object of unlistable.list('')) {
        // nothing: the listing itself must fail
      }
    };
    await expect(listing()).rejects.toMatchObject({ code: 'ELOOP' });
    // An absent folder still lists as empty (a store before its first scan).
    const keys: string[] = [];
    for await (const object of createFsObjectStore(join(dir, 'absent')).list('')) keys.push(object.key);
    expect(keys).toEqual([]);
  });
});
