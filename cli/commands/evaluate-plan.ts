import type { Command } from 'commander';
import { FAIL_ON_HELP, LISTING_FORMAT_HELP, SEVERITY_HELP } from '../options.js';
import { type ListingOptions, parseListingFormat, parseSeverity } from '../output.js';

/** The workspace id of a plan evaluated on its own, outside any registry entry. */
export const DEFAULT_WORKSPACE = 'adhoc';

export interface EvaluatePlanOptions extends ListingOptions {
  workspace: string;
  environment?: string;
  owner?: string;
  registry?: string;
  config?: string;
}

/** `driftwatch evaluate-plan <plan.json>`: findings of one `terraform show -json` plan, nothing stored. */
export function registerEvaluatePlan(program: Command, run: (code: number) => void): void {
  program
    .command('evaluate-plan')
    .description('print the findings of one `terraform show -json` plan (nothing is stored)')
    .argument('<plan.json>', 'output of `terraform show -json <planfile>`, or - to read it from stdin')
    .option(
      '--workspace <id>',
      'workspace the plan belongs to (its registry entry supplies owner, environment and policies)',
      DEFAULT_WORKSPACE,
    )
    .option('--environment <name>', 'environment, for severity (prod ranks higher)')
    .option('--owner <team>', 'owner to put on the findings')
    .option('--registry <file>', 'driftwatch.yaml with policies (noise, ignore rules, severities)')
    .option(
      '--config <dir>',
      "the plan's root module directory: its lifecycle.ignore_changes and removed blocks are applied",
    )
    .option('--format <format>', LISTING_FORMAT_HELP, parseListingFormat, 'table')
    .option('--severity <level>', SEVERITY_HELP, parseSeverity)
    .option('--fail-on <level>', FAIL_ON_HELP, parseSeverity)
    .action(async (planPath: string, options: EvaluatePlanOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { evaluatePlanAction } = await import('./evaluate-plan-action.js');
      await evaluatePlanAction(run, planPath, options);
    });
}
