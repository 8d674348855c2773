import { Aws, Duration, Fn, Stack } from 'aws-cdk-lib';
import type * as codebuild from 'aws-cdk-lib/aws-codebuild';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { PIPELINE_STAGES, type PipelineStage } from '../../functions/core/scan/stages.js';
import type { ScanSettings } from '../config.js';
import { acknowledgeWildcardResource, nagFlatten, nagRef } from '../nag.js';
import { FINDINGS_PREFIXES } from './findings-storage.js';

/** The Lambda behind each stage, plus the Catch of every Map item. */
export type StageFunctions = Record<PipelineStage | 'RecordScanFailure', lambda.IFunction>;

export interface ScanWorkflowProps {
  functions: StageFunctions;
  /** Holds LoadRegistry's item lists (ItemReader) and the Maps' result files (ResultWriter). */
  findingsBucket: s3.IBucket;
  scan: ScanSettings;
  logRetentionDays: number;
  /** Runs ScanTerraform items whose runner is `codebuild` (infra/constructs/codebuild-runner.ts). */
  scanProject: codebuild.IProject;
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
export type MapStage = 'CheckBackend' | 'ObserveLocks' | 'ScanTerraform' | 'ScanCluster' | 'ConfirmLocks';

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

/** The states inside ScanTerraform: per account, then per workspace a Choice of Lambda or CodeBuild. */
export const TERRAFORM_STATES = {
  account: 'ScanTerraformAccount',
  runner: 'ScanTerraformRunner',
  lambda: 'ScanTerraformItem',
  codebuild: 'ScanTerraformBuild',
  failure: 'RecordScanTerraformFailure',
} as const;

/** StartBuild's throttling: worth a retry with backoff, like Lambda's. */
export const TRANSIENT_CODEBUILD_ERRORS = [
  'CodeBuild.AccountLimitExceededException',
  'CodeBuild.ThrottlingException',
];

/** Where a Map's Catch leaves its error for RecordFindings (LoadRegistry starts it as `{}`). */
export function failurePath(stage: MapStage): string {
  return `$.failures.${stage}`;
}

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
    const builders: Record<PipelineStage, () => Part> = {
      LoadRegistry: () => ({ chain: this.loadRegistry(props) }),
      CheckBackend: () => this.itemMap('CheckBackend', props, props.scan.backendConcurrency),
      ObserveLocks: () => this.itemMap('ObserveLocks', props, props.scan.backendConcurrency),
      ScanTerraform: () => this.terraformMap(props),
      ScanCluster: () => this.itemMap('ScanCluster', props, props.scan.clusterConcurrency),
      // The scans in between usually outlast the confirmation window, so this Wait is often zero.
      ConfirmLocks: () => {
        const part = this.itemMap('ConfirmLocks', props, props.scan.backendConcurrency);
        const wait = new sfn.Wait(this, LOCK_CONFIRMATION_WAIT, {
          comment: 'until the lock confirmation window of LoadRegistry has passed',
          time: sfn.WaitTime.timestampPath('$.confirmAt'),
        });
        return { chain: sfn.Chain.start(wait).next(part.chain), map: part.map };
      },
      RecordFindings: () => ({ chain: this.recordFindings(props.functions.RecordFindings) }),
      WriteReports: () => {
        const task = this.scanTask('WriteReports', props.functions.WriteReports);
        return { chain: task, optional: { task, errorPath: REPORT_FAILURE_PATH } };
      },
      NotifyOwners: () => ({ chain: this.scanTask('NotifyOwners', props.functions.NotifyOwners) }),
    };
    let definition: sfn.Chain | undefined;
    // A Map that fails as a whole (tolerated failures exceeded, an item whose Catch failed too) is
    // caught: its error goes to `failures`, and the scan goes on with the next stage, so RecordFindings
    // and NotifyOwners always run and report what finished and, as scan-failed, what did not.
    let uncaught: { state: sfn.DistributedMap | tasks.LambdaInvoke; errorPath: string } | undefined;
    for (const stage of PIPELINE_STAGES) {
      const part = builders[stage]();
      if (uncaught) {
        uncaught.state.addCatch(part.chain.startState, {
          errors: [sfn.Errors.ALL],
          resultPath: uncaught.errorPath,
        });
      }
      uncaught = part.map
        ? { state: part.map, errorPath: failurePath(stage as MapStage) }
        : part.optional
          ? { state: part.optional.task, errorPath: part.optional.errorPath }
          : undefined;
      definition = definition ? definition.next(part.chain) : sfn.Chain.start(part.chain);
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
    this.grantCodeBuild(props.scanProject);
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
    const objects = nagRef(props.findingsBucket);
    acknowledgeWildcardResource(
      this,
      `${objects}/${FINDINGS_PREFIXES.scratch}*`,
      "The Maps' ItemReader: LoadRegistry's item lists under scratch/, keyed by scan id at run time.",
    );
    acknowledgeWildcardResource(
      this,
      `${objects}/${MAP_RESULTS_PREFIX}*`,
      "The Maps' ResultWriter: result files under scratch/map-results/, keyed by map run id at run time.",
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

  /** WriteReports and NotifyOwners: the scan's context in, the state left as it was. */
  private scanTask(stage: 'WriteReports' | 'NotifyOwners', fn: lambda.IFunction): tasks.LambdaInvoke {
    const task = new tasks.LambdaInvoke(this, stage, {
      lambdaFunction: fn,
      payload: sfn.TaskInput.fromObject(scanContext()),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: sfn.JsonPath.DISCARD,
    });
    return withTransientRetry(task);
  }

  /** RecordFindings also gets the Maps' failures (their scopes become scan-failed) and the filter. */
  private recordFindings(fn: lambda.IFunction): sfn.IChainable {
    const task = new tasks.LambdaInvoke(this, 'RecordFindings', {
      lambdaFunction: fn,
      payload: sfn.TaskInput.fromObject({
        ...scanContext(),
        failures: sfn.JsonPath.objectAt('$.failures'),
        filter: sfn.JsonPath.objectAt('$.filter'),
      }),
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      resultPath: sfn.JsonPath.DISCARD,
    });
    return withTransientRetry(task);
  }

  /** The Distributed Map settings every Map stage shares: items from S3, results to S3, none in the state. */
  private distributedMap(
    stage: MapStage,
    props: ScanWorkflowProps,
    list: string,
    maxConcurrency: number,
    comment: string,
  ) {
    return new sfn.DistributedMap(this, stage, {
      comment,
      itemReader: new ScratchItemReader({
        bucket: props.findingsBucket,
        key: sfn.JsonPath.stringAt(`$.items.${list}.key`),
      }),
      maxConcurrency,
      toleratedFailurePercentage: props.scan.toleratedFailurePercentage,
      mapExecutionType: sfn.StateMachineType.STANDARD,
      resultWriterV2: new ScratchResultWriter({
        bucket: props.findingsBucket,
        prefix: `${MAP_RESULTS_PREFIX}${stage}`,
      }),
      resultPath: sfn.JsonPath.DISCARD,
      label: stage,
    });
  }

  /**
   * A Distributed Map over one of LoadRegistry's lists: each item is a complete event for the stage's
   * handler; a failed item (after its retries) goes to RecordScanFailure with the stage and the error,
   * so it becomes a scan-failed finding and the scan goes on.
   */
  private itemMap(stage: MapStage, props: ScanWorkflowProps, maxConcurrency: number): Part {
    const { items, scope } = MAP_STAGES[stage];
    const map = this.distributedMap(
      stage,
      props,
      items,
      maxConcurrency,
      `${stage}: one item per ${scope} of the registry`,
    );
    const task = withTransientRetry(
      new tasks.LambdaInvoke(this, `${stage}Item`, {
        lambdaFunction: props.functions[stage],
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
        resultPath: sfn.JsonPath.DISCARD,
      }),
    );
    task.addCatch(this.recordFailure(stage, scope, props), {
      errors: [sfn.Errors.ALL],
      resultPath: '$.error',
    });
    map.itemProcessor(task);
    return { chain: sfn.Chain.start(map), map };
  }

  private recordFailure(
    stage: MapStage,
    scope: 'workspace' | 'bucket' | 'cluster',
    props: ScanWorkflowProps,
  ) {
    return withTransientRetry(
      new tasks.LambdaInvoke(this, `Record${stage}Failure`, {
        lambdaFunction: props.functions.RecordScanFailure,
        payload: sfn.TaskInput.fromObject({
          ...scanContext(),
          [scope]: sfn.JsonPath.stringAt(`$.${scope}`),
          ...(stage === 'ScanTerraform' ? { runner: sfn.JsonPath.stringAt('$.runner') } : {}),
          stage,
          error: sfn.JsonPath.objectAt('$.error'),
        }),
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
        resultPath: sfn.JsonPath.DISCARD,
        // The item leaves nothing: with the error's Cause (up to 32 KB) an inline Map's collected
        // results would pass Step Functions' 256 KiB limit after a few failures.
        outputPath: sfn.JsonPath.DISCARD,
      }),
    );
  }

  /**
   * ScanTerraform: a Distributed Map over AWS accounts (LoadRegistry's `accounts` list: each item an
   * account's workspaces), a few accounts at a time; inside, an inline Map over the account's
   * workspaces with the account's own cap (MaxConcurrencyPath), so one throttled account keeps its
   * retries to itself. Each workspace goes to Lambda or, for `runner: codebuild`, to a CodeBuild
   * build of the same image, started and awaited by the `.sync` integration.
   */
  private terraformMap(props: ScanWorkflowProps): Part {
    const accountsAtOnce = Math.max(
      1,
      Math.floor(props.scan.terraformConcurrency / props.scan.accountConcurrency),
    );
    const map = this.distributedMap(
      'ScanTerraform',
      props,
      'accounts',
      accountsAtOnce,
      'ScanTerraform: one child execution per AWS account, its workspaces capped per account',
    );
    const item = (field: string) => sfn.JsonPath.stringAt(`$$.Map.Item.Value.${field}`);
    const perAccount = new sfn.Map(this, TERRAFORM_STATES.account, {
      comment: "one account's workspaces, at most the account's cap at once",
      itemsPath: '$.workspaces',
      maxConcurrencyPath: '$.maxConcurrency',
      itemSelector: {
        ...scanContext(),
        account: sfn.JsonPath.stringAt('$.account'),
        workspace: item('workspace'),
        runner: item('runner'),
        timeoutSeconds: item('timeoutSeconds'),
        buildTimeoutMinutes: item('buildTimeoutMinutes'),
      },
      resultPath: sfn.JsonPath.DISCARD,
    });
    const failure = this.recordFailure('ScanTerraform', 'workspace', props);
    const inLambda = withTransientRetry(
      new tasks.LambdaInvoke(this, TERRAFORM_STATES.lambda, {
        lambdaFunction: props.functions.ScanTerraform,
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
        resultPath: sfn.JsonPath.DISCARD,
        // The inline Map collects every workspace's output (Step Functions checks its size, 256 KiB,
        // even though ResultPath discards it): each leaves `{}`, so thousands per account fit.
        outputPath: sfn.JsonPath.DISCARD,
      }),
    );
    inLambda.addCatch(failure, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    const inCodeBuild = new sfn.CustomState(this, TERRAFORM_STATES.codebuild, {
      stateJson: {
        Type: 'Task',
        Comment: 'the same image and entrypoint in CodeBuild, for plans longer than Lambda allows',
        Resource: `arn:${Aws.PARTITION}:states:::codebuild:startBuild.sync`,
        Parameters: {
          ProjectName: props.scanProject.projectName,
          'TimeoutInMinutesOverride.$': '$.buildTimeoutMinutes',
          // The Map item is the event, as Lambda would get it (functions/adapters/container-entrypoint.ts).
          EnvironmentVariablesOverride: [
            { Name: 'DRIFTWATCH_EVENT', Type: 'PLAINTEXT', 'Value.$': 'States.JsonToString($)' },
          ],
        },
        ResultPath: null,
        OutputPath: null,
      },
    });
    inCodeBuild.addRetry({
      errors: TRANSIENT_CODEBUILD_ERRORS,
      interval: Duration.seconds(5),
      backoffRate: 2,
      maxAttempts: 6,
      maxDelay: Duration.seconds(120),
      jitterStrategy: sfn.JitterType.FULL,
    });
    inCodeBuild.addCatch(failure, { errors: [sfn.Errors.ALL], resultPath: '$.error' });
    perAccount.itemProcessor(
      new sfn.Choice(this, TERRAFORM_STATES.runner, {
        comment: 'the runner LoadRegistry chose for the workspace',
      })
        .when(sfn.Condition.stringEquals('$.runner', 'codebuild'), inCodeBuild)
        .otherwise(inLambda),
    );
    map.itemProcessor(perAccount);
    return { chain: sfn.Chain.start(map), map };
  }

  /** `.sync` CodeBuild: start, poll, stop on abort, and the managed rule Step Functions uses to hear back. */
  private grantCodeBuild(project: codebuild.IProject): void {
    const stack = Stack.of(this);
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['codebuild:StartBuild', 'codebuild:StopBuild', 'codebuild:BatchGetBuilds'],
        resources: [project.projectArn],
      }),
    );
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
        resources: [
          stack.formatArn({
            service: 'events',
            resource: 'rule',
            resourceName: 'StepFunctionsGetEventForCodeBuildStartBuildRule',
          }),
        ],
      }),
    );
  }
}

