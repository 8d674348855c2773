/**
 * CloudWatch metrics through the Embedded Metric Format: one JSON log line that CloudWatch turns
 * into a metric, with no PutMetricData call (and no permission) from the function. Written to
 * stderr like the logs (Lambda sends both to CloudWatch), so stdout stays for results.
 */
export function emitMetric(
  namespace: string,
  name: string,
  value: number,
  write?: (line: string) => void,
): void {
  emitMetrics(namespace, { [name]: value }, write);
}

export const METRICS_NAMESPACE = 'Driftwatch';
/** Emitted once per finished scan; the heartbeat alarm fires when it stops. */
export const SCAN_COMPLETED_METRIC = 'ScanCompleted';

/**
 * Per scan, from RecordFindings: workspaces whose scan was trusted, failed (scan-failed, including
 * timeouts) and timed out, and how many the registry has. The failure-share and "no successful
 * night" alarms are metric math over these (infra/constructs/scan-metrics-alarms.ts).
 */
export const WORKSPACE_METRICS = {
  scanned: 'WorkspacesScanned',
  failed: 'WorkspacesFailed',
  timedOut: 'WorkspacesTimedOut',
  total: 'WorkspacesTotal',
} as const;

/** Several metrics in one EMF line (one log event, one timestamp). */
export function emitMetrics(
  namespace: string,
  values: Record<string, number>,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  write(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: namespace,
            Dimensions: [[]],
            Metrics: Object.keys(values).map((name) => ({ Name: name, Unit: 'Count' })),
          },
        ],
      },
      ...values,
    }),
  );
}
