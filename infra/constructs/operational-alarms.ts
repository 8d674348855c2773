import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SCAN_COMPLETED_METRIC } from '../../functions/adapters/metrics.js';

export interface OperationalAlarmsProps {
  stateMachine: sfn.IStateMachine;
  deadLetterQueues: Record<string, sqs.IQueue>;
  /** The registry's `schedule.alertAfter`: no completed scan for this long is an alarm. */
  alertAfter: Duration;
  topic: sns.ITopic;
}

/** CloudWatch evaluates at most 7 days of data per alarm. */
const MAX_EVALUATION_HOURS = 7 * 24;

/**
 * driftwatch watching itself, every alarm to the alarm topic (the fallback owner's destinations): a
 * scan that failed or timed out, a message that landed in any dead-letter queue, and the heartbeat —
 * RecordFindings emits `Driftwatch/ScanCompleted` once per scan, and its absence for longer than
 * `schedule.alertAfter` (missing data counts as breaching) means no scan completed at all.
 */
export class OperationalAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    const action = new actions.SnsAction(props.topic);
    const add = (alarm: cloudwatch.Alarm) => {
      alarm.addAlarmAction(action);
      this.alarms.push(alarm);
    };

    /** An alarm on the first occurrence within five minutes; no data is a quiet night. */
    const onAny = (metric: cloudwatch.Metric, alarmId: string, description: string) =>
      add(
        metric.createAlarm(this, alarmId, {
          alarmDescription: description,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    const fiveMinutes = { period: Duration.minutes(5) };
    onAny(
      props.stateMachine.metricFailed({ ...fiveMinutes, statistic: 'Sum' }),
      'ScanFailed',
      'A driftwatch scan execution failed (see the execution in Step Functions).',
    );
    onAny(
      props.stateMachine.metricTimedOut({ ...fiveMinutes, statistic: 'Sum' }),
      'ScanTimedOut',
      'A driftwatch scan execution timed out.',
    );
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      onAny(
        queue.metricApproximateNumberOfMessagesVisible({ ...fiveMinutes, statistic: 'Maximum' }),
        `${name}NotEmpty`,
        `Messages in the ${name} dead-letter queue: a delivery driftwatch gave up on.`,
      );
    }
    const heartbeat = heartbeatWindow(props.alertAfter);
    add(
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: SCAN_COMPLETED_METRIC,
        statistic: 'Sum',
        period: heartbeat.period,
      }).createAlarm(this, 'ScanHeartbeatMissing', {
        alarmDescription: `No driftwatch scan completed for ${props.alertAfter.toHumanString()} (schedule.alertAfter).`,
        threshold: 1,
        evaluationPeriods: heartbeat.periods,
        datapointsToAlarm: heartbeat.periods,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      }),
    );
  }
}

/**
 * Hourly periods covering at least `alertAfter`. CloudWatch allows up to 7 days of evaluation
 * (period × periods) for periods of an hour or more; one hour keeps the alarm timely.
 */
export function heartbeatWindow(alertAfter: Duration): { period: Duration; periods: number } {
  const hours = Math.ceil(alertAfter.toMinutes({ integral: false }) / 60);
  return { period: Duration.hours(1), periods: Math.min(MAX_EVALUATION_HOURS, Math.max(1, hours)) };
}
