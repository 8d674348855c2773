import type { FindingsStore, ScanRef } from '../findings/findings-store.js';
import type { RecordedScan } from '../findings/lifecycle.js';
import type { SensitiveHasher } from '../redaction/secrets.js';
import type { ClusterConfig, Registry } from '../registry/model.js';
import type { ClusterScanPorts } from './ports.js';
import { redactClusterFinding } from './redact-finding.js';
import { type ClusterScanResult, scanCluster } from './scan-cluster.js';

/** The ScanCluster stage for one cluster: scan it, then record what was seen in the cluster's scope. */
export async function scanAndRecordCluster(
  cluster: ClusterConfig,
  registry: Registry,
  deps: { ports: ClusterScanPorts; store: FindingsStore; hashSensitive: SensitiveHasher; now: () => Date },
  scan: ScanRef,
): Promise<{
  result: ClusterScanResult;
  recorded: RecordedScan & { historyKey: string };
  durationMs: number;
}> {
  const started = deps.now();
  const previous = await deps.store.readCurrent(cluster.id);
  const scanned = await scanCluster(cluster, {
    registry,
    ports: deps.ports,
    hashSensitive: deps.hashSensitive,
    now: started,
    previous: previous?.document,
  });
  // Every cluster finding passes the value-pattern redaction here, once, before it is stored or shown.
  const result = {
    ...scanned,
    findings: scanned.findings.map((finding) => redactClusterFinding(finding, deps.hashSensitive)),
  };
  const finished = deps.now();
  const recorded = await deps.store.recordWorkspace(
    { ...scan, now: finished },
    { workspace: cluster.id, check: 'cluster', outcome: result.outcome },
    result.findings,
  );
  return { result, recorded, durationMs: finished.getTime() - started.getTime() };
}
