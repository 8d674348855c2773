// How the CLI reports an error: loaded when a command runs or fails (main.ts), not at start-up, since
// recognising the expected errors means importing their modules from the whole tree.
import { CommanderError, InvalidArgumentError } from 'commander';
import { describeAwsError } from '../functions/adapters/aws-error.js';
import { ProxyConfigurationError } from '../functions/adapters/https-proxy.js';
import { LockObservationMissingError } from '../functions/core/backend/stages.js';
import { UnknownStateBucketError } from '../functions/core/backend/target.js';
import { NewerStoreObjectError } from '../functions/core/findings/stored-schemas.js';
import { ConfirmationTooEarlyError } from '../functions/core/locks/check-locks.js';
import { redactText } from '../functions/core/redaction/secrets.js';
import { RegistryError } from '../functions/core/registry/problems.js';
import { PlanFormatError } from '../functions/core/terraform/plan-error.js';
import { stripForTerminal } from '../functions/core/text/sanitize.js';
import { ConfigurationError } from '../functions/handlers/env.js';
import { InvalidEventError } from '../functions/handlers/middleware.js';
import { MotoUnavailableError } from './demo/moto.js';
import { CliError, EXIT_RUNTIME_ERROR, EXIT_USAGE } from './usage.js';

/**
 * Every error is one line (a registry's problems: one line each) with the cause and the fix; a stack
 * trace only with --debug. Exit codes: 64 for a usage error, 1 for anything else (docs/cli.md).
 */
export function reportError(error: unknown, debug: boolean): number {
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
    NewerStoreObjectError,
    ProxyConfigurationError,
  ];
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
    describeFileError(error) ??
    `unexpected error: ${redactText(oneLine(error))} (run with --debug for the stack trace, and report it if it persists)`;
  process.stderr.write(`driftwatch: ${stripForTerminal(line)}\n`);
  if (debug) printStack(error);
  return EXIT_RUNTIME_ERROR;
}

const FILE_VERBS: Readonly<Record<string, string>> = {
  open: 'open',
  read: 'read',
  write: 'write',
  mkdir: 'create',
  scandir: 'list',
  opendir: 'list',
  rename: 'replace',
  unlink: 'remove',
  stat: 'read',
  lstat: 'read',
};
const FILE_CAUSES: Readonly<Record<string, string>> = {
  EACCES: 'permission denied: check its permissions (ls -ld) or run as a user who may use it',
  EPERM: 'operation not permitted: check its permissions (ls -ld) or run as a user who may use it',
  EROFS: 'the file system is read-only: point driftwatch at a writable path',
  ENOSPC: 'no space left on the device: free some, or point driftwatch at another disk',
  EDQUOT: 'the disk quota is exceeded: free some, or point driftwatch at another disk',
  EISDIR: 'it is a directory: pass the path of a file',
  ENOTDIR: 'a part of the path is a file, not a directory: check the path',
  ENOENT: 'no such file or directory: check the path',
  EMFILE: 'too many open files: raise the limit (ulimit -n)',
};

/** A local file's error (Node's code, syscall and path) as one line: what, where, why, and the fix. */
function describeFileError(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== 'string' || typeof syscall !== 'string' || typeof path !== 'string') return undefined;
  const verb = FILE_VERBS[syscall] ?? `${syscall}`;
  const cause = FILE_CAUSES[code] ?? `${code}: run again with --debug for the full error`;
  return `cannot ${verb} ${redactText(path)} (${code}): ${cause}`;
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
