import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, WORKSPACE_METRICS } from '../../functions/adapters/metrics.js';
import type { AlarmSettings } from '../config.js';

export interface ScanMetricsAlarmsProps {
  topic: sns.ITopic;
  settings: AlarmSettings;
  /**
   * How many subscriptions the alarm topic gets (the fallback owner's deployed destinations and the
   * alarmEmail): an alarm nobody receives is no alarm, so zero fails synth.
   */
  subscribers: number;
  fallbackOwner: string;
}

export class NoAlarmSubscriberError extends Error {
  constructor(fallbackOwner: string) {
    super(
      `the alarm topic has no subscriber: give the fallback owner '${fallbackOwner}' an email, https or sqs destination, deploy its chatbot-slack destination with -c chatbot=true, or pass -c alarmEmail=<address>`,
    );
    this.name = 'NoAlarmSubscriberError';
  }
}

/**
 * The night's outcome as alarms on the alarm topic, from the workspace metrics RecordFindings emits
 * once per scan (Driftwatch/WorkspacesScanned, WorkspacesFailed, WorkspacesTimedOut, WorkspacesTotal):
 * - more than X% of the workspaces failed in a scan;
 * - no successful scan within N hours: no hour in which a scan recorded workspaces with at most X%
 *   failed (missing data counts as breaching, so a night that never reached RecordFindings alarms too).
 */
export class ScanMetricsAlarms extends Construct {
  readonly failedShare: cloudwatch.Alarm;
  readonly noSuccessfulScan: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ScanMetricsAlarmsProps) {
    super(scope, id);
    if (props.subscribers < 1) throw new NoAlarmSubscriberError(props.fallbackOwner);
    const metric = (name: string) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        statistic: 'Sum',
        period: Duration.hours(1),
      });
    const usingMetrics = {
      failed: metric(WORKSPACE_METRICS.failed),
      total: metric(WORKSPACE_METRICS.total),
    };
    const percent = props.settings.failedWorkspacesPercent;
    const action = new actions.SnsAction(props.topic);

    this.failedShare = new cloudwatch.MathExpression({
      expression: 'IF(total > 0, 100 * failed / total, 0)',
      usingMetrics,
      period: Duration.hours(1),
      label: 'failed workspaces (%)',
    }).createAlarm(this, 'WorkspacesFailedShare', {
      alarmDescription: `More than ${percent}% of the workspaces failed in a driftwatch scan (scan-failed findings name each one and why).`,
      threshold: percent,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    const hours = props.settings.successfulScanWithinHours;
    this.noSuccessfulScan = new cloudwatch.MathExpression({
      // 1 in an hour with a scan that recorded workspaces within the failure share; no value otherwise.
      expression: `IF(total > 0 AND 100 * failed / total <= ${percent}, 1, 0)`,
      usingMetrics,
      period: Duration.hours(1),
      label: 'successful scan',
    }).createAlarm(this, 'NoSuccessfulScan', {
      alarmDescription: `No successful driftwatch scan (at most ${percent}% of the workspaces failed) for ${hours} hours.`,
      threshold: 1,
      evaluationPeriods: hours,
      datapointsToAlarm: hours,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    for (const alarm of [this.failedShare, this.noSuccessfulScan]) alarm.addAlarmAction(action);
  }
}
