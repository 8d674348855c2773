import { readFileSync } from 'node:fs';

/**
 * The ScanTerraform handler outside Lambda: CodeBuild runs the same image with
 * `node /var/task/runner-entrypoint.mjs`, which hands the Map item (DRIFTWATCH_EVENT, set by the
 * state machine as a build environment override) to the very handler Lambda runs. The handler
 * records its findings in the findings bucket as it does in Lambda; the result goes to stdout (the
 * build log) and the exit code tells Step Functions' `.sync` integration whether the build failed,
 * which the item's Catch then records as a scan-failed finding.
 */
export type LambdaLikeHandler = (event: unknown, context: LambdaLikeContext) => Promise<unknown>;

export interface LambdaLikeContext {
  functionName: string;
  awsRequestId: string;
  getRemainingTimeInMillis: () => number;
  callbackWaitsForEmptyEventLoop: boolean;
}

/** Without a build timeout in the item: CodeBuild's maximum. */
const MAX_BUILD_MS = 8 * 60 * 60_000;

export class EntrypointInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EntrypointInputError';
  }
}

/** The event: DRIFTWATCH_EVENT (JSON, as CodeBuild passes it) or DRIFTWATCH_EVENT_FILE (local runs). */
export function entrypointEvent(env: NodeJS.ProcessEnv): Record<string, unknown> {
  let text = env.DRIFTWATCH_EVENT;
  if (!text && env.DRIFTWATCH_EVENT_FILE) {
    try {
      text = readFileSync(env.DRIFTWATCH_EVENT_FILE, 'utf8');
    } catch (error) {
      throw new EntrypointInputError(
        `cannot read DRIFTWATCH_EVENT_FILE ${env.DRIFTWATCH_EVENT_FILE}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
  if (!text)
    throw new EntrypointInputError('set DRIFTWATCH_EVENT (the Map item as JSON) or DRIFTWATCH_EVENT_FILE');
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new EntrypointInputError(
      'DRIFTWATCH_EVENT is not JSON: pass the Map item, e.g. {"workspace":"…",…}',
    );
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new EntrypointInputError('DRIFTWATCH_EVENT must be a JSON object (the Map item)');
  return event as Record<string, unknown>;
}

/**
 * Runs the handler once with the event of the environment and a Lambda-like context whose remaining
 * time is the build's (the item's buildTimeoutMinutes), so the handler's own deadline logic applies
 * unchanged. Returns the process exit code: 0 with the result on stdout, 1 with one line on stderr.
 */
export async function runContainerEntrypoint(options: {
  env: NodeJS.ProcessEnv;
  /** Imports the handler: its module reads its configuration at import, which may fail. */
  loadHandler: () => Promise<LambdaLikeHandler>;
  now?: () => number;
  stdout?: (line: string) => void;
  stderr?: (line: string) => void;
}): Promise<number> {
  const now = options.now ?? Date.now;
  const stdout = options.stdout ?? ((line) => process.stdout.write(`${line}\n`));
  const stderr = options.stderr ?? ((line) => process.stderr.write(`${line}\n`));
  const startedAt = now();
  try {
    const event = entrypointEvent(options.env);
    const handler = await options.loadHandler();
    const buildMinutes = event.buildTimeoutMinutes;
    const buildMs =
      typeof buildMinutes === 'number' && buildMinutes > 0 ? buildMinutes * 60_000 : MAX_BUILD_MS;
    const context: LambdaLikeContext = {
      functionName: 'driftwatch-scan-terraform-codebuild',
      awsRequestId: options.env.CODEBUILD_BUILD_ID ?? `local-${startedAt}`,
      getRemainingTimeInMillis: () => Math.max(0, startedAt + buildMs - now()),
      callbackWaitsForEmptyEventLoop: false,
    };
    const result = await handler(event, context);
    stdout(JSON.stringify(result));
    return 0;
  } catch (error) {
    // One line for people; the handler's logger already logged the failure with its cause.
    stderr(
      `driftwatch scan entrypoint: ${(error as Error).name}: ${(error as Error).message.split('\n', 1)[0]}`,
    );
    return 1;
  }
}
