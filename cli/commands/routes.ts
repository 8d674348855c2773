import type { Command } from 'commander';
import { type OutputFormat, parseFormat } from '../output.js';

/** `driftwatch routes [--check]`: who gets what, and (with --check) what would reach nobody. */
export function registerRoutes(program: Command, run: (code: number) => void): void {
  program
    .command('routes')
    .description(
      "show where each workspace's findings go; --check fails when something reaches no destination",
    )
    .option('--check', 'exit 1 and list every workspace, bucket or finding kind without a destination')
    .option('--registry <file>', 'the registry', 'driftwatch.yaml')
    .option('--format <format>', 'table or json', parseFormat, 'table')
    .action(async (options: { check?: boolean; registry: string; format: OutputFormat }) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { routesAction } = await import('./routes-action.js');
      await routesAction(run, options);
    });
}
