import type { Command } from 'commander';
import { type BucketCommandOptions, durationOption, withBucketOptions } from '../options.js';

export interface LocksOptions extends BucketCommandOptions {
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
    // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
    const { locksAction } = await import('./locks-action.js');
    await locksAction(run, options);
  });
}
