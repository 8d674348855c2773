import { type Command, InvalidArgumentError } from 'commander';
import { type OutputFormat, parseFormat } from '../output.js';
import { STORE_OPTION_HELP } from '../usage.js';

export interface ScanOptions {
  registry: string;
  store?: string;
  workspace?: string[];
  concurrency: number;
  topic?: string;
  format: OutputFormat;
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
    .option('--format <format>', 'table or json', parseFormat, 'table')
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
