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
      'workspaces planned at once (each plan holds ~0.8 GB for the AWS provider)',
      positiveInt,
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

export function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(`expected a positive integer, not ${value}`);
  return parsed;
}
