/**
 * CloudWatch metrics through the Embedded Metric Format: one JSON log line that CloudWatch turns
 * into a metric, with no PutMetricData call (and no permission) from the function. Written to
 * stderr like the logs (Lambda sends both to CloudWatch), so stdout stays for results.
 */
export function emitMetric(
  namespace: string,
  name: string,
  value: number,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  write(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          { Namespace: namespace, Dimensions: [[]], Metrics: [{ Name: name, Unit: 'Count' }] },
        ],
      },
      [name]: value,
    }),
  );
}

export const METRICS_NAMESPACE = 'Driftwatch';
/** Emitted once per finished scan; the heartbeat alarm fires when it stops. */
export const SCAN_COMPLETED_METRIC = 'ScanCompleted';
