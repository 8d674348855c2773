import { SNSClient } from '@aws-sdk/client-sns';
import { withHttpTimeouts } from '../../functions/adapters/aws-http-timeouts.js';
import { createLogger, logLevelFrom } from '../../functions/adapters/logger.js';
import { createSnsPublisher } from '../../functions/adapters/sns-publisher.js';
import { DigestsNotSentError } from '../../functions/core/notify/notify-owners.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, openObjectStore, resolveHasher, storedAt } from '../context.js';
import { runLocalScan } from '../local-runner.js';
import { exitCodeFor, registrySourceRoots, renderFindings } from '../output.js';
import { progressMode } from '../progress.js';
import { createProgressDisplay, type ProgressDisplay } from '../progress-display.js';
import { loadRegistryFile } from '../registry-file.js';
import { checkFindingsStore } from '../store-preflight.js';
import { tableWidth } from '../terminal.js';
import type { ScanOptions } from './scan.js';

/** The action of `cli/commands/scan.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function scanAction(run: (code: number) => void, options: ScanOptions): Promise<void> {
  // Validate everything before the first write: an invalid registry writes nothing.
  const loaded = loadRegistryFile(options.registry);
  // A registry `init` wrote for a bucket without states: "No findings." would be about nothing read.
  if (loaded.registry.workspaces.length === 0 && loaded.registry.clusters.length === 0)
    throw new CliError(
      `nothing to scan: ${loaded.path} lists no workspaces and no clusters; add the Terraform roots whose state to scan (driftwatch init --bucket <state bucket> writes one entry per state it finds)`,
    );
  // A file where the store belongs is said as such now, not as ENOTDIR once the preflight reads it.
  const store = openObjectStore(options.store, process.env, { writable: true });
  // The store is checked before the first terraform init: a scan of minutes must not end on it.
  await checkFindingsStore(store, {
    scope:
      loaded.registry.workspaces[0]?.id ?? loaded.registry.clusters[0]?.id ?? loaded.registry.owners.fallback,
    storeOption: options.store,
    notToBeConfusedWith: 'a state bucket the registry names',
  });
  const topic = options.topic ?? process.env.DRIFTWATCH_TOPIC_ARN;
  const display = progressDisplayFor(process.stderr, process.env);
  const logger = createLogger({
    format: 'text',
    level: logLevelFrom(process.env.DRIFTWATCH_LOG_LEVEL),
    ...(display ? { write: display.line } : {}),
  });
  let result: Awaited<ReturnType<typeof runLocalScan>>;
  try {
    result = await runLocalScan({
      loaded,
      store,
      hashSensitive: resolveHasher(),
      logger,
      workspaces: options.workspace,
      concurrency: options.concurrency,
      publisher: topic
        ? createSnsPublisher(new SNSClient(withHttpTimeouts()), { topicArn: topic })
        : undefined,
      progress: display?.event,
    });
  } finally {
    // Cleared before anything else is written, an error included: no half status line is left.
    display?.stop();
  }
  process.stdout.write(
    renderFindings(result.findings, options.format, undefined, undefined, {
      severity: options.severity,
      sourceRootOf: registrySourceRoots(loaded),
    }),
  );
  const { workspaces } = result.summary;
  process.stderr.write(
    `scan ${result.scanId}: ${workspaces.scanned} scanned, ${workspaces.failed} failed, ${workspaces.busy} busy; ` +
      otherChecksFailed(result.summary.failures) +
      `findings stored in ${storedAt(store, result.summaryKey.replace(/summary\.json$/, ''))}\n`,
  );
  // Digests SNS did not accept are kept for the next scan, but the person running this one hears it.
  const deferred = result.notified?.deferred ?? [];
  if (deferred.length > 0)
    process.stderr.write(`driftwatch: ${stripForTerminal(new DigestsNotSentError(deferred).message)}\n`);
  // A failed check of any kind (a workspace, a bucket, a cluster) makes the scan a failed one.
  run(result.summary.failures.length > 0 || deferred.length > 0 ? 1 : exitCodeFor(result.findings, options));
}

/**
 * The checks other than workspaces' (a cluster, a state bucket's backend or locks) that failed, after
 * the workspace counts: a registry whose one cluster could not be read ended in "0 scanned, 0 failed".
 */
function otherChecksFailed(failures: ReadonlyArray<{ workspace: string; check?: string }>): string {
  const others = failures.flatMap((failure) =>
    failure.check ? [`${failure.check} ${failure.workspace}`] : [],
  );
  if (others.length === 0) return '';
  const named = others.length > 5 ? `${others.slice(0, 5).join(', ')}, …` : others.join(', ');
  return `${others.length} other check${others.length === 1 ? '' : 's'} failed (${named}); `;
}

/** A status line redrawn in place on a terminal; undefined: the plain log lines, as into a pipe. */
function progressDisplayFor(
  stream: { isTTY?: boolean; columns?: number; write(text: string): unknown },
  env: NodeJS.ProcessEnv,
): ProgressDisplay | undefined {
  const isTTY = stream.isTTY === true;
  if (progressMode({ isTTY, env }) !== 'tty') return undefined;
  // DRIFTWATCH_PROGRESS=tty into a pipe has no columns: 80, the width terminals open with.
  const width = tableWidth({ isTTY, columns: stream.columns, env }) ?? 80;
  return createProgressDisplay({ write: (text) => stream.write(text), width });
}
