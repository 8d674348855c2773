import { confirmAndRecordLocks, observeAndStoreLocks } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import { durationText } from '../../functions/core/locks/duration-text.js';
import type { LockObservation } from '../../functions/core/locks/observation.js';
import { bucketScope } from '../../functions/core/routing/scopes.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { openBucketCommand, reportRuns, startBackendSession, storedIn } from '../backend-session.js';
import { CliError } from '../context.js';
import { checkFindingsStore } from '../store-preflight.js';
import { waitWithProgress } from '../wait.js';
import { checkBucketCommandLine, preflightLine, readFailureLines } from './check-backend-shared.js';
import { type LocksOptions, MAX_CONFIRM_AFTER } from './locks.js';

/** The action of `cli/commands/locks.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function locksAction(run: (code: number) => void, options: LocksOptions): Promise<void> {
  const { bucket, registry, store } = openBucketCommand(options);
  checkBucketCommandLine(options);
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
  // --confirm-after is bounded by its parser (locks.ts); the registry's locks.confirmAfter is not.
  if (target.confirmAfterMs > MAX_CONFIRM_AFTER.ms)
    throw new CliError(
      `locks.confirmAfter in ${options.registry} is ${durationText(target.confirmAfterMs)}, longer than ${MAX_CONFIRM_AFTER.text}, the longest window locks waits out: pass --confirm-after (e.g. 10m), or shorten it in the registry`,
    );
  await checkFindingsStore(store, {
    scope: bucketScope(bucket),
    storeOption: options.store,
    notToBeConfusedWith: 'the state bucket, which is --bucket',
  });
  const { scan, deps } = startBackendSession(store);
  const { observation } = await observeAndStoreLocks(target, deps, scan);
  const seen = locksSeen(observation, `s3://${bucket}/${target.prefix}`);
  await waitWithProgress(Date.parse(observation.confirmAt) - Date.now(), (remainingMs) =>
    process.stderr.write(`locks: ${seen}; confirming in ${durationText(remainingMs)}\n`),
  );
  const { outcomes, confirmation } = await confirmAndRecordLocks(target, deps, scan);
  reportRuns(outcomes, options, run);
  if (confirmation.preflight)
    process.stderr.write(`driftwatch: ${preflightLine(bucket, confirmation.preflight)}\n`);
  for (const line of readFailureLines(confirmation.runs)) process.stderr.write(`driftwatch: ${line}\n`);
  const verdicts = countBy(confirmation.verdicts.map((entry) => entry.verdict));
  // Places counted above, locks judged below: one held in two places is one finding, and says so.
  const joined = confirmation.verdicts.filter((entry) => entry.sameLockAs !== undefined).length;
  const places = joined > 0 ? `; ${joined} of them the same lock as another, one finding for both` : '';
  process.stderr.write(
    `locks: ${seen}${verdicts ? ` (${verdicts}${places})` : ''}; ${stripForTerminal(storedIn(store, scan))}\n`,
  );
}

/**
 * What the first look saw, for the progress and summary lines (the prefix and keys are data: no
 * escape sequence reaches the terminal). A lock that was listed but could not be read is counted
 * and said, and so is a listing or a lock table that could not be read: never "0 lock(s)" for locks
 * that are there but unread.
 */
export function locksSeen(observation: LockObservation, where: string): string {
  if (observation.preflight) return stripForTerminal(`${where} not checked`);
  // A failure with a state key is the GET of one listed lock object (core/locks/snapshot.ts).
  const unreadLocks = observation.failures.filter((failure) => failure.stateKey !== undefined);
  const others = observation.failures.filter((failure) => failure.stateKey === undefined);
  const listing = others.filter((failure) => failure.resource.startsWith('s3://'));
  const tables = others.filter((failure) => !failure.resource.startsWith('s3://'));
  const parts =
    listing.length > 0
      ? [`locks in ${where} not listed (${codes(listing)})`]
      : [`${observation.locks.length + unreadLocks.length} lock(s) in ${where}`];
  if (unreadLocks.length > 0)
    parts.push(`${unreadLocks.length} of them could not be read (${codes(unreadLocks)})`);
  for (const table of tables)
    parts.push(`lock table ${table.resource.replace(/^dynamodb:/, '')} not read (${table.code})`);
  return stripForTerminal(parts.join(', '));
}

function codes(failures: LockObservation['failures']): string {
  return [...new Set(failures.map((failure) => failure.code))].sort().join(', ');
}

/** `stale 1, young 2` */
function countBy(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${value} ${count}`).join(', ');
}
