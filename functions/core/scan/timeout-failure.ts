import type { StageFailure } from './unfinished.js';

/**
 * A Map item's error that means the scan ran out of time rather than broke: the Lambda invocation
 * timed out (Sandbox.Timedout; States.Timeout for a task timeout) or the CodeBuild build did (the
 * `.sync` integration fails the task with the build, whose status is TIMED_OUT).
 */
export function isTimeoutFailure(error: StageFailure): boolean {
  if (error.Error === 'States.Timeout' || error.Error === 'Sandbox.Timedout') return true;
  const cause = error.Cause ?? '';
  return /"buildStatus"\s*:\s*"TIMED_OUT"/.test(cause) || /Task timed out after/.test(cause);
}

/** The timeout finding's reason for a host that stopped the scan before Terraform's own deadline did. */
export function timeoutFailureReason(
  stage: string,
  error: StageFailure,
  runner: 'lambda' | 'codebuild',
): string {
  const advice =
    runner === 'codebuild' ? 'raise the workspace timeout (at most 8h)' : 'set runner: codebuild';
  return `${stage} exceeded its time limit (${error.Error ?? 'timeout'}); ${advice}`;
}
