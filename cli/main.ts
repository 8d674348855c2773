import { Command, CommanderError } from 'commander';
import {
  cleanUpInterruptedRun,
  exitCleanlyOnSignals,
} from '../functions/adapters/terraform/interrupt-cleanup.js';
import { registerCheckBackend } from './commands/check-backend.js';
import { registerClusterDiff } from './commands/cluster-diff.js';
import { registerDemo } from './commands/demo.js';
import { registerEvaluatePlan } from './commands/evaluate-plan.js';
import { registerFindings } from './commands/findings.js';
import { registerInit } from './commands/init.js';
import { registerInvoke } from './commands/invoke.js';
import { registerLocks } from './commands/locks.js';
import { registerProviders } from './commands/providers.js';
import { registerRemediate } from './commands/remediate.js';
import { registerReport } from './commands/report.js';
import { registerRetire } from './commands/retire.js';
import { registerRoutes } from './commands/routes.js';
import { registerScan } from './commands/scan.js';
import { registerSuppress } from './commands/suppress.js';
import { refuseEmptyOptionValues } from './empty-options.js';
import { excessArgumentsLine } from './excess-arguments.js';
import { packageVersion } from './package-root.js';
import { EXIT_USAGE, HELP_EXIT_CODES_AND_ENVIRONMENT } from './usage.js';

/** `error: unknown option '--fromat'\n(Did you mean --format?)\n` → one `driftwatch:` line with the fix. */
function usageErrorLine(text: string): string {
  const cause = text
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return `driftwatch: ${optionBeforeCommand(cause) ?? `${cause} (the command's --help lists its arguments and options)`}\n`;
}

/**
 * `driftwatch --store s findings`: the option exists, but a command's options follow the command, and
 * commander's "unknown option '--store'" reads as if it did not. Said when the option comes before the
 * command (or with none) and some command takes it.
 */
function optionBeforeCommand(cause: string): string | undefined {
  const typed = /^unknown option '([^']+)'/.exec(cause)?.[1];
  if (typed === undefined) return undefined;
  const flag = typed.split('=')[0];
  const args = process.argv.slice(2);
  const names = new Set(program.commands.map((command) => command.name()));
  const commandAt = args.findIndex((arg) => names.has(arg));
  const optionAt = args.indexOf(typed);
  if (commandAt >= 0 && commandAt < optionAt) return undefined;
  const takers = program.commands
    .filter((command) => command.options.some((option) => option.long === flag || option.short === flag))
    .map((command) => command.name());
  if (takers.length === 0) return undefined;
  const command = commandAt >= 0 ? args[commandAt] : undefined;
  if (command !== undefined && takers.includes(command))
    return `option '${flag}' comes before the command: put it after the command (driftwatch ${command} ${flag} …)`;
  return `option '${flag}' comes before the command: put it after a command that takes it (${takers.join(', ')}), e.g. driftwatch ${takers[0]} ${flag} …`;
}

/** Commands set the exit code through this, so `main` decides when the process ends. */
let exitCode = 0;
const setExitCode = (code: number) => {
  exitCode = code;
};

const program = new Command('driftwatch')
  .description('read-only drift and policy scanner for Terraform estates on AWS')
  .version(packageVersion(), '-V, --version', 'print the version of driftwatch (from its package.json)')
  .option('--debug', 'print the stack trace of an unexpected error (errors are one line otherwise)')
  // A usage error is one line like every other error (docs/cli.md): the cause, commander's "did you
  // mean", and where the options are listed, instead of the whole help after it.
  .configureOutput({ outputError: (text, write) => write(usageErrorLine(text)) })
  .exitOverride()
  .addHelpText('after', HELP_EXIT_CODES_AND_ENVIRONMENT);

// Before any command's own checks: an empty value must never read as the option left out.
program.hook('preAction', (_program, command) => refuseEmptyOptionValues(command));

