import type { Command } from 'commander';
import { FINDING_KINDS, FINDING_STATUSES } from '../../functions/core/findings/model.js';
import { FAIL_ON_HELP, LISTING_FORMAT_HELP, SEVERITY_HELP } from '../options.js';
import { type ListingOptions, parseListingFormat, parseSeverity } from '../output.js';
import { STORE_OPTION_HELP } from '../usage.js';
import { registerFindingsShow } from './findings-show.js';

export interface FindingsOptions extends ListingOptions {
  owner?: string;
  workspace?: string;
  kind?: string;
  status?: string;
  since?: string;
  health?: boolean;
  registry?: string;
  store?: string;
}

/** `driftwatch findings`: open findings (or recently resolved ones) from the store, filtered. */
export function registerFindings(program: Command, run: (code: number) => void): void {
  const findings = program
    .command('findings')
    .description('list findings from the store: open ones by default, with their age')
    .option('--owner <team>', 'only this owner')
    .option('--workspace <id>', 'only this workspace (or scope, e.g. s3.<bucket>)')
    .option('--kind <kind>', `only this kind (${FINDING_KINDS.join(', ')})`)
    .option(
      '--status <status>',
      `only this status (${FINDING_STATUSES.join(', ')}), or a comma list (new,changed,regressed); resolved reads the scan history`,
    )
    .option(
      '--since <when>',
      'first seen (resolved: resolved) at or after a date or a duration ago (2026-11-01, 7d, 12h)',
    )
    .option('--health', 'show the last scans and whether a scan is missing, instead of findings')
    .option(
      '--registry <file>',
      'registry: the schedule --health judges against, the source directories --format sarif points at',
    )
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--format <format>', LISTING_FORMAT_HELP, parseListingFormat, 'table')
    .option('--severity <level>', SEVERITY_HELP, parseSeverity)
    .option('--fail-on <level>', FAIL_ON_HELP, parseSeverity)
    .action(async (options: FindingsOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { findingsAction } = await import('./findings-action.js');
      await findingsAction(run, options);
    });
  registerFindingsShow(findings, run);
}
