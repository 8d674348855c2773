import { type Command, InvalidArgumentError } from 'commander';
import { STORE_OPTION_HELP } from '../usage.js';

export type RemediateFormat = 'text' | 'json';

export interface RemediateOptions {
  revert?: boolean;
  adopt?: boolean;
  store?: string;
  registry?: string;
  config?: string;
  format: RemediateFormat;
}

/** `text` (default) or `json`; `table` is taken as text, the word the listing commands use. */
export function parseRemediateFormat(value: string): RemediateFormat {
  if (value === 'text' || value === 'table') return 'text';
  if (value === 'json') return 'json';
  throw new InvalidArgumentError(`use text or json, not ${value}`);
}

/**
 * `driftwatch remediate <id> --revert | --adopt`: the reviewed fix for one finding, prepared and
 * printed (docs/remediation.md). It reads the findings store and, when it can, the configuration;
 * it never changes anything.
 */
export function registerRemediate(program: Command, run: (code: number) => void): void {
  program
    .command('remediate')
    .description(
      'prepare the reviewed revert (the plan to run) or adopt (the configuration to change) of one finding: prints, never applies',
    )
    .argument(
      '<id>',
      'the finding id or a unique prefix of it (4+ characters: the ID column of driftwatch findings)',
    )
    .option(
      '--revert',
      "print the targeted plan to run through the team's pipeline and the changes it will propose",
    )
    .option(
      '--adopt',
      'print the configuration (HCL, or YAML for a cluster object) holding the live values, and where to edit it',
    )
    .option('--store <location>', STORE_OPTION_HELP)
    .option(
      '--registry <file>',
      "registry: the workspace's source directory, var files and backend (default: driftwatch.yaml here, if there is one)",
    )
    .option(
      '--config <dir>',
      "the Terraform root module directory (default: the registry's source.dir of the workspace)",
    )
    .option('--format <format>', 'text or json', parseRemediateFormat, 'text')
    .addHelpText(
      'after',
      '\nIt never applies: driftwatch does not run terraform apply, kubectl apply or argocd app sync.\n' +
        "Run the printed plan through the team's pipeline, review it, and apply the reviewed plan there.",
    )
    .action(async (typed: string, options: RemediateOptions) => {
      const { remediateAction } = await import('./remediate-action.js');
      await remediateAction(run, typed, options);
    });
}
