import { Aws, Duration, TimeZone } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource, nagRef } from '../nag.js';
import { deadLetterQueue } from './dead-letter-queue.js';

export interface ScanSchedulesProps {
  /** EventBridge cron, 6 fields, without `cron( )` (the registry's `schedule.cron`). */
  cron: string;
  /** IANA time zone: a nightly scan at 02:00 stays at 02:00 across daylight saving time. */
  timezone: string;
  stateMachine: sfn.IStateMachine;
  /** The registry the scan reads (REGISTRY_URI); passed as the execution input. */
  registryUri: string;
  checkHealth: lambda.IFunction;
}

/**
 * EventBridge Scheduler: the nightly scan (the registry's cron and time zone, a flexible window so
 * Scheduler can spread load, retries, and a dead-letter queue for starts that never succeeded), and
 * an hourly health check that alerts the fallback owner when no scan completed in time.
 */
export class ScanSchedules extends Construct {
  readonly nightlyScan: scheduler.Schedule;
  readonly healthCheck: scheduler.Schedule;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: ScanSchedulesProps) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', 'the schedules (starts Scheduler gave up on)');
    const delivery = { deadLetterQueue: this.deadLetters, retryAttempts: 5, maxEventAge: Duration.hours(2) };

    this.nightlyScan = new scheduler.Schedule(this, 'NightlyScan', {
      description: 'driftwatch nightly scan',
      schedule: scheduler.ScheduleExpression.expression(`cron(${props.cron})`, TimeZone.of(props.timezone)),
      timeWindow: scheduler.TimeWindow.flexible(Duration.minutes(15)),
      target: new targets.StepFunctionsStartExecution(props.stateMachine, {
        ...delivery,
        input: scheduler.ScheduleTargetInput.fromObject({ registry: props.registryUri }),
      }),
    });
    // Its own role (not the stack-wide one CDK would share between targets), so what it may invoke is
    // visible here: the health check function and its versions.
    const healthCheckRole = new iam.Role(this, 'HealthCheckRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    });
    acknowledgeWildcardResource(
      this,
      `${nagRef(props.checkHealth)}:*`,
      'lambda:InvokeFunction on the health check function and its versions (ARN:*), as CDK grants a Scheduler Lambda target.',
    );
    this.healthCheck = new scheduler.Schedule(this, 'HealthCheck', {
      description: 'driftwatch scan health: alert when no scan completed within schedule.alertAfter',
      schedule: scheduler.ScheduleExpression.rate(Duration.hours(1)),
      target: new targets.LambdaInvoke(props.checkHealth, {
        ...delivery,
        role: healthCheckRole,
        input: scheduler.ScheduleTargetInput.fromObject({ registry: props.registryUri }),
      }),
    });
  }
}
