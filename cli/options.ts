// Option parsers and shared option sets the command registrations use. Registrations load on every
// start (`driftwatch --help` included), so this module imports only commander and small pure helpers.
import { type Command, InvalidArgumentError } from 'commander';
import { parseDuration } from '../functions/core/registry/duration.js';
import { type OutputFormat, parseFormat } from './output.js';
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

/** Commander collector for repeatable options (`--key a --key b`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** What `check-backend` and `locks` both take, besides their own options. */
export interface BucketCommandOptions {
  bucket: string;
  lockTable: string[];
  region?: string;
  registry?: string;
  store?: string;
  format: OutputFormat;
}

export function withBucketOptions(command: Command, registryHelp: string): Command {
  return command
    .requiredOption('--bucket <bucket>', 'the state bucket')
    .option('--lock-table <table>', 'a legacy DynamoDB lock table, dynamodb_table (repeatable)', collect, [])
    .option('--region <region>', "the bucket's region (default: the registry's, else the SDK's)")
    .option('--registry <file>', registryHelp)
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--format <format>', 'table or json', parseFormat, 'table');
}
