import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { jsonForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, DEFAULT_STORE, resolveSalt } from '../context.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { rescanFilter, startRescan } from '../start-scan.js';
import { HANDLER_EXTENSION, HANDLERS_DIR, handlerNames, type InvokeOptions } from './invoke.js';

/** The action of `cli/commands/invoke.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function invokeAction(
  run: (code: number) => void,
  name: string | undefined,
  options: InvokeOptions,
): Promise<void> {
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
  if (!names.includes(name)) throw new CliError(`unknown handler '${name}'; handlers: ${names.join(', ')}`);
  const event = readEvent(options.event, name);
  // Locally, findings go to the CLI's store and sensitive values use the CLI's salt, unless set.
  // An empty DRIFTWATCH_STORE is unset here too (context.ts openObjectStore).
  if (!process.env.FINDINGS_BUCKET) process.env.DRIFTWATCH_STORE ||= DEFAULT_STORE;
  process.env.DRIFTWATCH_HASH_SALT ??= resolveSalt();
  const module = (await import(pathToFileURL(join(HANDLERS_DIR, `${name}${HANDLER_EXTENSION}`)).href)) as {
    handler: (event: unknown, context: unknown) => Promise<unknown>;
  };
  const result = await module.handler(event, localContext(name));
  process.stdout.write(`${jsonForTerminal(result)}\n`);
  run(0);
}

/** The event file as JSON; a file that is missing or not JSON is one line naming the sample to start from. */
function readEvent(path: string, handler: string): unknown {
  const sample = existsSync(join(PACKAGE_ROOT, 'events', `${handler}.json`))
    ? `events/${handler}.json in the driftwatch package`
    : 'the samples in events/ of the driftwatch package';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(
      `cannot read event ${path} (${code}): pass a JSON event file, e.g. a copy of ${sample}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `event ${path} is not JSON (${(error as Error).message}): write the event as JSON, e.g. starting from ${sample}`,
    );
  }
}

function localContext(name: string) {
  return {
    functionName: `driftwatch-${name}`,
    awsRequestId: `local-${Date.now()}`,
    getRemainingTimeInMillis: () => 15 * 60_000,
    callbackWaitsForEmptyEventLoop: false,
  };
}
