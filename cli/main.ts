import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { describeAwsError } from '../functions/adapters/aws-error.js';
import {
  exitCleanlyOnFatalErrors,
  exitCleanlyOnSignals,
} from '../functions/adapters/terraform/interrupt-cleanup.js';
import { LockObservationMissingError } from '../functions/core/backend/stages.js';
import { UnknownStateBucketError } from '../functions/core/backend/target.js';
import { ConfirmationTooEarlyError } from '../functions/core/locks/check-locks.js';
import { redactText } from '../functions/core/redaction/secrets.js';
import { RegistryError } from '../functions/core/registry/parse.js';
import { PlanFormatError } from '../functions/core/terraform/plan-error.js';
import { stripForTerminal } from '../functions/core/text/sanitize.js';
import { ConfigurationError } from '../functions/handlers/env.js';
import { InvalidEventError } from '../functions/handlers/middleware.js';
import { registerCheckBackend } from './commands/check-backend.js';
import { registerClusterDiff } from './commands/cluster-diff.js';
import { registerDemo } from './commands/demo.js';
import { registerEvaluatePlan } from './commands/evaluate-plan.js';
import { registerFindings } from './commands/findings.js';
import { registerInit } from './commands/init.js';
import { registerInvoke } from './commands/invoke.js';
import { registerLocks } from './commands/locks.js';
import { registerProviders } from './commands/providers.js';
import { registerRoutes } from './commands/routes.js';
import { registerScan } from './commands/scan.js';
import { registerSuppress } from './commands/suppress.js';
import { CliError, EXIT_RUNTIME_ERROR, EXIT_USAGE, HELP_EXIT_CODES_AND_ENVIRONMENT } from './context.js';
import { MotoUnavailableError } from './demo/moto.js';

/** Commands set the exit code through this, so `main` decides when the process ends. */
let exitCode = 0;
const setExitCode = (code: number) => {
  exitCode = code;
};

const program = new Command('driftwatch')
  .description('read-only drift and policy scanner for Terraform estates on AWS')
  .option('--debug', 'print the stack trace of an unexpected error (errors are one line otherwise)')
  .showHelpAfterError()
  .exitOverride()
  .addHelpText('after', HELP_EXIT_CODES_AND_ENVIRONMENT);

registerEvaluatePlan(program, setExitCode);
registerScan(program, setExitCode);
registerClusterDiff(program, setExitCode);
registerCheckBackend(program, setExitCode);
registerLocks(program, setExitCode);
registerInvoke(program, setExitCode);
registerFindings(program, setExitCode);
registerSuppress(program, setExitCode);
registerRoutes(program, setExitCode);
registerInit(program, setExitCode);
registerProviders(program, setExitCode);
registerDemo(program, setExitCode);
for (const command of program.commands)
  command.addHelpText(
    'after',
    command.name() === 'demo'
      ? '\nExit codes: 0 the demo ran as planned, 1 it did not, 64 usage error.'
      : '\nExit codes: 0 nothing above info, 2 findings above info, 1 error or failed scan, 64 usage error.\nErrors are one line; --debug adds the stack trace (driftwatch --help, docs/cli.md).',
  );

// Terraform and its providers run in their own process groups: take them down with us, and leave
// no working directory, plan file or plugin cache lock behind (process.exit skips finally blocks).
exitCleanlyOnSignals();

// An error raised outside the command's promise (a stream's 'error' event) is still one line, and
// leaves nothing behind either.
exitCleanlyOnFatalErrors(reportError);

// A reader that went away (`driftwatch findings | head`) is not an error of ours: stop quietly, as
// Unix tools do, instead of reporting the broken pipe as a failure.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(exitCode);
  });

try {
  await program.parseAsync(process.argv);
  process.exitCode = exitCode;
} catch (error) {
  process.exitCode = reportError(error);
}

/**
 * Every error is one line (a registry's problems: one line each) with the cause and the fix; a stack
 * trace only with --debug. Exit codes: 64 for a usage error, 1 for anything else (README, docs/cli.md).
 */
function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed the problem (or the help / version text).
    return error.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  const expected = [
    RegistryError,
    CliError,
    InvalidArgumentError,
    InvalidEventError,
    ConfigurationError,
    MotoUnavailableError,
    UnknownStateBucketError,
    ConfirmationTooEarlyError,
    LockObservationMissingError,
    PlanFormatError,
  ];
  const debug = debugRequested();
  if (expected.some((type) => error instanceof type)) {
    // Messages quote data (ids, keys, names, endpoints from stores and AWS errors): printed inert and
    // without credentials (an endpoint or store URL may carry a password).
    const message = redactText((error as Error).message);
    process.stderr.write(`driftwatch: ${stripForTerminal(message, { multiline: true })}\n`);
    if (debug) printStack(error);
    return error instanceof CliError ? error.exitCode : EXIT_RUNTIME_ERROR;
  }
  // The AWS line is built from error names, codes and hosts; an unexpected message may quote anything.
  const line =
    describeAwsError(error, { env: process.env }) ??
    `unexpected error: ${redactText(oneLine(error))} (run with --debug for the stack trace, and report it if it persists)`;
  process.stderr.write(`driftwatch: ${stripForTerminal(line)}\n`);
  if (debug) printStack(error);
  return EXIT_RUNTIME_ERROR;
}

/** From the parsed options, or from argv when parsing itself failed before it got there. */
function debugRequested(): boolean {
  return program.opts().debug === true || process.argv.includes('--debug');
}

function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const firstLine = error.message.split('\n', 1)[0] ?? '';
  return `${error.name}: ${firstLine}`;
}

function printStack(error: unknown): void {
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${stripForTerminal(redactText(stack), { multiline: true })}\n`);
}
