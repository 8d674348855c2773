import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { createClusterScanPorts } from '../adapters/cluster-ports.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { scanAndRecordCluster } from '../core/gitops/scan-and-record-cluster.js';
import { createSensitiveHasher } from '../core/redaction/secrets.js';
import { SAFE_ID } from '../core/registry/model.js';
import { scanEventShape, scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger, hashSaltFromEnv, scannerFindingsStore } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

export const scanClusterEvent = z.object({
  ...scanEventShape,
  cluster: z.string().check(z.regex(SAFE_ID, 'a cluster id of the registry')),
});
export type ScanClusterEvent = z.infer<typeof scanClusterEvent>;

const s3 = new S3Client(withHttpTimeouts());
const store = scannerFindingsStore(findingsObjectStore(s3));
const hashSensitive = createSensitiveHasher(await hashSaltFromEnv());
const logger = handlerLogger('scan-cluster');

/** ScanCluster stage: one cluster per invocation (an item of the Map over clusters). */
export const handler = middy<ScanClusterEvent>()
  .use(validateEvent(scanClusterEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry, dir } = await loadRegistrySource(event.registry, s3);
    const cluster = registry.clusters.find((entry) => entry.id === event.cluster);
    if (!cluster) throw new Error(`cluster ${event.cluster} is not in the registry ${event.registry}`);
    const ports = createClusterScanPorts({ scanId: event.scanId, registryDir: dir, s3 });
    const scan = scanRefOf(event);
    const { result, recorded } = await scanAndRecordCluster(
      cluster,
      registry,
      { ports, store, hashSensitive, now: () => new Date() },
      scan,
    );
    logger.info('cluster scanned', {
      cluster: cluster.id,
      mode: result.mode,
      status: result.outcome,
      findings: result.findings.length,
      ...(result.renderNotes ? { render: result.renderNotes } : {}),
      ...(result.ignoreRulesUnread ? { ignoreRulesUnread: result.ignoreRulesUnread } : {}),
      ...(result.prunedByArgoCd ? { prunedByArgoCd: result.prunedByArgoCd } : {}),
    });
    return {
      scanId: event.scanId,
      cluster: cluster.id,
      status: result.outcome,
      findingsKey: recorded.historyKey,
      findings: recorded.history.filter((finding) => finding.status !== 'resolved').length,
    };
  });
