import {
  Annotations,
  Aws,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import type { Registry } from '../functions/core/registry/model.js';
import { scanAlertAfterMs } from '../functions/core/registry/model.js';
import { DEFAULT_SCHEDULE, type DriftwatchConfig } from './config.js';
import { BinaryCache } from './constructs/binary-cache.js';
import { ChatChannels } from './constructs/chat-channels.js';
import { CodeBuildRunner } from './constructs/codebuild-runner.js';
import {
  DriftwatchFunction,
  type DriftwatchFunctionProps,
  type HandlerName,
} from './constructs/driftwatch-function.js';
import { FindingsAnalytics } from './constructs/findings-analytics.js';
import { FindingsApi } from './constructs/findings-api.js';
import { FindingsStorage } from './constructs/findings-storage.js';
import { NotificationTopics } from './constructs/notification-topics.js';
import { OperationalAlarms } from './constructs/operational-alarms.js';
import { OperationsDashboard } from './constructs/operations-dashboard.js';
import { OwnerSubscriptions } from './constructs/owner-subscriptions.js';
import { ProviderMirror } from './constructs/provider-mirror.js';
import { ScanMetricsAlarms } from './constructs/scan-metrics-alarms.js';
import { ScanSchedules } from './constructs/scan-schedules.js';
import { ScanWorkflow } from './constructs/scan-workflow.js';
import { ScannerPlacement } from './constructs/scanner-placement.js';
import { type TargetRead, TargetReadAccess } from './constructs/target-read-access.js';
import { FINDINGS_ACCESS, findingsGrant, HISTORY_WRITER, recordingEnvironment } from './findings-access.js';
import { QUERY_ACCESS_VARIABLE, readQueryAccess } from './query-access-config.js';
import { SCANNER_HANDLERS, type ScannerHandler, scannerRoleName } from './scanner-roles.js';
import { fallbackDestinations, registryDestinations } from './subscription-filters.js';

export interface DriftwatchStackProps extends StackProps {
  config: DriftwatchConfig;
}

/** The repository's scanner image (Terraform + the scan-terraform handler). */
export const SCANNER_DOCKERFILE = 'docker/scanner/Dockerfile';

/** What a function uses besides the findings bucket and the registry; each brings its variable and grant. */
type FunctionNeed =
  | 'registry-uri'
  | 'hash-salt'
  | 'digests-topic'
  | 'query-access'
  | 'provider-mirror'
  | 'binary-cache';

/**
 * Memory, time, what each function reads in the estate and what else it needs. How each uses the
 * findings bucket, prefix by prefix, is FINDINGS_ACCESS (infra/findings-access.ts).
 */
const FUNCTIONS: Record<
  HandlerName,
  {
    description: string;
    memoryMiB: number;
    timeout: Duration;
    reads?: TargetRead[];
    /** Every pipeline function reads the registry; the query API does not. */
    readsRegistry?: false;
    needs?: FunctionNeed[];
    /** A container image (Terraform), with ephemeral storage for providers and plans. */
    image?: { dockerfile: string; ephemeralStorageMiB: number };
  }
> = {
  'load-registry': {
    description: 'LoadRegistry: validate the registry, write the item lists of the scan',
    memoryMiB: 512,
    timeout: Duration.minutes(1),
    needs: ['registry-uri'],
  },
  'check-backend': {
    description: 'CheckBackend: policy and state rules of one state bucket',
    memoryMiB: 1024,
    timeout: Duration.minutes(10),
    reads: ['backend'],
  },
  'observe-locks': {
    description: 'ObserveLocks: first look at the locks of one state bucket',
    memoryMiB: 512,
    timeout: Duration.minutes(5),
    reads: ['backend'],
  },
  'confirm-locks': {
    description: 'ConfirmLocks: second look at the locks, stale-lock proof',
    memoryMiB: 512,
    timeout: Duration.minutes(5),
    reads: ['backend'],
  },
  // ~0.8 GB for the AWS provider alone, plus Terraform, Node and the plan JSON; more memory is also
  // more CPU for the refresh. Lambda's maximum duration: longer plans run in CodeBuild (runner: codebuild).
  'scan-terraform': {
    description: 'ScanTerraform: refresh-only plan of one workspace (container: Terraform)',
    memoryMiB: 3072,
    timeout: Duration.minutes(15),
    reads: ['state', 'sources'],
    needs: ['hash-salt', 'provider-mirror', 'binary-cache'],
    image: { dockerfile: SCANNER_DOCKERFILE, ephemeralStorageMiB: 10_240 },
  },
  'scan-cluster': {
    description: 'ScanCluster: Argo CD / Kubernetes drift of one cluster',
    memoryMiB: 1024,
    timeout: Duration.minutes(10),
    reads: ['state', 'clusters'],
    needs: ['hash-salt'],
  },
  'record-scan-failure': {
    description: 'RecordScanFailure: a scan-failed finding for a Map item that failed',
    memoryMiB: 256,
    timeout: Duration.minutes(1),
  },
  'record-findings': {
    description: 'RecordFindings: the scan summary and the heartbeat metric',
    memoryMiB: 1024,
    timeout: Duration.minutes(5),
  },
  // Renders every owner's report from one read of the findings; 10,000 findings take a few seconds.
  'write-reports': {
    description: 'WriteReports: HTML reports of the scan, for everybody and per owner',
    memoryMiB: 1024,
    timeout: Duration.minutes(5),
    readsRegistry: false,
  },
  'notify-owners': {
    description: 'NotifyOwners: one digest per owner with news',
    memoryMiB: 1024,
    timeout: Duration.minutes(5),
    needs: ['digests-topic'],
  },
  'check-health': {
    description: 'Hourly: alert the fallback owner when no scan completed in time',
    memoryMiB: 512,
    timeout: Duration.minutes(2),
    needs: ['digests-topic'],
  },
  // API Gateway waits 30 s for an integration.
  'query-findings': {
    description: 'GET /findings, GET /findings/{id}',
    memoryMiB: 1024,
    timeout: Duration.seconds(29),
    readsRegistry: false,
    needs: ['query-access'],
  },
};

/**
 * driftwatch in one account: the nightly Step Functions scan started by EventBridge Scheduler,
 * least-privilege scanners, the findings bucket with Athena on top, the findings API, owner
 * notifications and alarms. Everything that depends on the estate is generated from the registry
 * parsed at synth.
 */
export class DriftwatchStack extends Stack {
  readonly storage: FindingsStorage;
  readonly topics: NotificationTopics;
  readonly functions: Record<HandlerName, DriftwatchFunction>;
  readonly workflow: ScanWorkflow;
  readonly registryUri: string;

  constructor(scope: Construct, id: string, props: DriftwatchStackProps) {
    super(scope, id, props);
    const { config } = props;
    const { registry } = config;
    this.warnAboutRegistry(registry, config);
    const queryAccess = readQueryAccess(this.node, registry);
    if (!queryAccess.configured)
      Annotations.of(this).addWarningV2(
        'driftwatch:query-access',
        'no -c queryAccess: the findings API answers every caller 403 until admins or owners are mapped to ARN patterns (docs/security.md)',
      );

    this.storage = new FindingsStorage(this, 'Findings');
    // The registry travels as a file asset: deployed to the bootstrap bucket under its content
    // hash, so a changed registry is a new object and a new REGISTRY_URI, never an overwrite.
    const registryAsset = new s3assets.Asset(this, 'Registry', { path: config.registryPath });
    this.registryUri = registryAsset.s3ObjectUrl;
    const hashSalt = new secretsmanager.Secret(this, 'HashSalt', {
      description: 'driftwatch: salt of the hashes that stand in for sensitive values',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(hashSalt).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The salt is not a credential: rotating it changes the hash of every sensitive value, so every sensitive attribute would be reported as changed on the next scan.',
    });

    this.topics = new NotificationTopics(this, 'Notifications');
    const digestSubscriptions = new OwnerSubscriptions(this, 'DigestSubscriptions', {
      topic: this.topics.digests,
      destinations: registryDestinations(registry),
      filterByOwner: true,
    });
    const alarmSubscriptions = new OwnerSubscriptions(this, 'AlarmSubscriptions', {
      topic: this.topics.alarms,
      destinations: fallbackDestinations(registry),
      filterByOwner: false,
    });
    const chat = config.chatbot
      ? new ChatChannels(this, 'ChatChannels', {
          digests: this.topics.digests,
          alarms: this.topics.alarms,
          key: this.topics.key,
          destinations: registryDestinations(registry),
          fallbackOwner: registry.owners.fallback,
        })
      : undefined;

    // Accounts without internet egress: providers from the stack's own mirror (the registry's
    // providerMirror still wins). Without it, Terraform installs from the registries.
    const providerMirror = config.providerMirror
      ? new ProviderMirror(this, 'ProviderMirror', { accessLogs: this.storage.accessLogs })
      : undefined;

    // Terraform/OpenTofu versions other than the image's, shared by every scanner container.
    const binaryCache = new BinaryCache(this, 'TerraformBinaryCache', {
      accessLogs: this.storage.accessLogs,
    });

    // Each need is an environment variable and the grant that goes with it.
    const needs: Record<
      FunctionNeed,
      { environment: Record<string, string>; grant?: (role: iam.IRole) => void }
    > = {
      'registry-uri': { environment: { REGISTRY_URI: this.registryUri } },
      'provider-mirror': {
        environment: providerMirror ? { DRIFTWATCH_PROVIDER_MIRROR: providerMirror.url } : {},
      },
      'binary-cache': {
        environment: { DRIFTWATCH_BINARY_CACHE_S3: binaryCache.uri },
        grant: (role) => binaryCache.grantReadWrite(role),
      },
      // Who sees whose findings through the API (-c queryAccess); without it, the API answers 403.
      'query-access': { environment: { [QUERY_ACCESS_VARIABLE]: JSON.stringify(queryAccess.access) } },
      'hash-salt': {
        environment: { DRIFTWATCH_HASH_SALT_SECRET_ARN: hashSalt.secretArn },
        grant: (role) => hashSalt.grantRead(role),
      },
      'digests-topic': {
        environment: {
          TOPIC_ARN: this.topics.digests.topicArn,
          REPORT_LINK_HOURS: String(config.reportLinkHours),
        },
        grant: (role) => this.topics.grantPublish(role, this.topics.digests),
      },
    };
    const functions = {} as Record<HandlerName, DriftwatchFunction>;
    for (const [handler, settings] of Object.entries(FUNCTIONS) as Array<
      [HandlerName, (typeof FUNCTIONS)[HandlerName]]
    >) {
      const used = (settings.needs ?? []).map((need) => needs[need]);
      const functionProps: DriftwatchFunctionProps = {
        handler,
        description: settings.description,
        memoryMiB: settings.memoryMiB,
        timeout: settings.timeout,
        logRetentionDays: config.logRetentionDays,
        environment: Object.assign(
          { FINDINGS_BUCKET: this.storage.bucket.bucketName },
          recordingEnvironment(FINDINGS_ACCESS[handler]),
          ...used.map((need) => need.environment),
        ),
        ...(isScanner(handler) ? { roleName: scannerRoleName(this.stackName, handler) } : {}),
        ...(settings.image ? { image: settings.image } : {}),
      };
      const fn = new DriftwatchFunction(this, pascal(handler), functionProps);
      functions[handler] = fn;
      if (settings.reads)
        new TargetReadAccess(fn, 'TargetAccess', { registry, role: fn.role, reads: settings.reads });
    }
    this.functions = functions;

    for (const [handler, fn] of Object.entries(functions) as Array<[HandlerName, DriftwatchFunction]>) {
      const settings = FUNCTIONS[handler];
      this.storage.grantFindings(fn.role, findingsGrant(FINDINGS_ACCESS[handler]));
      if (settings.readsRegistry !== false) {
        fn.role.addToPolicy(
          new iam.PolicyStatement({
            sid: 'ReadRegistry',
            actions: ['s3:GetObject'],
            resources: [
              `arn:${Aws.PARTITION}:s3:::${registryAsset.s3BucketName}/${registryAsset.s3ObjectKey}`,
            ],
          }),
        );
      }
    }
    // After the findings grants, as before: the roles' policies keep their statement order.
    for (const [handler, fn] of Object.entries(functions) as Array<[HandlerName, DriftwatchFunction]>) {
      for (const need of FUNCTIONS[handler].needs ?? []) needs[need].grant?.(fn.role);
    }

    this.storage.protectHistory(functions[HISTORY_WRITER].role);

    // Long plans: the scan-terraform image, role and environment in CodeBuild, for the Map's runner Choice.
    const scanTerraform = functions['scan-terraform'];
    const longPlans = new CodeBuildRunner(this, 'LongPlans', {
      handler: 'scan-terraform',
      dockerfile: SCANNER_DOCKERFILE,
      scanner: scanTerraform.function,
      role: scanTerraform.role,
      environment: scanTerraform.environment,
      logRetentionDays: config.logRetentionDays,
      projectName: `${this.stackName}-scan-terraform`,
    });
    functions['load-registry'].function.addEnvironment(
      'ACCOUNT_CONCURRENCY',
      String(config.scan.accountConcurrency),
    );
    if (config.vpc)
      new ScannerPlacement(this, 'ScannerPlacement', {
        vpc: config.vpc,
        functions: SCANNER_HANDLERS.map((handler) => functions[handler]),
        codebuild: longPlans.project,
      });

    this.workflow = new ScanWorkflow(this, 'Scan', {
      functions: {
        LoadRegistry: functions['load-registry'].function,
        CheckBackend: functions['check-backend'].function,
        ObserveLocks: functions['observe-locks'].function,
        ScanTerraform: functions['scan-terraform'].function,
        ScanCluster: functions['scan-cluster'].function,
        ConfirmLocks: functions['confirm-locks'].function,
        RecordFindings: functions['record-findings'].function,
        WriteReports: functions['write-reports'].function,
        NotifyOwners: functions['notify-owners'].function,
        RecordScanFailure: functions['record-scan-failure'].function,
      },
      findingsBucket: this.storage.bucket,
      scan: config.scan,
      logRetentionDays: config.logRetentionDays,
      scanProject: longPlans.project,
    });

    const schedule = registry.schedule ?? DEFAULT_SCHEDULE;
    const schedules = new ScanSchedules(this, 'Schedules', {
      cron: schedule.cron,
      timezone: schedule.timezone,
      stateMachine: this.workflow.stateMachine,
      registryUri: this.registryUri,
      checkHealth: functions['check-health'].function,
    });

    const analytics = new FindingsAnalytics(this, 'Analytics', {
      bucket: this.storage.bucket,
      key: this.storage.key,
    });
    const api = new FindingsApi(this, 'Api', {
      queryFindings: functions['query-findings'].function,
      logRetentionDays: config.logRetentionDays,
    });

    new OperationalAlarms(this, 'Alarms', {
      stateMachine: this.workflow.stateMachine,
      deadLetterQueues: {
        DigestSubscriptions: digestSubscriptions.deadLetters,
        AlarmSubscriptions: alarmSubscriptions.deadLetters,
        Schedules: schedules.deadLetters,
        ...(chat ? { ChatRelay: chat.deadLetters } : {}),
      },
      alertAfter: Duration.millis(scanAlertAfterMs(registry)),
      topic: this.topics.alarms,
    });
    new ScanMetricsAlarms(this, 'ScanAlarms', {
      topic: this.topics.alarms,
      settings: config.alarms,
      subscribers: alarmSubscriberCount(registry, config),
      fallbackOwner: registry.owners.fallback,
    });
    const dashboard = new OperationsDashboard(this, 'Operations', {
      dashboardName: `${this.stackName}-operations`,
      stateMachine: this.workflow.stateMachine,
      digests: this.topics.digests,
      recordFindingsLogs: functions['record-findings'].logGroup,
    });
    if (config.alarms.email)
      this.topics.alarms.addSubscription(new subscriptions.EmailSubscription(config.alarms.email));

    const outputs: Record<string, { value: string; description: string }> = {
      FindingsBucket: {
        value: this.storage.bucket.bucketName,
        description: 'driftwatch findings --store s3://<this>',
      },
      RegistryUri: { value: this.registryUri, description: 'the deployed registry (REGISTRY_URI)' },
      StateMachineArn: { value: this.workflow.stateMachine.stateMachineArn, description: 'the nightly scan' },
      FindingsApiUrl: { value: api.url, description: 'GET /findings (SigV4, execute-api:Invoke)' },
      AthenaWorkGroup: {
        value: analytics.workgroup.name,
        description: 'Athena workgroup with the named queries',
      },
      GlueDatabase: { value: analytics.databaseName, description: 'Glue database of the findings table' },
      Dashboard: {
        value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards/dashboard/${dashboard.dashboard.dashboardName}`,
        description: 'scans, failures, findings by severity, digests, scan times',
      },
      DigestTopicArn: { value: this.topics.digests.topicArn, description: 'owner digests' },
      AlarmTopicArn: {
        value: this.topics.alarms.topicArn,
        description: 'driftwatch alarms (fallback owner)',
      },
      ScannerRoleArns: {
        value: SCANNER_HANDLERS.map((handler) => functions[handler].role.roleArn).join(','),
        description: 'roles the target-account role trusts',
      },
    };
    for (const [name, output] of Object.entries(outputs)) new CfnOutput(this, name, output);
  }

  private warnAboutRegistry(registry: Registry, config: DriftwatchConfig): void {
    const warn = (id: string, message: string) =>
      Annotations.of(this).addWarningV2(`driftwatch:${id}`, message);
    const dirSources = registry.workspaces.filter((workspace) => 'dir' in workspace.source).map((w) => w.id);
    if (dirSources.length > 0)
      warn(
        'source-dir',
        `workspaces ${dirSources.join(', ')} use source.dir: deployed scanners have no checkout; give them source.s3 bundles`,
      );
    const withoutRole = registry.workspaces.filter((workspace) => !workspace.roleArn).map((w) => w.id);
    if (withoutRole.length > 0)
      warn(
        'no-role',
        `workspaces ${withoutRole.join(', ')} have no roleArn: the scanner reads only their state; deploy the target-account role and set roleArn`,
      );
    const chatOnly = registryDestinations(registry).filter(
      ({ destination }) => destination.type === 'chatbot-slack',
    );
    if (chatOnly.length > 0 && !config.chatbot)
      warn(
        'chatbot-off',
        `chatbot-slack destinations of ${[...new Set(chatOnly.map(({ team }) => team.id))].join(', ')} are not deployed: add -c chatbot=true once the Slack workspace is authorised in AWS Chatbot`,
      );
  }
}

/** Subscriptions the alarm topic gets: the fallback owner's deployed destinations and the alarmEmail. */
export function alarmSubscriberCount(
  registry: Registry,
  config: Pick<DriftwatchConfig, 'chatbot' | 'alarms'>,
): number {
  const deployed = fallbackDestinations(registry).filter(
    ({ destination }) => destination.type !== 'chatbot-slack' || config.chatbot,
  );
  return deployed.length + (config.alarms.email ? 1 : 0);
}

function isScanner(handler: HandlerName): handler is ScannerHandler {
  return (SCANNER_HANDLERS as readonly string[]).includes(handler);
}

function pascal(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}
