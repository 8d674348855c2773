import type { Command } from 'commander';
import { checkAndRecordBackend } from '../../functions/core/backend/stages.js';
import { adhocTarget } from '../../functions/core/backend/target.js';
import {
  type BucketCommandOptions,
  collect,
  openBucketCommand,
  reportPreflight,
  reportRuns,
  startBackendSession,
  storedIn,
  withBucketOptions,
} from '../backend-session.js';

interface CheckBackendOptions extends BucketCommandOptions {
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
    const { bucket, registry, store } = openBucketCommand(options);
    const target = adhocTarget(
      { bucket, region: options.region, keys: options.key, lockTables: options.lockTable },
      registry,
    );
    const { scan, deps } = startBackendSession(store);
    const { outcomes, result } = await checkAndRecordBackend(target, deps, scan);
    reportRuns(outcomes, options.format, run);
    reportPreflight(bucket, result.preflight);
    for (const key of result.missingStateKeys)
      process.stderr.write(
        `driftwatch: no state object at s3://${bucket}/${key} (never applied, or a typo)\n`,
      );
    const seen = result.preflight
      ? 'not checked'
      : `${result.stateObjects} state object(s), ${result.locks} lock file(s)`;
    process.stderr.write(`check-backend s3://${bucket}: ${seen}; ${storedIn(store, scan)}\n`);
  });
}
