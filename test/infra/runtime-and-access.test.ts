import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { isSensitiveName } from '../../functions/core/redaction/secret-names.js';
import { NAMED_QUERIES } from '../../infra/constructs/findings-analytics.js';
import { heartbeatWindow } from '../../infra/constructs/operational-alarms.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

// Some tests synthesize another variant of the app: seconds each, more on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TIMEOUT_MS });

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize();
}, SYNTH_TIMEOUT_MS);

type Resource = { Properties: Record<string, unknown> };
function functionsByPrefix(): Map<string, Resource> {
  const functions = synthesized.template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
  return new Map(Object.entries(functions));
}

describe('schedules', () => {
  it('start the scan on the registry’s cron in its time zone, with a flexible window, retries and a DLQ', () => {
    synthesized.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(30 1 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 15 },
      Target: {
        Arn: { Ref: Match.stringLikeRegexp('^ScanStateMachine') },
        RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 7200 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^SchedulesDeadLetters'), 'Arn'] } },
      },
    });
    // The execution input names the deployed registry (an S3 asset of the stack).
    const [nightly] = Object.values(
      synthesized.template.findResources('AWS::Scheduler::Schedule', {
        Properties: { Description: 'driftwatch nightly scan' },
      }),
    ) as Resource[];
    expect((nightly?.Properties.Target as { Input: unknown } | undefined)?.Input).toEqual({
      'Fn::Join': [
        '',
        ['{"registry":"', { 'Fn::Sub': expect.stringMatching(/^s3:\/\/cdk-.*\.yaml$/) }, '"}'],
      ],
    });
  });

  it('run the health check every hour', () => {
    synthesized.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 hour)',
      Target: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^CheckHealthFunction'), 'Arn'] } },
    });
  });

  it('default to 02:00 UTC when the registry has no schedule', () => {
    const estate = synthesize({ registry: 'examples/estate/driftwatch.yaml' });
    estate.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 2 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
    });
  });
});

describe('functions', () => {
  it('run Node 24 on ARM64 with X-Ray tracing and a log group with retention, bundled as ESM', () => {
    const zips = [...functionsByPrefix()].filter(([, fn]) => fn.Properties.PackageType !== 'Image');
    expect(zips.length).toBe(11);
    for (const [id, fn] of zips) {
      expect(fn.Properties, id).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/Logs/) } },
      });
    }
    synthesized.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('run the Terraform scanner as a container image with ≥ 2 GB, 10 GB of /tmp and 15 minutes', () => {
    const [[id, scanner] = []] = [...functionsByPrefix()].filter(([name]) =>
      name.startsWith('ScanTerraformFunction'),
    );
    expect(id).toBeDefined();
    expect(scanner?.Properties).toMatchObject({
      PackageType: 'Image',
      // linux_amd64: the platform CI-made lock files carry h1 checksums for (docs/providers.md).
      Architectures: ['x86_64'],
      Timeout: 900,
      EphemeralStorage: { Size: 10_240 },
      TracingConfig: { Mode: 'Active' },
    });
    expect(Number(scanner?.Properties.MemorySize)).toBeGreaterThanOrEqual(2048);
  });

  it('give each function its memory and timeout', () => {
    const byHandler = Object.fromEntries(
      [...functionsByPrefix()].map(([id, fn]) => [id.replace(/Function[0-9A-F]{8}$/, ''), fn.Properties]),
    );
    expect(byHandler.QueryFindings).toMatchObject({ Timeout: 29, MemorySize: 1024 });
    expect(byHandler.RecordScanFailure).toMatchObject({ Timeout: 60, MemorySize: 256 });
    expect(byHandler.LoadRegistry?.Environment).toMatchObject({
      Variables: {
        REGISTRY_URI: expect.anything(),
        FINDINGS_BUCKET: { Ref: expect.stringMatching(/^FindingsBucket/) },
      },
    });
    expect(byHandler.NotifyOwners?.Environment).toMatchObject({
      Variables: { TOPIC_ARN: { Ref: expect.stringMatching(/^NotificationsDigests/) } },
    });
  });

  it('deploy the registry as an S3 object and pass it as REGISTRY_URI', () => {
    const [entry] = [...functionsByPrefix()].filter(([id]) => id.startsWith('LoadRegistry'));
    const environment = entry?.[1].Properties.Environment as
      | { Variables: { REGISTRY_URI: unknown } }
      | undefined;
    expect(JSON.stringify(environment?.Variables.REGISTRY_URI)).toMatch(/s3:\/\/.*\.yaml/);
  });
});

