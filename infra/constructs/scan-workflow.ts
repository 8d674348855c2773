import { Duration, Fn, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { PIPELINE_STAGES, type PipelineStage } from '../../functions/core/scan/stages.js';
import type { ScanSettings } from '../config.js';
import { acknowledgeWildcardResource, logicalId, nagFlatten, nagRef } from '../nag.js';
import { FINDINGS_PREFIXES } from './findings-storage.js';

/** The Lambda behind each stage, plus the Catch of every Map item. */
export type StageFunctions = Record<PipelineStage | 'RecordScanFailure', lambda.IFunction>;

export interface ScanWorkflowProps {
  functions: StageFunctions;
  /** Holds LoadRegistry's item lists (ItemReader) and the Maps' result files (ResultWriter). */
  findingsBucket: s3.IBucket;
  scan: ScanSettings;
  logRetentionDays: number;
}

/**
 * Errors worth another attempt: Lambda throttling and Lambda's own transient failures. Each retry
 * waits longer (backoff) and a random part of it (full jitter), so a thousand throttled items do not
 * come back in lockstep. A handler's own error is not retried: it is caught and recorded.
 */
export const TRANSIENT_LAMBDA_ERRORS = [
  'Lambda.TooManyRequestsException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.ClientExecutionTimeoutException',
];

/** The lists LoadRegistry writes, by the Map that reads them. */
type ItemList = 'workspaces' | 'buckets' | 'clusters';
type MapStage = 'CheckBackend' | 'ObserveLocks' | 'ScanTerraform' | 'ScanCluster' | 'ConfirmLocks';

/** What a Map stage reads and what its Catch records the failure against. */
const MAP_STAGES: Record<MapStage, { items: ItemList; scope: 'workspace' | 'bucket' | 'cluster' }> = {
  CheckBackend: { items: 'buckets', scope: 'bucket' },
  ObserveLocks: { items: 'buckets', scope: 'bucket' },
  ScanTerraform: { items: 'workspaces', scope: 'workspace' },
  ScanCluster: { items: 'clusters', scope: 'cluster' },
  ConfirmLocks: { items: 'buckets', scope: 'bucket' },
};

/** Name of the Wait between ObserveLocks and ConfirmLocks (a helper state, not a stage). */
export const LOCK_CONFIRMATION_WAIT = 'WaitForLockConfirmation';

/**
 * The nightly scan as a Standard state machine, built from PIPELINE_STAGES (the list the local
 * runner executes), one builder per stage. The state carries only LoadRegistry's result — scan id,
 * registry URI and S3 pointers to the item lists — because Step Functions payloads stop at 256 KiB:
 * every Map reads its items from S3 and writes its results to S3, and its output is discarded.
 */
export class ScanWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ScanWorkflowProps) {
    super(scope, id);
    const builders: Record<PipelineStage, () => sfn.IChainable> = {
      LoadRegistry: () => this.loadRegistry(props),
      CheckBackend: () => this.itemMap('CheckBackend', props, props.scan.backendConcurrency),
      ObserveLocks: () => this.itemMap('ObserveLocks', props, props.scan.backendConcurrency),
      ScanTerraform: () => this.itemMap('ScanTerraform', props, props.scan.terraformConcurrency),
      ScanCluster: () => this.itemMap('ScanCluster', props, props.scan.clusterConcurrency),
      // The scans in between usually outlast the confirmation window, so this Wait is often zero.
      ConfirmLocks: () =>
        sfn.Chain.start(
          new sfn.Wait(this, LOCK_CONFIRMATION_WAIT, {
            comment: 'until the lock confirmation window of LoadRegistry has passed',
            time: sfn.WaitTime.timestampPath('$.confirmAt'),
          }),
        ).next(this.itemMap('ConfirmLocks', props, props.scan.backendConcurrency)),
      RecordFindings: () => this.scanTask('RecordFindings', props.functions.RecordFindings),
      NotifyOwners: () => this.scanTask('NotifyOwners', props.functions.NotifyOwners),
    };
    let definition: sfn.Chain | undefined;
    for (const stage of PIPELINE_STAGES) {
      const part = builders[stage]();
      definition = definition ? definition.next(part) : sfn.Chain.start(part);
    }
    if (!definition) throw new Error('PIPELINE_STAGES is empty');

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetentionDays });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      comment: 'driftwatch nightly scan',
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout: Duration.hours(props.scan.timeoutHours),
      tracingEnabled: true,
      // Inputs and outputs are pointers and ids only, but an error's Cause can quote a handler's
      // message: keep execution data in the execution history, not in the log.
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    // CDK grants the S3 side of ItemReader and ResultWriter; the bucket's key is for us to grant.
    props.findingsBucket.encryptionKey?.grant(this.stateMachine, 'kms:Decrypt', 'kms:GenerateDataKey');
    this.acknowledgeGeneratedWildcards(props);
  }

  /** What CDK grants the state machine for its tasks, Maps, logs and traces, finding by finding. */
  private acknowledgeGeneratedWildcards(props: ScanWorkflowProps): void {
    for (const fn of new Set(Object.values(props.functions))) {
      acknowledgeWildcardResource(
        this,
        `${nagRef(fn)}:*`,
        'lambda:InvokeFunction on the function and its versions (ARN:*), as CDK grants a LambdaInvoke task; one function of this state machine.',
      );
    }
    acknowledgeWildcardResource(
      this,
      `arn:<AWS::Partition>:s3:::<${logicalId(props.findingsBucket)}>/*`,
      "CDK's ItemReader/ResultWriter grant on the findings bucket's objects: the item lists and Map results are written under scratch/ with run-time keys (scan id, map run id).",
    );
    acknowledgeWildcardResource(
      this,
      '*',
      'CloudWatch Logs delivery (logs:*LogDelivery, DescribeLogGroups, PutResourcePolicy) and X-Ray (PutTraceSegments, sampling) support no resource-level permissions.',
    );
    // The child executions' ARN exactly as CDK's DistributedMap builds it for its policy.
    const stack = Stack.of(this);
    const executions = nagFlatten(
      this,
      `arn:${stack.partition}:states:${stack.region}:${stack.account}:execution:${Fn.select(6, Fn.split(':', this.stateMachine.stateMachineArn))}`,
    );
    acknowledgeWildcardResource(
      this,
      `${executions}:*`,
      'Describe/stop the child executions a Distributed Map starts; their names are generated at run time.',
    );
    for (const stage of Object.keys(MAP_STAGES)) {
      acknowledgeWildcardResource(
        this,
        `${executions}/${stage}:*`,
        `Redrive the ${stage} Map run's child executions, named at run time.`,
      );
    }
  }

  /** LoadRegistry gets the execution's input (`{}` or `{registry, scanId, startedAt}`) and its result becomes the state. */
  private loadRegistry(props: ScanWorkflowProps): sfn.IChainable {
    const task = new tasks.LambdaInvoke(this, 'LoadRegistry', {
      lambdaFunction: props.functions.LoadRegistry,
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
    });
    return withTransientRetry(task);
  }

  /** RecordFindings and NotifyOwners: the scan's context in, the state left as it was. */
  private scanTask(stage: 'RecordFindings' | 'NotifyOwners', fn: lambda.IFunction): sfn.IChainable {
    const task = new tasks.LambdaInvoke(this, stage, {
      lambdaFunction: fn,
      payload: sfn.TaskInput.fromObject(scanContext()),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: sfn.JsonPath.DISCARD,
    });
    return withTransientRetry(task);
  }

  /**
   * A Distributed Map over one of LoadRegistry's lists: each item is a complete event for the stage's
   * handler; a failed item (after its retries) goes to RecordScanFailure with the stage and the error,
   * so it becomes a scan-failed finding and the scan goes on.
   */
  private itemMap(stage: MapStage, props: ScanWorkflowProps, maxConcurrency: number): sfn.DistributedMap {
    const { items, scope } = MAP_STAGES[stage];
    const map = new sfn.DistributedMap(this, stage, {
      comment: `${stage}: one item per ${scope} of the registry`,
      itemReader: new sfn.S3JsonItemReader({
        bucket: props.findingsBucket,
        key: sfn.JsonPath.stringAt(`$.items.${items}.key`),
      }),
      maxConcurrency,
      toleratedFailurePercentage: props.scan.toleratedFailurePercentage,
      mapExecutionType: sfn.StateMachineType.STANDARD,
      resultWriterV2: new sfn.ResultWriterV2({
        bucket: props.findingsBucket,
        prefix: `${FINDINGS_PREFIXES.scratch}map-results/${stage}`,
      }),
      resultPath: sfn.JsonPath.DISCARD,
      label: stage,
    });
    const task = withTransientRetry(
      new tasks.LambdaInvoke(this, `${stage}Item`, {
        lambdaFunction: props.functions[stage],
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
        resultPath: sfn.JsonPath.DISCARD,
      }),
    );
    const recordFailure = withTransientRetry(
      new tasks.LambdaInvoke(this, `Record${stage}Failure`, {
        lambdaFunction: props.functions.RecordScanFailure,
        payload: sfn.TaskInput.fromObject({
          ...scanContext(),
          [scope]: sfn.JsonPath.stringAt(`$.${scope}`),
          stage,
          error: sfn.JsonPath.objectAt('$.error'),
        }),
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
        resultPath: sfn.JsonPath.DISCARD,
      }),
    );
    task.addCatch(recordFailure, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    map.itemProcessor(task);
    return map;
  }
}

/** The fields every stage after LoadRegistry gets (LoadRegistry's result is the state). */
function scanContext() {
  return {
    scanId: sfn.JsonPath.stringAt('$.scanId'),
    startedAt: sfn.JsonPath.stringAt('$.startedAt'),
    registry: sfn.JsonPath.stringAt('$.registry'),
  };
}

function withTransientRetry(task: tasks.LambdaInvoke): tasks.LambdaInvoke {
  task.addRetry({
    errors: TRANSIENT_LAMBDA_ERRORS,
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts: 6,
    maxDelay: Duration.seconds(60),
    jitterStrategy: sfn.JitterType.FULL,
  });
  return task;
}
