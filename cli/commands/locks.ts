import type { Command } from 'commander';
import { confirmAndRecordLocks, observeAndStoreLocks } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import { durationText } from '../../functions/core/locks/duration-text.js';
import {
  type BucketCommandOptions,
  durationOption,
  openBucketCommand,
  reportPreflight,
  reportRuns,
  startBackendSession,
  storedIn,
  withBucketOptions,
} from '../backend-session.js';
import { waitWithProgress } from '../wait.js';

interface LocksOptions extends BucketCommandOptions {
  prefix?: string;
  staleAfter?: number;
  confirmAfter?: number;
}

/**
 * `driftwatch locks --bucket B`: both phases of the stale-lock proof in one process: observe, wait
 * out the confirmation window (saying so on stderr), confirm.
 */
export function registerLocks(program: Command, run: (code: number) => void): void {
  const command = program
    .command('locks')
    .description(
      'find state locks and prove which are stale: two looks a confirmation window apart; read-only',
    )
    .option(
      '--prefix <prefix>',
      'only states and locks under this key prefix (and under env:/<workspace>/<prefix>)',
    )
    .option(
      '--stale-after <duration>',
      "one threshold for every operation, e.g. 2h (default: plan 1h, apply 2h, other 30m, or the registry's)",
      durationOption,
    )
    .option(
      '--confirm-after <duration>',
      "time between the two looks, e.g. 10m (default 10m, or the registry's)",
      durationOption,
    );
  withBucketOptions(
    command,
    "driftwatch.yaml: the bucket's workspaces give owners and per-workspace thresholds",
  ).action(async (options: LocksOptions) => {
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
    reportRuns(outcomes, options.format, run);
    reportPreflight(bucket, confirmation.preflight);
    const verdicts = countBy(confirmation.verdicts.map((entry) => entry.verdict));
    process.stderr.write(`locks: ${seen}${verdicts ? ` (${verdicts})` : ''}; ${storedIn(store, scan)}\n`);
  });
}

/** `stale 1, young 2` */
function countBy(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${value} ${count}`).join(', ');
}