describe('environments', () => {
  it('hold no secret of any function or of the long-plan builds (names and ARNs only), builds unprivileged, keys rotating', () => {
    const environments = [
      ...[...functionsByPrefix()].map(([id, fn]) => ({
        id,
        variables: (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      })),
      ...Object.entries(synthesized.template.findResources('AWS::CodeBuild::Project')).map(
        ([id, project]) => ({
          id,
          variables: Object.fromEntries(
            (
              (project as Resource).Properties.Environment as {
                EnvironmentVariables: Array<{ Name: string; Type: string; Value: unknown }>;
              }
            ).EnvironmentVariables.map((variable) => {
              // Parameter Store and Secrets Manager variables would be resolved into the build: none.
              expect(variable.Type, `${id} ${variable.Name}`).toBe('PLAINTEXT');
              return [variable.Name, variable.Value];
            }),
          ),
        }),
      ),
    ];
    expect(environments.length).toBe(13);
    // The long-plan builds run Terraform providers: no Docker daemon, no privileged container.
    synthesized.template.allResourcesProperties('AWS::CodeBuild::Project', {
      Environment: Match.objectLike({ PrivilegedMode: false }),
    });
    // Every key of the stack rotates (findings bucket, notification topics).
    synthesized.template.allResourcesProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    for (const { id, variables } of environments)
      for (const [name, value] of Object.entries(variables)) {
        expect(isSensitiveName(name), `${id} ${name}`).toBe(false);
        // A dynamic reference would put the secret's value into the function's configuration.
        expect(JSON.stringify(value), `${id} ${name}`).not.toMatch(
          /resolve:(secretsmanager|ssm-secure)|SecretString/,
        );
      }
  });
});

describe('the findings API', () => {
  it('serves GET /findings and GET /findings/{id} with IAM authorization only', () => {
    for (const route of ['GET /findings', 'GET /findings/{id}'])
      synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: route,
        AuthorizationType: 'AWS_IAM',
      });
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Route', 2);
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('identity.userArn'),
      },
    });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });
});

describe('Athena', () => {
  it('has a Glue table over scans/ with JSON SerDe skipping malformed lines and partition projection on dt', () => {
    synthesized.template.hasResourceProperties('AWS::Glue::Table', {
      TableInput: {
        Name: 'findings',
        PartitionKeys: [{ Name: 'dt', Type: 'string' }],
        Parameters: Match.objectLike({
          'projection.enabled': 'true',
          'projection.dt.type': 'date',
          'projection.dt.format': 'yyyy-MM-dd',
          'storage.location.template': Match.anyValue(),
        }),
        StorageDescriptor: Match.objectLike({
          SerdeInfo: {
            SerializationLibrary: 'org.openx.data.jsonserde.JsonSerDe',
            Parameters: Match.objectLike({ 'ignore.malformed.json': 'true' }),
          },
          Columns: Match.arrayWith([
            { Name: 'id', Type: 'string' },
            { Name: 'firstseenat', Type: 'string' },
            { Name: 'resolvedat', Type: 'string' },
          ]),
        }),
      },
    });
  });

  it('has a workgroup that enforces KMS-encrypted results and the four named queries', () => {
    synthesized.template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        ResultConfiguration: {
          OutputLocation: Match.anyValue(),
          EncryptionConfiguration: { EncryptionOption: 'SSE_KMS', KmsKey: Match.anyValue() },
        },
      }),
    });
    expect(Object.keys(NAMED_QUERIES)).toEqual([
      'open-findings-by-owner',
      'drift-age-distribution',
      'top-drifting-resources',
      'mean-time-to-resolve',
    ]);
    for (const name of Object.keys(NAMED_QUERIES))
      synthesized.template.hasResourceProperties('AWS::Athena::NamedQuery', { Name: `driftwatch-${name}` });
    expect(NAMED_QUERIES['mean-time-to-resolve']?.sql).toMatch(/status = 'resolved'.*resolvedat/s);
    // Nights drifted are distinct scan days: two scans of one night (a retry, a manual run) are one.
    expect(NAMED_QUERIES['top-drifting-resources']?.sql).toMatch(/count\(DISTINCT dt\) AS nights_drifted/);
  });
});

describe('alarms', () => {
  it('fire when a scan fails or times out, to the alarm topic', () => {
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut'])
      synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/States',
        MetricName: metric,
        AlarmActions: [{ Ref: Match.stringLikeRegexp('^NotificationsAlarms') }],
      });
  });

  it('fire when any dead-letter queue has a message', () => {
    const dlqAlarms = Object.values(
      synthesized.template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: 'ApproximateNumberOfMessagesVisible' },
      }),
    );
    expect(dlqAlarms).toHaveLength(4);
  });

  it('fire when no scan completed for schedule.alertAfter, missing data counting as breaching', () => {
    synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Driftwatch',
      MetricName: 'ScanCompleted',
      Period: 3600,
      EvaluationPeriods: 30,
      DatapointsToAlarm: 30,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
    expect(heartbeatWindow(Duration.hours(26))).toEqual({ period: Duration.hours(1), periods: 26 });
    expect(heartbeatWindow(Duration.days(30)).periods).toBe(168);
  });
});
