import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { jsonForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, DEFAULT_STORE, resolveSalt } from '../context.js';

const HANDLERS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'functions', 'handlers');

/** The handlers `driftwatch invoke` can run: every entry point file under functions/handlers. */
export function handlerNames(): string[] {
  const helpers = new Set(['common.ts', 'env.ts', 'middleware.ts']);
  return readdirSync(HANDLERS_DIR)
    .filter((file) => file.endsWith('.ts') && !helpers.has(file))
    .map((file) => file.replace(/\.ts$/, ''))
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
      const module = (await import(pathToFileURL(join(HANDLERS_DIR, `${name}.ts`)).href)) as {
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
