import type { Command } from 'commander';
import { type BucketCommandOptions, collect, withBucketOptions } from '../options.js';

export interface CheckBackendOptions extends BucketCommandOptions {
  key: string[];
}

/** `driftwatch check-backend --bucket B`: the backend policy and state rules of one state bucket. */
export function registerCheckBackend(program: Command, run: (code: number) => void): void {
  const command = program
    .command('check-backend')
    .description(
      'check a state bucket (versioning, encryption, public access, TLS, ACLs, retention, DynamoDB locking) and the recent versions of its states; read-only',
    )
    .option('--key <key>', 'a state object whose recent versions to check (repeatable)', collect, []);
  withBucketOptions(
    command,
    "driftwatch.yaml: the bucket's workspaces give owners, states and KMS expectation",
  ).action(async (options: CheckBackendOptions) => {
    // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
    const { checkBackendAction } = await import('./check-backend-action.js');
    await checkBackendAction(run, options);
  });
}
