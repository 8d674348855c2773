import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { createLogger, logLevelFrom } from '../adapters/logger.js';
import { createFsObjectStore } from '../adapters/object-store/fs-object-store.js';
import { createS3ObjectStore } from '../adapters/object-store/s3-object-store.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { createScanPorts } from '../adapters/scan-ports.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import { createSensitiveHasher } from '../core/redaction/secrets.js';
import { SAFE_ID } from '../core/registry/model.js';
import { scanAndRecordWorkspace } from '../core/scan/scan-and-record.js';
import { findingsStoreLocation, requireEnv } from './env.js';
import { logErrors, validateEvent } from './middleware.js';

export const scanTerraformEvent = z.object({
  scanId: z
    .string()
    .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9\-_.]{0,79}$/, 'letters, digits, - _ . (at most 80)')),
  startedAt: z.iso.datetime('an ISO 8601 timestamp, e.g. 2026-11-29T02:00:00Z'),
  /** s3://bucket/driftwatch.yaml (deployed) or a path (local invoke). */
  registry: z.string().check(z.minLength(1, 's3://bucket/driftwatch.yaml or a file path')),
  workspace: z.string().check(z.regex(SAFE_ID, 'a workspace id of the registry')),
});
export type ScanTerraformEvent = z.infer<typeof scanTerraformEvent>;

const s3 = new S3Client({});
const storeLocation = findingsStoreLocation();
const hashSensitive = createSensitiveHasher(requireEnv('DRIFTWATCH_HASH_SALT'));
const logger = createLogger({
  level: logLevelFrom(process.env.LOG_LEVEL),
  fields: { handler: 'scan-terraform' },
});
const store = createFindingsStore(
  'bucket' in storeLocation
    ? createS3ObjectStore(s3, storeLocation.bucket)
    : createFsObjectStore(storeLocation.dir),
);

/** ScanTerraform stage: one workspace per invocation (a Distributed Map item). */
export const handler = middy<ScanTerraformEvent>()
  .use(validateEvent(scanTerraformEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry, dir } = await loadRegistrySource(event.registry, s3);
    const workspace = registry.workspaces.find((entry) => entry.id === event.workspace);
    if (!workspace) throw new Error(`workspace ${event.workspace} is not in the registry ${event.registry}`);
    const ports = createScanPorts({ scanId: event.scanId, registryDir: dir, hashSensitive });
    const scan = { scanId: event.scanId, startedAt: new Date(event.startedAt) };
    const { result, recorded } = await scanAndRecordWorkspace(
      workspace,
      registry.policies,
      { ports, store, now: () => new Date() },
      scan,
    );
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
