import type { Command } from 'commander';
import type { ListingFormat } from '../output.js';

/**
 * `driftwatch findings show <id>`: one finding in full. `--store` and `--format` are those of
 * `driftwatch findings`: commander gives a parent's options to the parent wherever they are typed,
 * so the subcommand reads them from there (optsWithGlobals) instead of declaring its own.
 */
export function registerFindingsShow(findings: Command, run: (code: number) => void): void {
  findings
    .command('show')
    .description('one finding in full: resource, owner, changes, evidence, history and remediation')
    .argument(
      '<id>',
      'the finding id or a unique prefix of it (4+ characters: the ID column of driftwatch findings)',
    )
    .addHelpText(
      'after',
      '\nOptions of driftwatch findings apply: --store <location>, --format table|json.\nExit codes: 0 shown, 1 unknown or ambiguous id or unreadable store, 64 not an id or a --format other than table or json (docs/cli.md).',
    )
    .action(async (typed: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals() as { store?: string; format: ListingFormat };
      const { findingsShowAction } = await import('./findings-show-action.js');
      await findingsShowAction(run, typed, options);
    });
}
