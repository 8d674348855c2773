import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  METRICS_NAMESPACE,
  OPEN_FINDINGS_METRIC,
  PLAN_DURATION_METRIC,
  WORKSPACE_METRICS,
} from '../../functions/adapters/metrics.js';
import { SEVERITIES } from '../../functions/core/findings/model.js';

export interface OperationsDashboardProps {
  dashboardName: string;
  stateMachine: sfn.IStateMachine;
  digests: sns.ITopic;
  /** RecordFindings' log group: its metric lines carry each workspace's scan time. */
  recordFindingsLogs: logs.ILogGroup;
}

/** A night is one data point: daily periods, two weeks on screen. */
const NIGHT = Duration.days(1);

/**
 * One CloudWatch dashboard for the people who run driftwatch: did the nights run, what failed, how
 * much is open by severity, did the digests reach their subscribers, and which workspaces are slow
 * (p50/p95 of the estate, and per workspace from RecordFindings' metric lines).
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const driftwatch = (metricName: string, statistic: string, dimensionsMap?: Record<string, string>) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        statistic,
        period: NIGHT,
        ...(dimensionsMap ? { dimensionsMap } : {}),
      });
    const daily = { period: NIGHT, statistic: 'Sum' };
    const { stateMachine, digests } = props;

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.days(14),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Scans (nightly executions)',
            left: [
              stateMachine.metricStarted(daily).with({ label: 'started' }),
              stateMachine.metricSucceeded(daily).with({ label: 'succeeded' }),
              stateMachine.metricFailed(daily).with({ label: 'failed' }),
              stateMachine.metricTimedOut(daily).with({ label: 'timed out' }),
            ],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Workspaces per night: scanned and failed',
            left: [
              driftwatch(WORKSPACE_METRICS.scanned, 'Sum').with({ label: 'scanned' }),
              driftwatch(WORKSPACE_METRICS.failed, 'Sum').with({ label: 'failed (scan-failed findings)' }),
              driftwatch(WORKSPACE_METRICS.timedOut, 'Sum').with({ label: 'timed out' }),
              driftwatch(WORKSPACE_METRICS.total, 'Sum').with({ label: 'in the registry' }),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Open findings by severity',
            left: SEVERITIES.map((severity) =>
              driftwatch(OPEN_FINDINGS_METRIC, 'Maximum', { Severity: severity }).with({ label: severity }),
            ),
            stacked: true,
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Digests: published and delivered to subscribers',
            left: [
              digests.metricNumberOfMessagesPublished(daily).with({ label: 'published' }),
              digests.metricNumberOfNotificationsDelivered(daily).with({ label: 'delivered' }),
              digests.metricNumberOfNotificationsFailed(daily).with({ label: 'failed deliveries' }),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Workspace scan time, whole estate (p50 / p95)',
            left: [
              driftwatch(PLAN_DURATION_METRIC, 'p50').with({ label: 'p50' }),
              driftwatch(PLAN_DURATION_METRIC, 'p95').with({ label: 'p95' }),
            ],
            leftYAxis: { label: 'ms', showUnits: false },
            width: 12,
          }),
          new cloudwatch.LogQueryWidget({
            title: 'Workspace scan time per workspace (p50 / p95 over the period)',
            logGroupNames: [props.recordFindingsLogs.logGroupName],
            queryLines: [
              `filter ispresent(${PLAN_DURATION_METRIC}) and ispresent(Workspace)`,
              `stats pct(${PLAN_DURATION_METRIC}, 50) as p50_ms, pct(${PLAN_DURATION_METRIC}, 95) as p95_ms, count(*) as nights by Workspace`,
              'sort p95_ms desc',
              'limit 100',
            ],
            view: cloudwatch.LogQueryVisualizationType.TABLE,
            width: 12,
          }),
        ],
      ],
    });
  }
}
