import { checkAndRecordBackend } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import {
  openBucketCommand,
  reportPreflight,
  reportRuns,
  startBackendSession,
  storedIn,
} from '../backend-session.js';
import type { CheckBackendOptions } from './check-backend.js';

/** The action of `cli/commands/check-backend.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function checkBackendAction(
  run: (code: number) => void,
  options: CheckBackendOptions,
): Promise<void> {
  const { bucket, registry, store } = openBucketCommand(options);
  const target = adhocTarget(
    { bucket, region: options.region, keys: options.key, lockTables: options.lockTable },
    registry,
  );
  const { scan, deps } = startBackendSession(store);
  const { outcomes, result } = await checkAndRecordBackend(target, deps, scan);
  reportRuns(outcomes, options, run);
  reportPreflight(bucket, result.preflight);
  for (const key of result.missingStateKeys)
    process.stderr.write(`driftwatch: no state object at s3://${bucket}/${key} (never applied, or a typo)\n`);
  const seen = result.preflight
    ? 'not checked'
    : `${result.stateObjects} state object(s), ${result.locks} lock file(s)`;
  process.stderr.write(`check-backend s3://${bucket}: ${seen}; ${storedIn(store, scan)}\n`);
}
