import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import type { Check } from '../core/findings/model.js';
import { redactText } from '../core/redaction/secrets.js';
import { SAFE_ID, WORKSPACE_RUNNERS } from '../core/registry/model.js';
import { bucketOwnership, bucketScope } from '../core/routing/scopes.js';
import { SCAN_TIMEOUT_RULE_ID } from '../core/scan/runner-plan.js';
import { scanEventShape, scanRefOf } from '../core/scan/scan-event.js';
import { isTimeoutFailure, timeoutFailureReason } from '../core/scan/timeout-failure.js';
import { scanFailedFinding } from '../core/terraform/index.js';
import { findingsObjectStore, handlerLogger, scannerFindingsStore } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

const STAGE_CHECKS = {
  ScanTerraform: 'terraform',
  CheckBackend: 'backend',
  ObserveLocks: 'locks',
  ConfirmLocks: 'locks',
  ScanCluster: 'cluster',
} as const;

export const recordScanFailureEvent = z.object({
  ...scanEventShape,
  stage: z.enum(Object.keys(STAGE_CHECKS) as [keyof typeof STAGE_CHECKS]),
  workspace: z.optional(z.string().check(z.regex(SAFE_ID))),
  bucket: z.optional(z.string().check(z.minLength(3))),
  cluster: z.optional(z.string().check(z.regex(SAFE_ID))),
  /** The ScanTerraform item's runner, when it has one: the advice of a timeout finding. */
  runner: z.optional(z.enum(WORKSPACE_RUNNERS)),
  /** What Step Functions caught: `{ Error, Cause }`. */
  error: z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) }),
});
export type RecordScanFailureEvent = z.infer<typeof recordScanFailureEvent>;

const s3 = new S3Client(withHttpTimeouts());
const store = scannerFindingsStore(findingsObjectStore(s3));
const logger = handlerLogger('record-scan-failure');

/**
 * The Catch of every Map item: a Lambda that crashed, timed out or ran out of memory still leaves
 * a scan-failed finding for its workspace (or bucket, or cluster), so the blind spot is visible and
 * nothing it had found is resolved.
 */
export const handler = middy<RecordScanFailureEvent>()
  .use(validateEvent(recordScanFailureEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry } = await loadRegistrySource(event.registry, s3);
    const workspace = registry.workspaces.find((entry) => entry.id === event.workspace);
    const cluster = registry.clusters.find((entry) => entry.id === event.cluster);
    const bucket = event.bucket ? bucketOwnership(registry, event.bucket) : undefined;
    const scope = event.workspace ?? event.cluster ?? (event.bucket ? bucketScope(event.bucket) : undefined);
    if (!scope) throw new Error('the event names no workspace, bucket or cluster');
    const context = {
      workspace: scope,
      owner: workspace?.owner ?? cluster?.owner ?? bucket?.owner ?? registry.owners.fallback,
      environment: workspace?.environment ?? cluster?.environment ?? bucket?.environment,
    };
    // The cause can quote the failing input or output: redact before it is stored.
    const reason = redactText(
      `${event.stage} failed: ${event.error.Error ?? 'Error'}: ${event.error.Cause ?? 'no cause given'}`,
    ).slice(0, 2000);
    // A host timeout of a Terraform scan is the same finding as Terraform's own: LoadRegistry moves the
    // workspace to CodeBuild on it.
    const timedOut = event.stage === 'ScanTerraform' && isTimeoutFailure(event.error);
    const draft = timedOut
      ? scanFailedFinding(
          context,
          timeoutFailureReason(event.stage, event.error, event.runner ?? 'lambda'),
          { stage: event.stage, timedOut: true },
          { ruleId: SCAN_TIMEOUT_RULE_ID },
        )
      : scanFailedFinding(context, reason, { stage: event.stage }, { ruleId: 'scan.stage-failed' });
    const check: Check = STAGE_CHECKS[event.stage];
    const scan = { ...scanRefOf(event), now: new Date() };
    await store.recordWorkspace(scan, { workspace: scope, check, outcome: 'failed' }, [draft]);
    logger.warn('stage failure recorded', { scope, stage: event.stage, error: event.error.Error });
    return { scope, check, recorded: true };
  });
