// What the CLI needs before any command runs: error types, exit codes and help text. Kept free of
// the SDK, the registry parser and the core so that `driftwatch --help` and usage errors start fast
// (main.ts loads command implementations only when a command runs).

/** Exit codes (docs/cli.md): findings above info are 2 (output.ts exitCodeFor). */
export const EXIT_RUNTIME_ERROR = 1;
/** A usage error: an unknown option, a missing argument, an option value that cannot be right (sysexits EX_USAGE). */
export const EXIT_USAGE = 64;

/** An error the CLI reports as one clear line (cause and fix) and exit code 1. */
export class CliError extends Error {
  readonly exitCode: number = EXIT_RUNTIME_ERROR;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** A command line that cannot be right (a malformed option value): one line, exit code 64. */
export class UsageError extends CliError {
  override readonly exitCode: number = EXIT_USAGE;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Shown after `driftwatch --help`. */
export const HELP_EXIT_CODES_AND_ENVIRONMENT = `
Exit codes:
  0   nothing above info severity (driftwatch demo: the demo ran as planned)
  2   findings above info severity were reported (with --fail-on <level>: a shown finding at or
      above <level>; findings, evaluate-plan, scan, cluster-diff, check-backend, locks)
  1   a runtime error or a failed scan (its scan-failed finding is still printed):
      unreadable input, a missing store, AWS unreachable or refusing, an invalid registry
  64  a usage error: unknown command or option, missing argument, malformed option value

Environment:
  DRIFTWATCH_STORE           default findings store (a directory or s3://bucket)
  DRIFTWATCH_HASH_SALT       salt for hashes of sensitive values (16+ characters; default: a per-user salt)
  DRIFTWATCH_TOPIC_ARN       SNS topic for owner digests (scan)
  DRIFTWATCH_TERRAFORM       terraform binary (default: terraform on PATH)
  DRIFTWATCH_PROVIDER_MIRROR providers from this directory or https mirror only (empty: the registries)
  DRIFTWATCH_TOFU            tofu binary for engine: opentofu (default: tofu on PATH)
  DRIFTWATCH_BINARY_CACHE    directory of downloaded Terraform/OpenTofu versions (S3 copy: DRIFTWATCH_BINARY_CACHE_S3)
  DRIFTWATCH_TERRAFORM_RELEASES, DRIFTWATCH_OPENTOFU_RELEASES, DRIFTWATCH_RELEASE_KEYS
                             a mirror of the release layout and the keys that sign it (docs/terraform-versions.md)
  DRIFTWATCH_LOG_LEVEL       debug, info, warn or error
  DRIFTWATCH_CLUSTER_TIMEOUT each cluster-diff request to Argo CD or Kubernetes (e.g. 2m; default 30s)
  DRIFTWATCH_PROGRESS        tty: scan's status line even into a pipe; plain: log lines only (default: tty on a terminal)
  NO_COLOR, FORCE_COLOR      no colour (any value) / colour even into a pipe (FORCE_COLOR=0: never)
  COLUMNS                    table width (default: the terminal's; none into a pipe)
  AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL, ...  the AWS SDK's own settings (no endpoint flags)
  HTTPS_PROXY, NO_PROXY      proxy for https:// requests to AWS and Argo CD (http://host:port; docs/cli.md)

Errors are one line with the cause and the fix; --debug adds the stack trace. See docs/cli.md.
`;

export const DEFAULT_STORE = '.driftwatch/store';
export const STORE_OPTION_HELP =
  'findings store: a directory or s3://bucket (default $DRIFTWATCH_STORE or .driftwatch/store)';

/** Where `driftwatch invoke --workspace/--account` finds the deployed state machine. */
export const STATE_MACHINE_ENV = 'DRIFTWATCH_STATE_MACHINE_ARN';
