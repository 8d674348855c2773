import { describeAwsError } from '../functions/adapters/aws-error.js';
import { currentKey } from '../functions/core/findings/layout.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import { CliError } from './usage.js';

/**
 * The findings store, checked before a command that records findings does its real work (a scan of
 * minutes, terraform plans included, must not end on a store it could have refused at once): a
 * bucket that does not exist or may not be read, or a directory that cannot be read, is one line that
 * says it is the findings store (a directory that is a file: openObjectStore's `writable`). It reads
 * one scope's current document, the first object recording reads anyway; nothing is written.
 */
export async function checkFindingsStore(
  store: ObjectStore,
  options: {
    /** A scope the command records (its current document is read). */
    scope: string;
    /** `--store` as given (undefined: DRIFTWATCH_STORE or the default chose it). */
    storeOption: string | undefined;
    /** What the findings store is easily taken for, said in the fix (`the state bucket, which is --bucket`). */
    notToBeConfusedWith?: string;
    env?: NodeJS.ProcessEnv;
  },
): Promise<void> {
  const env = options.env ?? process.env;
  // Chosen as openObjectStore chooses it (context.ts): --store, then DRIFTWATCH_STORE, then the default.
  const option = options.storeOption === undefined && env.DRIFTWATCH_STORE ? 'DRIFTWATCH_STORE' : '--store';
  const s3 = store.location.startsWith('s3://');
  const name = s3 ? store.location.replace(/\/$/, '') : store.location;
  const fix = `pass ${option} with a directory or s3://bucket`;
  try {
    await store.get(currentKey(options.scope));
  } catch (error) {
    const code = (error as { Code?: unknown }).Code ?? (error as { name?: unknown }).name;
    if (s3 && code === 'NoSuchBucket')
      throw new CliError(
        `the findings store ${name} does not exist (NoSuchBucket): pass ${option} with the bucket findings are recorded in${options.notToBeConfusedWith ? ` (not ${options.notToBeConfusedWith})` : ''}, or create it`,
      );
    if (!s3) {
      const fileCode = (error as NodeJS.ErrnoException).code;
      if (fileCode === undefined) throw error;
      throw new CliError(
        `cannot read the findings store at ${name} (${fileCode}): check its permissions, or ${fix}`,
      );
    }
    const why = describeAwsError(error, { env });
    if (why === undefined) throw error;
    throw new CliError(`cannot read the findings store ${name}: ${why}`);
  }
}
