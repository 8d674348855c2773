// Option parsers and shared option sets the command registrations use. Registrations load on every
// start (`driftwatch --help` included), so this module imports only commander and small pure helpers.
import { type Command, InvalidArgumentError } from 'commander';
import { SEVERITIES } from '../functions/core/findings/model.js';
import { parseDuration } from '../functions/core/registry/duration.js';
import { type ListingOptions, parseListingFormat, parseSeverity } from './output.js';
import { STORE_OPTION_HELP } from './usage.js';

/** Commander parser for `--stale-after 2h`, `--confirm-after 10m`. */
export function durationOption(value: string): number {
  try {
    const ms = parseDuration(value);
    if (ms <= 0) throw new Error('must be longer than zero');
    return ms;
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * Commander parser for `--out <file>` (init, report): `-` means standard output to whoever typed it
 * (`evaluate-plan -` reads standard input), but was written as a file named `-` in the current
 * directory, and the summary said so only by its path.
 */
export function outFileOption(value: string): string {
  if (value === '-')
    throw new InvalidArgumentError(
      "the command writes a file, not standard output: pass a file name (a file named '-' is ./-)",
    );
  return value;
}

/** Commander collector for repeatable options (`--key a --key b`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** What `check-backend` and `locks` both take, besides their own options. */
export interface BucketCommandOptions extends ListingOptions {
  bucket: string;
  lockTable: string[];
  region?: string;
  registry?: string;
  store?: string;
}

export function withBucketOptions(command: Command, registryHelp: string): Command {
  return command
    .requiredOption('--bucket <bucket>', 'the state bucket')
    .option('--lock-table <table>', 'a legacy DynamoDB lock table, dynamodb_table (repeatable)', collect, [])
    .option('--region <region>', "the bucket's region (default: the registry's, else the SDK's)")
    .option('--registry <file>', registryHelp)
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--format <format>', LISTING_FORMAT_HELP, parseListingFormat, 'table')
    .option('--severity <level>', SEVERITY_HELP, parseSeverity)
    .option('--fail-on <level>', FAIL_ON_HELP, parseSeverity);
}

// The options of every command that lists findings (findings, evaluate-plan, scan, cluster-diff,
// check-backend, locks): same words everywhere, so --help and docs/cli.md say one thing.
export const LISTING_FORMAT_HELP =
  'table, json, markdown (a pull-request comment) or sarif (SARIF 2.1.0, for code scanning)';
export const SEVERITY_HELP = `show only findings at or above this severity (${SEVERITIES.join(', ')})`;
export const FAIL_ON_HELP = 'exit 2 only when a shown finding is at or above this severity (default: low)';
