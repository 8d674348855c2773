import type { Command } from 'commander';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import { DEFAULT_SUPPRESSION_SETTINGS } from '../../functions/core/registry/model.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, loadRegistryFile, openObjectStore, STORE_OPTION_HELP, UsageError } from '../context.js';
import { parseUntil } from '../since.js';

interface SuppressOptions {
  reason: string;
  until: string;
  by: string;
  registry?: string;
  store?: string;
}

/**
 * `driftwatch suppress <id> --reason --until --by`: a reviewed, expiring decision to stop hearing
 * about one finding. Reason and expiry are required and the expiry is capped, so every suppression
 * comes back for review; the finding stays visible with status `suppressed`.
 */
export function registerSuppress(program: Command, run: (code: number) => void): void {
  program
    .command('suppress')
    .description('suppress one open finding until a date (it reopens then), with a reason')
    .argument('<findingId>', 'the finding id (driftwatch findings --format json)')
    .requiredOption('--reason <text>', 'why this finding may be ignored for now')
    .requiredOption(
      '--until <date>',
      "when it reopens (YYYY-MM-DD or an ISO time), at most the registry's maximum",
    )
    .requiredOption('--by <who>', 'who decided')
    .option('--registry <file>', 'registry, for suppressions.maxDuration (default 90d)')
    .option('--store <location>', STORE_OPTION_HELP)
    .action(async (findingId: string, options: SuppressOptions) => {
      const now = new Date();
      const maxDurationMs = options.registry
        ? loadRegistryFile(options.registry).registry.suppressions.maxDurationMs
        : DEFAULT_SUPPRESSION_SETTINGS.maxDurationMs;
      if (!/^[0-9a-f]{64}$/.test(findingId))
        throw new CliError(`${findingId} is not a finding id (64 hex characters)`);
      if (!options.reason.trim()) throw new UsageError('--reason must say why');
      if (!options.by.trim()) throw new UsageError('--by must say who decided');
      const until = parseUntil(options.until);
      if (until.getTime() <= now.getTime())
        throw new UsageError(`--until ${options.until} is not in the future`);
      const latest = new Date(now.getTime() + maxDurationMs);
      if (until.getTime() > latest.getTime()) {
        throw new UsageError(
          `--until ${options.until} is too far: suppressions last at most ${Math.round(maxDurationMs / 86_400_000)} days (until ${latest.toISOString().slice(0, 10)})`,
        );
      }
      const store = createFindingsStore(openObjectStore(options.store, process.env, { mustExist: true }));
      const suppression = {
        reason: options.reason.trim(),
        by: options.by.trim(),
        until: until.toISOString(),
        at: now.toISOString(),
      };
      const finding = await store.suppress(findingId, suppression);
      if (!finding) throw new CliError(`no open finding ${findingId} in ${store.location}`);
      // The title is data from a plan or a cluster.
      process.stdout.write(
        `${stripForTerminal(`suppressed ${findingId.slice(0, 12)}… (${finding.title}) until ${suppression.until.slice(0, 10)} by ${suppression.by}: ${suppression.reason}`)}\n`,
      );
      run(0);
    });
}
