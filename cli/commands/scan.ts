import { type Command, InvalidArgumentError } from 'commander';
import { FAIL_ON_HELP, LISTING_FORMAT_HELP, SEVERITY_HELP } from '../options.js';
import { type ListingOptions, parseListingFormat, parseSeverity } from '../output.js';
import { STORE_OPTION_HELP } from '../usage.js';

export interface ScanOptions extends ListingOptions {
  registry: string;
  store?: string;
  workspace?: string[];
  concurrency: number;
  topic?: string;
}

/** `driftwatch scan`: the nightly pipeline, in-process. */
export function registerScan(program: Command, run: (code: number) => void): void {
  program
    .command('scan')
    .description('run the nightly pipeline in-process: refresh-only plans for every registered workspace')
    .option('--registry <file>', 'the registry', 'driftwatch.yaml')
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--workspace <id...>', 'scan only these workspaces')
    .option(
      '--concurrency <n>',
      `workspaces planned at once, 1 to ${MAX_CONCURRENCY} (each plan holds ~0.8 GB for the AWS provider)`,
      parseConcurrency,
      2,
    )
    .option(
      '--topic <arn>',
      "SNS topic for the owners' digests (default $DRIFTWATCH_TOPIC_ARN; none: digests are only logged)",
    )
    .option('--format <format>', LISTING_FORMAT_HELP, parseListingFormat, 'table')
    .option('--severity <level>', SEVERITY_HELP, parseSeverity)
    .option('--fail-on <level>', FAIL_ON_HELP, parseSeverity)
    .action(async (options: ScanOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { scanAction } = await import('./scan-action.js');
      await scanAction(run, options);
    });
}

/** Each plan holds ~0.8 GB: more at once than this (~50 GB) is a typo, not a machine. */
export const MAX_CONCURRENCY = 64;

/** `--concurrency`: digits only (`1e3`, `0x10` and `2.0` are not what anyone types for a count). */
export function parseConcurrency(value: string): number {
  const parsed = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= 1 && parsed <= MAX_CONCURRENCY))
    throw new InvalidArgumentError(
      `expected a whole number of plans from 1 to ${MAX_CONCURRENCY} (each holds ~0.8 GB), not ${value}`,
    );
  return parsed;
}
