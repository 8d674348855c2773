import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_ROOT, RUNS_COMPILED } from '../package-root.js';
import { STATE_MACHINE_ENV } from '../usage.js';

export interface InvokeOptions {
  event?: string;
  workspace?: string;
  account?: string;
  stateMachine?: string;
}

// Compiled, the handlers are beside the CLI in dist/ (scripts/build-cli.mjs); from source, they are .ts.
export const HANDLERS_DIR = join(PACKAGE_ROOT, ...(RUNS_COMPILED ? ['dist'] : []), 'functions', 'handlers');
export const HANDLER_EXTENSION = RUNS_COMPILED ? '.js' : '.ts';

/** The handlers `driftwatch invoke` can run: every entry point file under functions/handlers. */
export function handlerNames(): string[] {
  const helpers = new Set(['common', 'env', 'middleware']);
  return readdirSync(HANDLERS_DIR)
    .filter((file) => file.endsWith(HANDLER_EXTENSION))
    .map((file) => file.slice(0, -HANDLER_EXTENSION.length))
    .filter((name) => !helpers.has(name))
    .sort();
}

/**
 * `driftwatch invoke <handler> --event <file>`: runs a Lambda handler in-process with a sample event.
 * `driftwatch invoke --workspace <id> | --account <id>`: re-scans on demand in AWS, through the
 * deployed state machine with a filter.
 */
export function registerInvoke(program: Command, run: (code: number) => void): void {
  program
    .command('invoke')
    .description(
      'run a Lambda handler locally with an event file (see events/), or re-scan one workspace or account in AWS',
    )
    .argument('[handler]', 'handler name, e.g. scan-terraform')
    .option('--event <file>', 'event JSON, e.g. events/scan-terraform.json')
    .option('--workspace <id>', 're-scan this workspace: start the deployed state machine with a filter')
    .option(
      '--account <id>',
      "re-scan this account's workspaces (12 digits; 'default': those without roleArn)",
    )
    .option('--state-machine <arn>', `the deployed state machine (default: $${STATE_MACHINE_ENV})`)
    .action(async (name: string | undefined, options: InvokeOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { invokeAction } = await import('./invoke-action.js');
      await invokeAction(run, name, options);
    });
}
