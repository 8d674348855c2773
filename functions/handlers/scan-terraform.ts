import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { createScanPorts } from '../adapters/scan-ports.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import { createSensitiveHasher } from '../core/redaction/secrets.js';
import { SAFE_ID } from '../core/registry/model.js';
import { scanAndRecordWorkspace } from '../core/scan/scan-and-record.js';
import { scanEventShape, scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger, hashSaltFromEnv } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

export const scanTerraformEvent = z.object({
  ...scanEventShape,
  workspace: z.string().check(z.regex(SAFE_ID, 'a workspace id of the registry')),
});
export type ScanTerraformEvent = z.infer<typeof scanTerraformEvent>;

const s3 = new S3Client({});
const store = createFindingsStore(findingsObjectStore(s3));
const hashSensitive = createSensitiveHasher(await hashSaltFromEnv());
const logger = handlerLogger('scan-terraform');

/** ScanTerraform stage: one workspace per invocation (a Distributed Map item). */
export const handler = middy<ScanTerraformEvent>()
  .use(validateEvent(scanTerraformEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry, dir } = await loadRegistrySource(event.registry, s3);
    const workspace = registry.workspaces.find((entry) => entry.id === event.workspace);
    if (!workspace) throw new Error(`workspace ${event.workspace} is not in the registry ${event.registry}`);
    const ports = createScanPorts({ scanId: event.scanId, registryDir: dir, hashSensitive, s3 });
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
