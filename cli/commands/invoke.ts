import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { jsonForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, DEFAULT_STORE, resolveSalt } from '../context.js';
import { PACKAGE_ROOT, RUNS_COMPILED } from '../package-root.js';

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

/** `driftwatch invoke <handler> --event <file>`: runs a Lambda handler in-process with a sample event. */
export function registerInvoke(program: Command, run: (code: number) => void): void {
  program
    .command('invoke')
    .description('run a Lambda handler locally with an event file (see events/)')
    .argument('<handler>', 'handler name, e.g. scan-terraform')
    .requiredOption('--event <file>', 'event JSON, e.g. events/scan-terraform.json')
    .action(async (name: string, options: { event: string }) => {
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