registerEvaluatePlan(program, setExitCode);
registerScan(program, setExitCode);
registerClusterDiff(program, setExitCode);
registerCheckBackend(program, setExitCode);
registerLocks(program, setExitCode);
registerInvoke(program, setExitCode);
registerFindings(program, setExitCode);
registerSuppress(program, setExitCode);
registerRetire(program, setExitCode);
registerRemediate(program, setExitCode);
registerReport(program, setExitCode);
registerRoutes(program, setExitCode);
registerInit(program, setExitCode);
registerProviders(program, setExitCode);
registerDemo(program, setExitCode);
/** The commands whose exit code says whether findings above info were reported. */
const REPORTING = new Set(['evaluate-plan', 'scan', 'cluster-diff', 'check-backend', 'locks', 'findings']);
const REPORTING_EXIT_CODES =
  'Exit codes: 0 nothing above info, 2 findings above info, 1 error or failed scan, 64 usage error.\n' +
  // output.ts exitCodeFor: --fail-on moves the threshold of 2; a failed scan is 1 whatever it says.
  'With --fail-on <level>: 2 only when a shown finding (after --severity) is at or above <level>,\n' +
  'else 0; an open scan-failed finding still exits 1.';
/**
 * Every other command's exit codes, by its path, as its action sets them: each has its own line (one
 * shared line once told suppress, report and init about routes --check). `findings show` lists its
 * own in findings-show.ts.
 */
const OWN_EXIT_CODES: Record<string, string> = {
  demo: 'Exit codes: 0 the demo ran as planned, 1 it did not, 64 usage error.',
  invoke: 'Exit codes: 0 the handler ran or the scan started (printed as JSON), 1 error, 64 usage error.',
  suppress:
    'Exit codes: 0 suppressed, 1 no such open finding or an unreadable store, 64 usage error\n' +
    '(not a finding id, --until in the past or beyond the limit, an empty --reason or --by).',
  retire:
    'Exit codes: 0 resolved (or, with --dry-run, listed), 1 no findings of that scope or an unreadable store,\n' +
    '64 usage error (the scope is still in the registry).',
  remediate:
    'Exit codes: 0 printed, 1 error (no such finding, an unreadable store, a --config that is not a directory),\n' +
    '64 usage error, or --revert/--adopt does not apply to the finding (a backend policy, a stale lock…).',
  report:
    'Exit codes: 0 written, 1 error, or written without part of the store (a corrupt or misplaced document,\n' +
    'named on stderr), 64 usage error.',
  routes:
    'Exit codes: 0 listed (with --check: everything reaches a destination), 1 error, or with --check\n' +
    'something reaches no destination, 64 usage error.',
  init:
    'Exit codes: 0 written, 1 error (the file exists without --force, the bucket or root cannot be read),\n' +
    '64 usage error.',
  'providers mirror':
    'Exit codes: 0 mirrored, 1 error or a workspace that could not be mirrored, 64 usage error.',
};
const ERRORS_LINE = 'Errors are one line; --debug adds the stack trace (driftwatch --help, docs/cli.md).';
for (const command of program.commands) {
  addExitCodes(command, command.name());
  // `providers mirror`; `findings show` lists its own in findings-show.ts.
  for (const sub of command.commands) addExitCodes(sub, `${command.name()} ${sub.name()}`);
}

function addExitCodes(command: Command, path: string): void {
  const exitCodes = REPORTING.has(path) ? REPORTING_EXIT_CODES : OWN_EXIT_CODES[path];
  if (exitCodes) command.addHelpText('after', `\n${exitCodes}\n${ERRORS_LINE}`);
}
markRequiredOptions(program);
for (const command of program.commands) {
  explainExcessArguments(command);
  for (const sub of command.commands) explainExcessArguments(sub);
}

/**
 * More arguments than a command takes names the word in excess and its likely cause (a mistyped
 * subcommand, a value in two words) instead of commander's "Expected 0 arguments but got 2".
 */
