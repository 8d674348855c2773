import { checkAndRecordBackend } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import { bucketScope } from '../../functions/core/routing/scopes.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { openBucketCommand, reportRuns, startBackendSession, storedIn } from '../backend-session.js';
import { EXIT_RUNTIME_ERROR } from '../context.js';
import { checkFindingsStore } from '../store-preflight.js';
import type { CheckBackendOptions } from './check-backend.js';
import {
  checkBucketCommandLine,
  checkStateKeys,
  missingKeyLine,
  preflightLine,
  readFailureLines,
} from './check-backend-shared.js';

/** The action of `cli/commands/check-backend.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function checkBackendAction(
  run: (code: number) => void,
  options: CheckBackendOptions,
): Promise<void> {
  const { bucket, registry, store } = openBucketCommand(options);
  checkBucketCommandLine(options);
  checkStateKeys(options.key, bucket);
  await checkFindingsStore(store, {
    scope: bucketScope(bucket),
    storeOption: options.store,
    notToBeConfusedWith: 'the state bucket, which is --bucket',
  });
  const target = adhocTarget(
    { bucket, region: options.region, keys: options.key, lockTables: options.lockTable },
    registry,
  );
  const { scan, deps } = startBackendSession(store);
  const { outcomes, result } = await checkAndRecordBackend(target, deps, scan);
  // A --key that names no object was not checked: "No findings." would pass a CI gate that guards it.
  const missingKeys = result.missingStateKeys.filter((key) => options.key.includes(key));
  reportRuns(outcomes, options, run, missingKeys.length > 0);
  if (result.preflight) process.stderr.write(`driftwatch: ${preflightLine(bucket, result.preflight)}\n`);
  for (const line of readFailureLines(result.runs)) process.stderr.write(`driftwatch: ${line}\n`);
  for (const key of missingKeys) process.stderr.write(`driftwatch: ${missingKeyLine(bucket, key)}\n`);
  // A registry workspace whose state is not there yet (never applied) is said, not an error.
  for (const key of result.missingStateKeys.filter((candidate) => !options.key.includes(candidate)))
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`no state object at s3://${bucket}/${key} (never applied, or a typo)`)}\n`,
    );
  if (missingKeys.length > 0) run(EXIT_RUNTIME_ERROR);
  const seen = result.preflight
    ? 'not checked'
    : `${result.stateObjects} state object(s), ${result.locks} lock file(s)`;
  process.stderr.write(`check-backend s3://${bucket}: ${seen}; ${stripForTerminal(storedIn(store, scan))}\n`);
}
