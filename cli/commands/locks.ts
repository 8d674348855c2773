import { type Command, InvalidArgumentError } from 'commander';
import { type BucketCommandOptions, durationOption, withBucketOptions } from '../options.js';

export interface LocksOptions extends BucketCommandOptions {
  prefix?: string;
  staleAfter?: number;
  confirmAfter?: number;
}

/**
 * The longest confirmation window: `locks` waits it out in one process (the default is 10m), and a
 * proof needs two looks minutes apart, not days. Beyond a day it is a typo (`10d` for `10m`), and far
 * beyond, a date no clock can hold.
 */
export const MAX_CONFIRM_AFTER = { ms: 86_400_000, text: '1d' } as const;
/** The longest stale-lock threshold: a lock held for a year is stale under any policy. */
export const MAX_STALE_AFTER = { ms: 365 * 86_400_000, text: '365d' } as const;

/** A duration parser (durationOption) with an upper bound: beyond it, a usage error (exit 64). */
function durationUpTo(max: { ms: number; text: string }, what: string): (value: string) => number {
  return (value) => {
    const ms = durationOption(value);
    if (ms > max.ms) throw new InvalidArgumentError(`must be at most ${max.text} (${what})`);
    return ms;
  };
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
      "one threshold for every operation, e.g. 2h, at most 365d (default: plan 1h, apply 2h, other 30m, or the registry's)",
      durationUpTo(MAX_STALE_AFTER, 'a lock older than that is stale under any policy'),
    )
    .option(
      '--confirm-after <duration>',
      "time between the two looks, e.g. 10m, at most 1d (default 10m, or the registry's)",
      durationUpTo(MAX_CONFIRM_AFTER, 'locks waits this long between its two looks; the default is 10m'),
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
