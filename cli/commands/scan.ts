import { SNSClient } from '@aws-sdk/client-sns';
import { type Command, InvalidArgumentError } from 'commander';
import { createLogger, logLevelFrom } from '../../functions/adapters/logger.js';
import { createSnsPublisher } from '../../functions/adapters/sns-publisher.js';
import { loadRegistryFile, openObjectStore, resolveHasher, STORE_OPTION_HELP, storedAt } from '../context.js';
import { runLocalScan } from '../local-runner.js';
import { exitCodeFor, type OutputFormat, parseFormat, renderFindings } from '../output.js';

interface ScanOptions {
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
      // Validate everything before the first write: an invalid registry writes nothing.
      const loaded = loadRegistryFile(options.registry);
      const store = openObjectStore(options.store);
      const topic = options.topic ?? process.env.DRIFTWATCH_TOPIC_ARN;
      const logger = createLogger({ format: 'text', level: logLevelFrom(process.env.DRIFTWATCH_LOG_LEVEL) });
      const result = await runLocalScan({
        loaded,
        store,
        hashSensitive: resolveHasher(),
        logger,
        workspaces: options.workspace,
        concurrency: options.concurrency,
        publisher: topic ? createSnsPublisher(new SNSClient({}), { topicArn: topic }) : undefined,
      });
      process.stdout.write(renderFindings(result.findings, options.format));
      const { workspaces } = result.summary;
      process.stderr.write(
        `scan ${result.scanId}: ${workspaces.scanned} scanned, ${workspaces.failed} failed, ${workspaces.busy} busy; ` +
          `findings stored in ${storedAt(store, result.summaryKey.replace(/summary\.json$/, ''))}\n`,
      );
      // A failed check of any kind (a workspace, a bucket, a cluster) makes the scan a failed one.
      run(result.summary.failures.length > 0 ? 1 : exitCodeFor(result.findings));
    });
}

export function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(`expected a positive integer, not ${value}`);
  return parsed;
}
