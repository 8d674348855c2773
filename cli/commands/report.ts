import type { Command } from 'commander';
import { outFileOption } from '../options.js';
import { STORE_OPTION_HELP } from '../usage.js';

export interface ReportOptions {
  out: string;
  owner?: string;
  nights?: string;
  store?: string;
}

/**
 * `driftwatch report --out report.html`: the findings store as one self-contained HTML page (headline,
 * 30-night trend, ages, per-owner and per-environment tables, a filterable findings table with details,
 * backend and lock health, failed workspaces). It opens offline: from S3, a file or a mail attachment.
 */
export function registerReport(program: Command, run: (code: number) => void): void {
  program
    .command('report')
    .description('write the findings store as one self-contained HTML report (opens offline)')
    .requiredOption(
      '--out <file>',
      'the HTML file to write (replaced whole, never half-written)',
      outFileOption,
    )
    .option('--owner <team>', "only this owner's findings (the report each team gets)")
    .option('--nights <n>', 'nights of history for the trend and each finding (default 30)')
    .option('--store <location>', STORE_OPTION_HELP)
    .action(async (options: ReportOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { reportAction } = await import('./report-action.js');
      await reportAction(run, options);
    });
}
