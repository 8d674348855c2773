import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { killRunningProcesses } from '../functions/adapters/terraform/run-process.js';
import { LockObservationMissingError } from '../functions/core/backend/stages.js';
import { UnknownStateBucketError } from '../functions/core/backend/target.js';
import { ConfirmationTooEarlyError } from '../functions/core/locks/check-locks.js';
import { RegistryError } from '../functions/core/registry/parse.js';
import { stripForTerminal } from '../functions/core/text/sanitize.js';
import { ConfigurationError } from '../functions/handlers/env.js';
import { InvalidEventError } from '../functions/handlers/middleware.js';
import { registerCheckBackend } from './commands/check-backend.js';
import { registerClusterDiff } from './commands/cluster-diff.js';
import { registerDemo } from './commands/demo.js';
import { registerEvaluatePlan } from './commands/evaluate-plan.js';
import { registerFindings } from './commands/findings.js';
import { registerInvoke } from './commands/invoke.js';
import { registerLocks } from './commands/locks.js';
import { registerRoutes } from './commands/routes.js';
import { registerScan } from './commands/scan.js';
import { registerSuppress } from './commands/suppress.js';
import { CliError } from './context.js';
import { MotoUnavailableError } from './demo/moto.js';

/** Commands set the exit code through this, so `main` decides when the process ends. */
let exitCode = 0;
const setExitCode = (code: number) => {
  exitCode = code;
};

const program = new Command('driftwatch')
  .description('read-only drift and policy scanner for Terraform estates on AWS')
  .showHelpAfterError()
  .exitOverride();

registerEvaluatePlan(program, setExitCode);
registerScan(program, setExitCode);
registerClusterDiff(program, setExitCode);
registerCheckBackend(program, setExitCode);
registerLocks(program, setExitCode);
registerInvoke(program, setExitCode);
registerFindings(program, setExitCode);
registerSuppress(program, setExitCode);
registerRoutes(program, setExitCode);
registerDemo(program, setExitCode);

// Terraform and its providers run in their own process groups: take them down with us.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killRunningProcesses();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

try {
  await program.parseAsync(process.argv);
  process.exitCode = exitCode;
} catch (error) {
  process.exitCode = reportError(error);
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed the problem (or the help / version text).
    return error.exitCode === 0 ? 0 : 1;
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
  ];
  if (expected.some((type) => error instanceof type)) {
    // Messages quote data (ids, keys, names from stores and AWS errors): printed inert.
    process.stderr.write(`driftwatch: ${stripForTerminal((error as Error).message, { multiline: true })}\n`);
    return 1;
  }
  process.stderr.write(
    `driftwatch: unexpected error: ${stripForTerminal((error as Error)?.stack ?? String(error), { multiline: true })}\n`,
  );
  return 1;
}
