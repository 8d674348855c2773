import type { Logger } from '../functions/adapters/logger.js';
import type { FindingsStore, ScanRef } from '../functions/core/findings/findings-store.js';
import type { ClusterScanPorts } from '../functions/core/gitops/ports.js';
import { scanAndRecordCluster } from '../functions/core/gitops/scan-and-record-cluster.js';
import type { SensitiveHasher } from '../functions/core/redaction/secrets.js';
import type { ClusterConfig, Registry } from '../functions/core/registry/model.js';
import type { ScopeCheckOutcome } from '../functions/core/scan/summary.js';

/** The ScanCluster stage in-process: each cluster scanned and recorded in its own scope, one after another. */
export async function scanClusters(
  clusters: readonly ClusterConfig[],
  deps: {
    registry: Registry;
    ports: ClusterScanPorts;
    store: FindingsStore;
    hashSensitive: SensitiveHasher;
    logger: Logger;
    now: () => Date;
  },
  scan: ScanRef,
): Promise<ScopeCheckOutcome[]> {
  const outcomes: ScopeCheckOutcome[] = [];
  for (const cluster of clusters) {
    const log = deps.logger.child({ cluster: cluster.id });
    log.info('scanning cluster');
    try {
      const { result, recorded, durationMs } = await scanAndRecordCluster(cluster, deps.registry, deps, scan);
      log.info('scanned cluster', {
        status: result.outcome,
        mode: result.mode,
        findings: result.findings.length,
      });
      outcomes.push({ scope: cluster.id, check: 'cluster', findings: recorded.history, durationMs });
    } catch (error) {
      // One cluster's failure (the store unreachable, a bug) must not stop the others.
      log.error('cluster scan failed', { error });
      outcomes.push({
        scope: cluster.id,
        check: 'cluster',
        findings: [],
        durationMs: 0,
        error: (error as Error).message,
      });
    }
  }
  return outcomes;
}
