import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { jsonForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, DEFAULT_STORE, resolveSalt } from '../context.js';
import { PACKAGE_ROOT, RUNS_COMPILED } from '../package-root.js';
import { rescanFilter, STATE_MACHINE_ENV, startRescan } from '../start-scan.js';

interface InvokeOptions {
  event?: string;
  workspace?: string;
  account?: string;
  stateMachine?: string;
}

// Compiled, the handlers are beside the CLI in dist/ (scripts/build-cli.mjs); from source, they are .ts.
const HANDLERS_DIR = join(PACKAGE_ROOT, ...(RUNS_COMPILED ? ['dist'] : []), 'functions', 'handlers');
const HANDLER_EXTENSION = RUNS_COMPILED ? '.js' : '.ts';

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
      if (options.workspace !== undefined || options.account !== undefined) {
        if (name !== undefined || options.event !== undefined)
          throw new CliError('--workspace/--account start the deployed scan: pass no handler and no --event');
        const started = await startRescan({
          filter: rescanFilter(options),
          ...(options.stateMachine ? { stateMachineArn: options.stateMachine } : {}),
        });
        process.stdout.write(`${jsonForTerminal(started)}\n`);
        run(0);
        return;
      }
      if (name === undefined || options.event === undefined)
        throw new CliError('pass <handler> --event <file>, or --workspace <id> / --account <id>');
      const names = handlerNames();
      if (!names.includes(name))
        throw new CliError(`unknown handler '${name}'; handlers: ${names.join(', ')}`);
      let event: unknown;
      try {
        event = JSON.parse(readFileSync(options.event, 'utf8'));
      } catch (error) {
        throw new CliError(`cannot read event ${options.event}: ${(error as Error).message}`);
      }
      // Locally, findings go to the CLI's store and sensitive values use the CLI's salt, unless set.
      if (!process.env.FINDINGS_BUCKET) process.env.DRIFTWATCH_STORE ??= DEFAULT_STORE;
      process.env.DRIFTWATCH_HASH_SALT ??= resolveSalt();
      const module = (await import(
        pathToFileURL(join(HANDLERS_DIR, `${name}${HANDLER_EXTENSION}`)).href
      )) as {
        handler: (event: unknown, context: unknown) => Promise<unknown>;
      };
      const result = await module.handler(event, localContext(name));
      process.stdout.write(`${jsonForTerminal(result)}\n`);
      run(0);
    });
}

function localContext(name: string) {
  return {
    functionName: `driftwatch-${name}`,
    awsRequestId: `local-${Date.now()}`,
    getRemainingTimeInMillis: () => 15 * 60_000,
    callbackWaitsForEmptyEventLoop: false,
  };
}
