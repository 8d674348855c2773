import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { createScanPorts } from '../adapters/scan-ports.js';
import { createSensitiveHasher } from '../core/redaction/secrets.js';
import { SAFE_ID, WORKSPACE_RUNNERS } from '../core/registry/model.js';
import { scanDeadline } from '../core/scan/deadline.js';
import { scanAndRecordWorkspace } from '../core/scan/scan-and-record.js';
import { scanEventShape, scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger, hashSaltFromEnv, scannerFindingsStore } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

export const scanTerraformEvent = z.object({
  ...scanEventShape,
  workspace: z.string().check(z.regex(SAFE_ID, 'a workspace id of the registry')),
  /** Set by LoadRegistry: where this scan runs (the timeout message's advice) and its time budget. */
  runner: z.optional(z.enum(WORKSPACE_RUNNERS)),
  timeoutSeconds: z.optional(z.nullable(z.number().check(z.positive()))),
});
export type ScanTerraformEvent = z.infer<typeof scanTerraformEvent>;

const s3 = new S3Client(withHttpTimeouts());
const store = scannerFindingsStore(findingsObjectStore(s3));
const hashSensitive = createSensitiveHasher(await hashSaltFromEnv());
const logger = handlerLogger('scan-terraform');

/** ScanTerraform stage: one workspace per invocation (a Distributed Map item). */
export const handler = middy<ScanTerraformEvent>()
  .use(validateEvent(scanTerraformEvent))
  .use(logErrors(logger))
  .handler(async (event, context) => {
    const { registry, dir } = await loadRegistrySource(event.registry, s3);
    const workspace = registry.workspaces.find((entry) => entry.id === event.workspace);
    if (!workspace) throw new Error(`workspace ${event.workspace} is not in the registry ${event.registry}`);
    // Terraform is stopped before the host stops us, so the timeout is a finding, not a lost run.
    const deadline = scanDeadline({
      nowMs: Date.now(),
      remainingMs: context.getRemainingTimeInMillis(),
      runner: event.runner ?? 'lambda',
      budgetMs: typeof event.timeoutSeconds === 'number' ? event.timeoutSeconds * 1000 : workspace.timeout,
    });
    const ports = createScanPorts({
      scanId: event.scanId,
      registryDir: dir,
      hashSensitive,
      s3,
      runner: { deadline },
    });
    const scan = scanRefOf(event);
    const { result, recorded, run } = await scanAndRecordWorkspace(
      workspace,
      registry.policies,
      { ports, store, now: () => new Date() },
      scan,
    );
    await store.recordRun(scan, workspace.id, run);
    logger.info('workspace scanned', {
      workspace: workspace.id,
      status: result.status,
      findings: result.findings.length,
    });
    return {
      scanId: event.scanId,
      workspace: workspace.id,
      status: result.status,
      findingsKey: recorded.historyKey,
      findings: recorded.history.filter((finding) => finding.status !== 'resolved').length,
    };
  });