function explainExcessArguments(command: Command): void {
  const error = command.error.bind(command);
  command.error = ((message, errorOptions) => {
    if (errorOptions?.code !== 'commander.excessArguments') return error(message, errorOptions);
    const path = command.parent?.parent ? `${command.parent.name()} ${command.name()}` : command.name();
    const line = excessArgumentsLine(
      {
        path,
        expected: command.registeredArguments.map((argument) => argument.name()),
        subcommands: command.commands.map((sub) => sub.name()),
      },
      command.args,
      process.argv.slice(2),
    );
    return error(`error: ${line}`, errorOptions);
  }) as Command['error'];
}

/** Help marks the options a command cannot run without (commander lists them like the others). */
function markRequiredOptions(command: Command): void {
  for (const option of command.options)
    if (option.mandatory && !option.description.endsWith('(required)'))
      option.description = `${option.description} (required)`;
  if (command.options.some((option) => option.mandatory)) reportUnknownOptionFirst(command);
  for (const sub of command.commands) markRequiredOptions(sub);
}

/**
 * An unknown option is reported before a required option that is missing: in `--buckte b` the
 * missing --bucket is the typo, and commander's "did you mean" says so (commander checks required
 * options first). The missing option's error waits until the unknown option's check, which comes
 * right after it; should that check pass (nothing unknown after all), it is raised before the action.
 */
function reportUnknownOptionFirst(command: Command): void {
  let unknown: string[] = [];
  const parseOptions = command.parseOptions.bind(command);
  command.parseOptions = (args) => {
    const parsed = parseOptions(args);
    unknown = parsed.unknown;
    return parsed;
  };
  const error = command.error.bind(command);
  let deferred: Parameters<Command['error']> | undefined;
  command.error = ((message, errorOptions) => {
    if (errorOptions?.code === 'commander.missingMandatoryOptionValue' && unknown[0]?.startsWith('-')) {
      deferred ??= [message, errorOptions];
      return undefined as never;
    }
    return error(message, errorOptions);
  }) as Command['error'];
  command.hook('preAction', () => {
    const missing = deferred;
    deferred = undefined;
    if (missing) error(...missing);
  });
}

// Terraform and its providers run in their own process groups: take them down with us, and leave
// no working directory, plan file or plugin cache lock behind (process.exit skips finally blocks).
exitCleanlyOnSignals();

// An error raised outside the command's promise (a stream's 'error' event) is still one line, and
// leaves nothing behind either. The reporter (it knows the error types of the whole tree, so it
// imports their modules) loads only when there is an error to report: commands start without it.
let reporter: typeof import('./report-error.js') | undefined;
for (const event of ['uncaughtException', 'unhandledRejection'] as const)
  process.on(event, (error: unknown) => {
    cleanUpInterruptedRun();
    void loadReporter().then(
      () => process.exit(reportError(error)),
      () => process.exit(fallbackReport(error)),
    );
  });

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
  // Commander already printed the problem (or the help / version text).
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
  else {
    await loadReporter().then(
      () => {
        process.exitCode = reportError(error);
      },
      () => {
        process.exitCode = fallbackReport(error);
      },
    );
  }
}

async function loadReporter(): Promise<void> {
  reporter ??= await import('./report-error.js');
}

function reportError(error: unknown): number {
  return reporter!.reportError(error, debugRequested());
}

/** If the reporter itself cannot load (a broken install): one line, no data quoted. */
function fallbackReport(error: unknown): number {
  process.stderr.write(
    `driftwatch: unexpected error: ${error instanceof Error ? error.name : typeof error} (run with --debug for the stack trace)\n`,
  );
  if (debugRequested()) process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  return 1;
}

/** From the parsed options, or from argv when parsing itself failed before it got there. */
function debugRequested(): boolean {
  return program.opts().debug === true || process.argv.includes('--debug');
}
