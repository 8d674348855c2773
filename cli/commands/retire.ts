import type { Command } from 'commander';
import { STORE_OPTION_HELP } from '../usage.js';

export interface RetireOptions {
  registry: string;
  store?: string;
  dryRun?: boolean;
}

/**
 * `driftwatch retire <scope> --registry <file>`: resolves the open findings of a workspace, cluster
 * or state bucket the registry no longer has (removed or renamed), which no scan will ever record
 * again. Refused for a scope the registry still scans: its findings would come back `regressed`.
 */
export function registerRetire(program: Command, run: (code: number) => void): void {
  program
    .command('retire')
    .description(
      'resolve the open findings of a workspace, cluster or state bucket no longer in the registry',
    )
    .argument('<scope>', 'the workspace or cluster id (or s3.<bucket>) the findings belong to')
    .requiredOption('--registry <file>', 'the registry the scanner runs with: the scope must not be in it')
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--dry-run', 'list what would be resolved, change nothing')
    .action(async (scope: string, options: RetireOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { retireAction } = await import('./retire-action.js');
      await retireAction(run, scope, options);
    });
}
