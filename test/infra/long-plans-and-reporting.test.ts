import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { RUNNER_COMMAND } from '../../infra/constructs/codebuild-runner.js';
import { failurePath, TERRAFORM_STATES } from '../../infra/constructs/scan-workflow.js';
import { SCANNER_HANDLERS } from '../../infra/scanner-roles.js';
import { scratchDir } from '../helpers/scratch-dirs.js';
import { type AslDefinition, type AslState, definitionOf } from './definition.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

interface Resource {
  Properties: Record<string, unknown>;
}

let synthesized: Synthesized;
let definition: AslDefinition;
beforeAll(() => {
  synthesized = synthesize({ failedWorkspacesAlarmPercent: '15', successfulScanWithinHours: '30' });
  definition = definitionOf(synthesized.template);
}, SYNTH_TIMEOUT_MS);

const resources = (type: string) =>
  Object.entries(synthesized.template.findResources(type) as Record<string, Resource>);
const one = (type: string, prefix: string): Resource => {
  const found = resources(type).filter(([id]) => id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${found.length} ${type} named ${prefix}*`);
  return found[0]![1];
};
const state = (name: string): AslState => {
  const found = definition.States[name];
  if (!found) throw new Error(`no state ${name}`);
  return found;
};

describe('long plans: ScanTerraform in CodeBuild', () => {
  it('runs the Lambda’s own image, role and environment, with the entrypoint script and an 8 h limit', () => {
    const project = one('AWS::CodeBuild::Project', 'LongPlansProject');
    const lambda = one('AWS::Lambda::Function', 'ScanTerraformFunction');
    const environment = project.Properties.Environment as {
      Image: unknown;
      Type: string;
      EnvironmentVariables: Array<{ Name: string; Value: unknown }>;
    };
    // The same image asset: both end in the asset hash as the tag.
    const tag = (value: unknown) => /:([0-9a-f]{64})"?/.exec(JSON.stringify(value))?.[1];
    const lambdaCode = lambda.Properties.Code as { ImageUri: unknown };
    expect(tag(environment.Image)).toBeDefined();
    expect(tag(environment.Image)).toBe(tag(lambdaCode.ImageUri));
    // The build platform follows the Lambda's architecture.
    const architecture = (lambda.Properties.Architectures as string[] | undefined)?.[0] ?? 'x86_64';
    expect(environment.Type).toBe(architecture === 'arm64' ? 'ARM_CONTAINER' : 'LINUX_CONTAINER');
    expect(project.Properties.ServiceRole).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^ScanTerraformRole/), 'Arn'],
    });
    expect(project.Properties.TimeoutInMinutes).toBe(480);
    expect(JSON.parse(String((project.Properties.Source as { BuildSpec: string }).BuildSpec))).toEqual({
      version: '0.2',
      phases: { build: { commands: [RUNNER_COMMAND] } },
    });
    const lambdaVariables = (lambda.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    const buildVariables = Object.fromEntries(environment.EnvironmentVariables.map((v) => [v.Name, v.Value]));
    for (const name of ['FINDINGS_BUCKET', 'DRIFTWATCH_HASH_SALT_SECRET_ARN'])
      expect(buildVariables[name], name).toEqual(lambdaVariables[name]);
  });

  it('lets CodeBuild assume the scanner role only for this project, in this account', () => {
    synthesized.template.hasResourceProperties('AWS::IAM::Role', {
      RoleName: 'Driftwatch-scanner-scan-terraform',
      AssumeRolePolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'codebuild.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
            },
          }),
        ]),
      },
    });
  });

  it('chooses the runner per workspace inside the per-account Map, and starts builds with .sync and the workspace’s timeout', () => {
    const perAccount = state('ScanTerraform').ItemProcessor?.States[TERRAFORM_STATES.account];
    expect(perAccount).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.workspaces',
      MaxConcurrencyPath: '$.maxConcurrency',
      ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, StartAt: TERRAFORM_STATES.runner },
    });
    const states = perAccount?.ItemProcessor?.States ?? {};
    expect(states[TERRAFORM_STATES.runner]).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.runner', StringEquals: 'codebuild', Next: TERRAFORM_STATES.codebuild }],
      Default: TERRAFORM_STATES.lambda,
    });
    expect(states[TERRAFORM_STATES.codebuild]).toMatchObject({
      Resource: 'arn:aws:states:::codebuild:startBuild.sync',
      Parameters: {
        'TimeoutInMinutesOverride.$': '$.buildTimeoutMinutes',
        EnvironmentVariablesOverride: [
          { Name: 'DRIFTWATCH_EVENT', Type: 'PLAINTEXT', 'Value.$': 'States.JsonToString($)' },
        ],
      },
      Catch: [{ ErrorEquals: ['States.ALL'], Next: TERRAFORM_STATES.failure, ResultPath: '$.error' }],
    });
    synthesized.template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('^ScanStateMachineRole') }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['codebuild:BatchGetBuilds', 'codebuild:StartBuild', 'codebuild:StopBuild'],
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^LongPlansProject'), 'Arn'] },
          }),
          Match.objectLike({
            Action: ['events:DescribeRule', 'events:PutRule', 'events:PutTargets'],
            Resource: {
              'Fn::Join': ['', Match.arrayWith([':rule/StepFunctionsGetEventForCodeBuildStartBuildRule'])],
            },
          }),
        ]),
      },
    });
  });

  it('gives LoadRegistry the per-account cap', () => {
    const loadRegistry = one('AWS::Lambda::Function', 'LoadRegistryFunction');
    expect(
      (loadRegistry.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
    ).toMatchObject({
      ACCOUNT_CONCURRENCY: '5',
    });
  });
});

describe('a night that always reports', () => {
  it('catches every Distributed Map into the next stage, its error kept for RecordFindings', () => {
    const maps = ['CheckBackend', 'ObserveLocks', 'ScanTerraform', 'ScanCluster', 'ConfirmLocks'] as const;
    const next = {
      CheckBackend: 'ObserveLocks',
      ObserveLocks: 'ScanTerraform',
      ScanTerraform: 'ScanCluster',
      ScanCluster: 'WaitForLockConfirmation',
      ConfirmLocks: 'RecordFindings',
    };
    for (const stage of maps) {
      expect(state(stage).Catch, stage).toEqual([
        { ErrorEquals: ['States.ALL'], Next: next[stage], ResultPath: failurePath(stage) },
      ]);
      expect(state(stage).Next, stage).toBe(next[stage]);
    }
  });

  it('alarms on more than X% of the workspaces failing and on no successful scan within N hours', () => {
    const alarms = resources('AWS::CloudWatch::Alarm');
    const alarm = (prefix: string) => {
      const found = alarms.find(([id]) => id.startsWith(prefix));
      if (!found) throw new Error(`no alarm ${prefix}`);
      return found[1].Properties as Record<string, unknown> & { Metrics: Array<Record<string, unknown>> };
    };
    const expression = (props: { Metrics: Array<Record<string, unknown>> }) =>
      props.Metrics.find((metric) => 'Expression' in metric)?.Expression;
    const metricNames = (props: { Metrics: Array<Record<string, unknown>> }) =>
      props.Metrics.filter((metric) => 'MetricStat' in metric)
        .map((metric) => (metric.MetricStat as { Metric: { MetricName: string; Namespace: string } }).Metric)
        .map((metric) => `${metric.Namespace}/${metric.MetricName}`)
        .sort();

    const failedShare = alarm('ScanAlarmsWorkspacesFailedShare');
    expect(expression(failedShare)).toBe('IF(total > 0, 100 * failed / total, 0)');
    expect(metricNames(failedShare)).toEqual(['Driftwatch/WorkspacesFailed', 'Driftwatch/WorkspacesTotal']);
    expect(failedShare).toMatchObject({ Threshold: 15, ComparisonOperator: 'GreaterThanThreshold' });

    const noSuccess = alarm('ScanAlarmsNoSuccessfulScan');
    expect(expression(noSuccess)).toBe('IF(total > 0 AND 100 * failed / total <= 15, 1, 0)');
    expect(noSuccess).toMatchObject({
      EvaluationPeriods: 30,
      DatapointsToAlarm: 30,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    for (const props of [failedShare, noSuccess])
      expect(props.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^NotificationsAlarms/) }]);
  });
});

describe('the alarm topic always has a subscriber', () => {
  const dir = scratchDir('driftwatch-alarm-subscriber-');
  const chatOnly = join(dir, 'chat-only.yaml');
  writeFileSync(
    chatOnly,
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: chatbot-slack, workspace: T0123ABCD, channel: C0456EFGH }] }] }',
      'workspaces:',
      '  - { id: w, owner: platform, environment: prod, source: { s3: "s3://bundles/w.tgz" }, backend: { bucket: tfstate-w, key: w.tfstate, region: eu-west-1 } }',
      '',
    ].join('\n'),
  );

  it(
    'refuses to synthesize when the fallback owner’s only destination is a Slack channel that is not deployed',
    () => {
      expect(() => synthesize({ registry: chatOnly, chatbot: 'false' })).toThrow(
        "the alarm topic has no subscriber: give the fallback owner 'platform' an email, https or sqs destination, deploy its chatbot-slack destination with -c chatbot=true, or pass -c alarmEmail=<address>",
      );
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'accepts -c alarmEmail as the subscriber; VPC placement puts the scanners and the builds in the configured subnets',
    () => {
      const placed = synthesize({
        registry: chatOnly,
        chatbot: 'false',
        alarmEmail: 'oncall@example.com',
        vpcId: 'vpc-0123456789abcdef0',
        vpcSubnetIds: 'subnet-0123456789abcdef0,subnet-0123456789abcdef1',
        vpcSecurityGroupIds: 'sg-0123456789abcdef0',
      });
      placed.template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
        TopicArn: { Ref: Match.stringLikeRegexp('^NotificationsAlarms') },
      });
      const functions = Object.entries(
        placed.template.findResources('AWS::Lambda::Function') as Record<string, Resource>,
      );
      const scannerPrefixes = SCANNER_HANDLERS.map(
        (handler) =>
          `${handler.replace(/(^|-)([a-z])/g, (_m, _d, letter: string) => letter.toUpperCase())}Function`,
      );
      for (const [id, fn] of functions) {
        const scanner = scannerPrefixes.some((prefix) => id.startsWith(prefix));
        expect(fn.Properties.VpcConfig, id).toEqual(
          scanner
            ? {
                SubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
                SecurityGroupIds: ['sg-0123456789abcdef0'],
              }
            : undefined,
        );
      }
      placed.template.hasResourceProperties('AWS::CodeBuild::Project', {
        VpcConfig: {
          VpcId: 'vpc-0123456789abcdef0',
          Subnets: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
          SecurityGroupIds: ['sg-0123456789abcdef0'],
        },
      });
    },
    SYNTH_TIMEOUT_MS * 2,
  );

  it('refuses a partial or malformed VPC placement with the settings it needs', () => {
    expect(() => synthesize({ vpcId: 'vpc-0123456789abcdef0' })).toThrow(
      'VPC placement needs all of -c vpcId=vpc-… -c vpcSubnetIds=subnet-a,subnet-b -c vpcSecurityGroupIds=sg-…',
    );
    expect(() =>
      synthesize({
        vpcId: 'vpc-0123456789abcdef0',
        vpcSubnetIds: 'subnet-0123456789abcdef0,sg-0123456789abcdef0',
        vpcSecurityGroupIds: 'sg-0123456789abcdef0',
      }),
    ).toThrow('not an AWS id: subnet sg-0123456789abcdef0 (vpc-…, subnet-…, sg-…)');
  });
});