/** What a stage builder returns: its states, and its Distributed Map when it has one (for the Catch). */
interface Part {
  chain: sfn.IChainable;
  map?: sfn.DistributedMap;
  /** A stage whose failure must not stop the scan: caught, its error kept at this path. */
  optional?: { task: tasks.LambdaInvoke; errorPath: string };
}

/** Where the Distributed Maps write their result files (one folder per stage, then per map run). */
const MAP_RESULTS_PREFIX = `${FINDINGS_PREFIXES.scratch}map-results/`;

/**
 * CDK grants an S3 item reader GetObject on every object of its bucket, which for the findings bucket
 * is every finding, history file and report. The Maps read only LoadRegistry's item lists: scratch/.
 */
class ScratchItemReader extends sfn.S3JsonItemReader {
  override providePolicyStatements(): iam.PolicyStatement[] {
    return [
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${FINDINGS_PREFIXES.scratch}*`)],
      }),
    ];
  }
}

/** CDK grants a result writer reads and writes on every object of its bucket; the Maps' results go to scratch/map-results/. */
class ScratchResultWriter extends sfn.ResultWriterV2 {
  override providePolicyStatements(): iam.PolicyStatement[] {
    const bucket = this.bucket;
    if (!bucket) throw new Error('the Map result writer needs its bucket');
    return [
      new iam.PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: [bucket.arnForObjects(`${MAP_RESULTS_PREFIX}*`)],
      }),
    ];
  }
}

/** Where WriteReports' Catch leaves its error: NotifyOwners still runs, its digests without a link. */
export const REPORT_FAILURE_PATH = '$.reportFailure';

/** The fields every stage after LoadRegistry gets (LoadRegistry's result is the state). */
function scanContext() {
  return {
    scanId: sfn.JsonPath.stringAt('$.scanId'),
    startedAt: sfn.JsonPath.stringAt('$.startedAt'),
    registry: sfn.JsonPath.stringAt('$.registry'),
  };
}

function withTransientRetry<T extends tasks.LambdaInvoke>(task: T): T {
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
