import type { ScanSummary } from '../core/findings/findings-store.js';
import { SEVERITIES } from '../core/findings/model.js';

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
  emitMetrics(namespace, { [name]: value }, write ? { write } : {});
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

/** Open findings after a scan, one metric per severity (dimension `Severity`), from RecordFindings. */
export const OPEN_FINDINGS_METRIC = 'OpenFindings';
/**
 * Each workspace's scan time in a night (ms), from RecordFindings: one metric for the whole estate
 * (p50/p95 over workspaces), the workspace a log field, not a dimension — a dimension per workspace
 * would be a billed custom metric per workspace. The dashboard's per-workspace table is a Logs
 * Insights query over these lines.
 */
export const PLAN_DURATION_METRIC = 'PlanDuration';

export interface MetricOptions {
  /** Dimension name → value: one metric per distinct value. */
  dimensions?: Record<string, string>;
  /** Log fields that are not dimensions (searchable with Logs Insights, not billed as metrics). */
  fields?: Record<string, string>;
  unit?: 'Count' | 'Milliseconds';
  write?: (line: string) => void;
}

/** Several metrics in one EMF line (one log event, one timestamp). */
export function emitMetrics(
  namespace: string,
  values: Record<string, number>,
  options: MetricOptions = {},
): void {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dimensions = options.dimensions ?? {};
  write(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: namespace,
            Dimensions: [Object.keys(dimensions)],
            Metrics: Object.keys(values).map((name) => ({ Name: name, Unit: options.unit ?? 'Count' })),
          },
        ],
      },
      ...options.fields,
      ...dimensions,
      ...values,
    }),
  );
}

/**
 * The dashboard's view of a night: open findings per severity (zero included, so a quiet severity
 * draws as 0, not as a gap) and each workspace's scan time.
 */
export function emitNightMetrics(
  summary: Pick<ScanSummary, 'findings' | 'durationsMs'>,
  write?: (line: string) => void,
): void {
  for (const severity of SEVERITIES)
    emitMetrics(
      METRICS_NAMESPACE,
      { [OPEN_FINDINGS_METRIC]: summary.findings.bySeverity[severity] ?? 0 },
      { dimensions: { Severity: severity }, ...(write ? { write } : {}) },
    );
  for (const [workspace, durations] of Object.entries(summary.durationsMs.workspaces))
    emitMetrics(
      METRICS_NAMESPACE,
      { [PLAN_DURATION_METRIC]: durations.total },
      { unit: 'Milliseconds', fields: { Workspace: workspace }, ...(write ? { write } : {}) },
    );
}
