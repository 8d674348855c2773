import { confirmAndRecordLocks, observeAndStoreLocks } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import { durationText } from '../../functions/core/locks/duration-text.js';
import {
  openBucketCommand,
  reportPreflight,
  reportRuns,
  startBackendSession,
  storedIn,
} from '../backend-session.js';
import { waitWithProgress } from '../wait.js';
import type { LocksOptions } from './locks.js';

/** The action of `cli/commands/locks.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function locksAction(run: (code: number) => void, options: LocksOptions): Promise<void> {
  const { bucket, registry, store } = openBucketCommand(options);
  const target = adhocTarget(
    {
      bucket,
      region: options.region,
      prefix: options.prefix,
      lockTables: options.lockTable,
      staleAfterMs: options.staleAfter,
      confirmAfterMs: options.confirmAfter,
    },
    registry,
  );
  const { scan, deps } = startBackendSession(store);
  const { observation } = await observeAndStoreLocks(target, deps, scan);
  const seen = observation.preflight
    ? `s3://${bucket}/${target.prefix} not checked`
    : `${observation.locks.length} lock(s) in s3://${bucket}/${target.prefix}`;
  await waitWithProgress(Date.parse(observation.confirmAt) - Date.now(), (remainingMs) =>
    process.stderr.write(`locks: ${seen}; confirming in ${durationText(remainingMs)}\n`),
  );
  const { outcomes, confirmation } = await confirmAndRecordLocks(target, deps, scan);
  reportRuns(outcomes, options, run);
  reportPreflight(bucket, confirmation.preflight);
  const verdicts = countBy(confirmation.verdicts.map((entry) => entry.verdict));
  process.stderr.write(`locks: ${seen}${verdicts ? ` (${verdicts})` : ''}; ${storedIn(store, scan)}\n`);
}

/** `stale 1, young 2` */
function countBy(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${value} ${count}`).join(', ');
}
