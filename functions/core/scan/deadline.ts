import type { WorkspaceRunner } from '../registry/model.js';

/**
 * Time kept back from the host's limit after Terraform is stopped: its process group gets SIGTERM,
 * then SIGKILL 10 s later (a plan gets SIGKILL at once: runner.ts), and the scan still records its
 * findings and run (a few S3 writes).
 */
export const RECORD_MARGIN_MS = 90_000;

/** What each runner tells the owner to do about a scan that ran out of time. */
const TIMEOUT_HINTS: Record<WorkspaceRunner, string> = {
  lambda: '; set runner: codebuild',
  codebuild: '; raise the workspace timeout (at most 8h)',
};

/**
 * When Terraform must be stopped: the host's remaining time (Lambda's invocation, or the CodeBuild
 * build) less the recording margin, or the workspace's own budget if that comes first.
 */
export function scanDeadline(options: {
  nowMs: number;
  remainingMs: number;
  runner: WorkspaceRunner;
  /** The workspace's `timeout` (the Map item's timeoutSeconds), if any. */
  budgetMs?: number;
}): { atMs: number; hint: string } {
  const hostLeft = Math.max(0, options.remainingMs - RECORD_MARGIN_MS);
  const left = options.budgetMs === undefined ? hostLeft : Math.min(hostLeft, options.budgetMs);
  return { atMs: options.nowMs + left, hint: TIMEOUT_HINTS[options.runner] };
}
