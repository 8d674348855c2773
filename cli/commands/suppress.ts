import type { Command } from 'commander';
import { STORE_OPTION_HELP } from '../usage.js';

export interface SuppressOptions {
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
    .argument(
      '<findingId>',
      'the finding id or a unique prefix of it (4+ characters; the ID column of driftwatch findings)',
    )
    .requiredOption('--reason <text>', 'why this finding may be ignored for now')
    .requiredOption(
      '--until <date>',
      "when it reopens (YYYY-MM-DD or an ISO time), at most the registry's maximum",
    )
    .requiredOption('--by <who>', 'who decided')
    .option('--registry <file>', 'registry, for suppressions.maxDuration (default 90d)')
    .option('--store <location>', STORE_OPTION_HELP)
    .action(async (findingId: string, options: SuppressOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { suppressAction } = await import('./suppress-action.js');
      await suppressAction(run, findingId, options);
    });
}
