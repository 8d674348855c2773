import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { withHttpTimeouts } from '../functions/adapters/aws-http-timeouts.js';
import { SAFE_ID } from '../functions/core/registry/model.js';
import { RESCAN_PREFIX, type ScanFilter } from '../functions/core/scan/runner-plan.js';
import { CliError } from './context.js';
import { STATE_MACHINE_ENV } from './usage.js';

// Defined in usage.ts: `driftwatch invoke --help` names it without loading the Step Functions client.
export { STATE_MACHINE_ENV } from './usage.js';

/** The deployed state machine's ARN: the stack output StateMachineArn. */
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$/;

/** `--workspace` or `--account` (exactly one) as the scan's filter, checked before anything is called. */
export function rescanFilter(options: { workspace?: string; account?: string }): ScanFilter {
  if (options.workspace !== undefined && options.account !== undefined)
    throw new CliError('pass --workspace or --account, not both');
  if (options.workspace !== undefined) {
    if (!SAFE_ID.test(options.workspace))
      throw new CliError(
        `--workspace ${options.workspace} is not a workspace id (a-z 0-9 - _ ., at most 63)`,
      );
    return { workspace: options.workspace };
  }
  if (options.account !== undefined) {
    if (!/^(\d{12}|default)$/.test(options.account))
      throw new CliError(
        `--account ${options.account} is not a 12-digit AWS account id (or 'default' for workspaces without roleArn)`,
      );
    return { account: options.account };
  }
  throw new CliError('pass --workspace <id> or --account <id>');
}

/**
 * Re-scan on demand: starts the deployed nightly state machine with a filter LoadRegistry honours,
 * so the one workspace (or one account's workspaces) goes through exactly the night's stages.
 */
export async function startRescan(options: {
  filter: ScanFilter;
  stateMachineArn?: string;
  env?: NodeJS.ProcessEnv;
  client?: SFNClient;
  now?: () => Date;
}): Promise<{ executionArn: string; startDate?: string; filter: ScanFilter }> {
  const env = options.env ?? process.env;
  const arn = options.stateMachineArn ?? env[STATE_MACHINE_ENV];
  if (!arn)
    throw new CliError(
      `pass --state-machine <arn> or set ${STATE_MACHINE_ENV} (the stack output StateMachineArn)`,
    );
  if (!STATE_MACHINE_ARN.test(arn))
    throw new CliError(
      `--state-machine ${arn} is not a state machine ARN (arn:aws:states:<region>:<account>:stateMachine:<name>)`,
    );
  const now = (options.now ?? (() => new Date()))();
  const what = 'workspace' in options.filter ? options.filter.workspace : `account-${options.filter.account}`;
  // Execution names are unique per state machine for 90 days: the time makes a repeat possible. The
  // name is also the scan id, whose prefix keeps the health check from taking it for a night.
  const name = `${RESCAN_PREFIX}${what}-${now.toISOString().replace(/[-:.]/g, '')}`.slice(0, 80);
  const client = options.client ?? new SFNClient(withHttpTimeouts());
  try {
    const started = await client.send(
      new StartExecutionCommand({
        stateMachineArn: arn,
        name,
        input: JSON.stringify({ scanId: name, filter: options.filter }),
      }),
    );
    return {
      executionArn: started.executionArn ?? '',
      ...(started.startDate ? { startDate: started.startDate.toISOString() } : {}),
      filter: options.filter,
    };
  } catch (error) {
    throw new CliError(`could not start ${arn}: ${(error as Error).name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
