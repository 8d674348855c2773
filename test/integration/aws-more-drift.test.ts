import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutBucketCorsCommand } from '@aws-sdk/client-s3';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { awsJsonCall, awsQueryCall, awsRequest } from '../helpers/aws-api.js';
import {
  allFileText,
  canary,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  useMoto,
  useTempDir,
  writeRegistry,
} from '../helpers/integration.js';
import { findingFor, scanInProcess, zippedHandler } from '../helpers/local-scan.js';

/**
 * AWS resource types platform teams use beyond aws-common-drift (ECS cluster, task definition and
 * service, an ALB with target group, listener and rule, Route 53 zone and records with an alias,
 * EventBridge rule and target, Secrets Manager secret and version, Kinesis, Lambda alias, permission and
 * event source mapping, function URL, SNS subscription, EventBridge bus and Scheduler schedule, S3 CORS,
 * logging, lifecycle and notifications, RDS subnet and parameter groups, Cognito, ACM, SES, IAM instance
 * profile, OIDC provider and service-linked role, launch template and autoscaling group, Backup vault and
 * plan, WAFv2, ElastiCache subnet group, CloudFront, EFS, an SSM document), applied once with real Terraform
 * against moto. Right after the apply a scan finds nothing (what AWS itself moves after an apply is
 * noise: a certificate issued, a target group's load balancer, an empty list under a secret-looking
 * name); then the changes people make by hand are each exactly one finding, with the secrets nowhere.
 */
const aws = useMoto();
const temp = useTempDir();
const SALT = 'integration-test-salt-aws-more';
const declaredSecret = canary('declared-secret');
const handSecret = canary('hand-secret');
let staged: StagedWorkspace;
let registryPath: string;
const logLines: string[] = [];

beforeAll(async () => {
  const zip = zippedHandler(temp.path);
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/aws-more'),
    backend: { bucket: STATE_BUCKET, key: 'aws-more/terraform.tfstate', region: REGION },
    env: { TF_VAR_secret_value: declaredSecret, TF_VAR_lambda_zip: zip },
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
  // moto issues a DNS-validated certificate 60 s after its request, as ACM does once the validation
  // record resolves; the apply (the load balancer alone waits ~60 s) nearly always takes longer.
  const acm = (action: string, input: unknown) => awsJsonCall('acm', `CertificateManager.${action}`, input);
  const { CertificateSummaryList } = (await acm('ListCertificates', {})) as {
    CertificateSummaryList: { CertificateArn: string }[];
  };
  const { Certificate } = (await acm('DescribeCertificate', {
    CertificateArn: CertificateSummaryList[0]?.CertificateArn,
  })) as { Certificate: { CreatedAt: number } };
  await sleep(Math.max(0, Certificate.CreatedAt * 1000 + 65_000 - Date.now()));
  process.env.AWS_MORE_SECRET = declaredSecret;
  registryPath = writeRegistry(join(temp.path, 'driftwatch.yaml'), [
    {
      id: 'aws-more',
      dir: 'aws-more',
      extra: [
        `    vars: { lambda_zip: ${JSON.stringify(zip)} }`,
        '    sensitiveVars: { secret_value: { env: AWS_MORE_SECRET } }',
      ],
    },
  ]);
}, 480_000);

afterAll(async () => {
  await staged?.dispose();
});

/** The out-of-band changes, each as a person makes it by hand (console, CLI), through the AWS APIs. */
async function changeByHand(): Promise<void> {
  // A task definition cannot be edited: the console registers a new revision (one variable changed)
  // and moves the service to it.
  const ecs = (action: string, input: unknown) =>
    awsJsonCall('ecs', `AmazonEC2ContainerServiceV20141113.${action}`, input);
  const { taskDefinition } = (await ecs('DescribeTaskDefinition', { taskDefinition: 'more-app' })) as {
    taskDefinition: Record<string, unknown> & {
      containerDefinitions: { environment: { name: string; value: string }[] }[];
    };
  };
  const revision = (await ecs('RegisterTaskDefinition', {
    family: taskDefinition.family,
    containerDefinitions: taskDefinition.containerDefinitions.map((container) => ({
      ...container,
      environment: container.environment.map((variable) =>
        variable.name === 'COLOR' ? { ...variable, value: 'green' } : variable,
      ),
    })),
    requiresCompatibilities: taskDefinition.requiresCompatibilities,
    networkMode: taskDefinition.networkMode,
    cpu: taskDefinition.cpu,
    memory: taskDefinition.memory,
    executionRoleArn: taskDefinition.executionRoleArn,
  })) as { taskDefinition: { taskDefinitionArn: string } };
  await ecs('UpdateService', {
    cluster: 'more',
    service: 'more-app',
    taskDefinition: revision.taskDefinition.taskDefinitionArn,
  });

  const elb = (parameters: Record<string, string>) =>
    awsQueryCall('elasticloadbalancing', { Version: '2015-12-01', ...parameters });
  const groups = await elb({ Action: 'DescribeTargetGroups', 'Names.member.1': 'more-app' });
  await elb({
    Action: 'ModifyTargetGroup',
    TargetGroupArn: /<TargetGroupArn>([^<]+)<\/TargetGroupArn>/.exec(groups)?.[1] ?? '',
    HealthCheckPath: '/',
  });

  const zones = await awsRequest({
    service: 'route53',
    method: 'GET',
    path: '/2013-04-01/hostedzonesbyname?dnsname=more.example.com',
  });
  const zoneId = /<Id>\/hostedzone\/([^<]+)<\/Id>/.exec(zones)?.[1];
  await awsRequest({
    service: 'route53',
    path: `/2013-04-01/hostedzone/${zoneId}/rrset/`,
    headers: { 'content-type': 'application/xml' },
    body: [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<ChangeResourceRecordSetsRequest xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><ChangeBatch>',
      '<Changes><Change><Action>UPSERT</Action><ResourceRecordSet><Name>api.more.example.com</Name>',
      '<Type>CNAME</Type><TTL>300</TTL><ResourceRecords><ResourceRecord><Value>other.example.net</Value>',
      '</ResourceRecord></ResourceRecords></ResourceRecordSet></Change></Changes></ChangeBatch>',
      '</ChangeResourceRecordSetsRequest>',
    ].join(''),
  });

  // The rule widened to every ECS task state change (the detail filter removed).
  await awsJsonCall('events', 'AWSEvents.PutRule', {
    Name: 'more-ecs-stopped',
    EventPattern: JSON.stringify({ source: ['aws.ecs'], 'detail-type': ['ECS Task State Change'] }),
  });
  // A new value put by hand: the version Terraform wrote is no longer the current one.
  await new SecretsManagerClient({}).send(
    new PutSecretValueCommand({ SecretId: 'more/db', SecretString: handSecret }),
  );
  await awsJsonCall('kinesis', 'Kinesis_20131202.IncreaseStreamRetentionPeriod', {
    StreamName: 'more-events',
    RetentionPeriodHours: 48,
  });
  // The function's URL opened to anyone (the console's "Auth type: NONE").
  await awsRequest({
    service: 'lambda',
    method: 'PUT',
    path: '/2021-10-31/functions/more-fn/url',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ AuthType: 'NONE' }),
  });
  await aws.s3.send(
    new PutBucketCorsCommand({
      Bucket: 'more-site',
      CORSConfiguration: {
        CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAgeSeconds: 300 }],
      },
    }),
  );
}

describe('more AWS resource types with real terraform and moto', () => {
  it('right after apply: no findings; what AWS moved after the apply is noise', async () => {
    const result = await scanInProcess({
      registryPath,
      dir: join(temp.path, 'after-apply'),
      salt: SALT,
      logLines,
    });
    const outcome = result.outcomes[0]!;
    expect(outcome.result?.status).toBe('ok');
    expect(result.findings).toEqual([]);
    const removed = (rule: string) =>
      (outcome.result?.noiseRemoved ?? [])
        .filter((removal) => removal.rule === rule)
        .flatMap((removal) => removal.paths.map((path) => `${removal.address} ${path}`));
    // ACM issued the certificate after the apply stored PENDING_VALIDATION.
    expect(removed('volatile-attributes')).toEqual(['aws_acm_certificate.app status']);
    // The listener's load balancer, listed by the target group created before it; the buckets' CORS,
    // logging and lifecycle from their own resources.
    expect(removed('companion-attributes')).toEqual(
      expect.arrayContaining([
        'aws_lb_target_group.app load_balancer_arns[0]',
        expect.stringMatching(/^aws_s3_bucket\.site cors_rule/),
        expect.stringMatching(/^aws_s3_bucket\.site logging/),
        expect.stringMatching(/^aws_s3_bucket\.logs lifecycle_rule/),
      ]),
    );
    // null → [] of a name that reads as a secret, hashed before the rule saw it was empty.
    expect(removed('null-versus-empty')).toContain('aws_wafv2_web_acl.app token_domains');
  });

  it('changes made by hand are one finding each, with no secret anywhere', async () => {
    await changeByHand();
    const storeDir = join(temp.path, 'cli-store');
    const run = await runCli(['scan', '--registry', registryPath, '--store', storeDir, '--format', 'json'], {
      env: { DRIFTWATCH_HASH_SALT: SALT },
    });
    expect(run.code).toBe(2);
    const findings = (JSON.parse(run.stdout) as Finding[]).filter((finding) => finding.check === 'terraform');
    const summary = Object.fromEntries(
      findings.map((finding) => [(finding.resource as { address: string }).address, finding.severity]),
    );
    expect(summary).toEqual({
      'aws_ecs_service.app': 'medium',
      'aws_lb_target_group.app': 'medium',
      'aws_route53_record.api': 'medium',
      'aws_cloudwatch_event_rule.ecs': 'medium',
      'aws_secretsmanager_secret_version.db': 'medium',
      'aws_kinesis_stream.events': 'medium',
      'aws_s3_bucket_cors_configuration.site': 'medium',
      'aws_lambda_function_url.fn': 'critical',
    });
    const changesOf = (address: string) => findingFor(findings, address)?.drift?.changes;
    expect(changesOf('aws_ecs_service.app')).toEqual([
      {
        path: 'task_definition',
        before: expect.stringMatching(/:task-definition\/more-app:1$/),
        after: expect.stringMatching(/:task-definition\/more-app:2$/),
        sensitive: false,
      },
    ]);
    expect(changesOf('aws_lb_target_group.app')).toEqual([
      { path: 'health_check[0].path', before: '/healthz', after: '/', sensitive: false },
    ]);
    expect(changesOf('aws_route53_record.api')).toEqual([
      {
        path: 'records[0]',
        before: 'backend.more.example.com',
        after: 'other.example.net',
        sensitive: false,
      },
    ]);
    // Inside the pattern document: only the filter that went.
    expect(changesOf('aws_cloudwatch_event_rule.ecs')).toEqual([
      { path: 'event_pattern.detail', before: { lastStatus: ['STOPPED'] }, after: null, sensitive: false },
    ]);
    expect(changesOf('aws_secretsmanager_secret_version.db')).toEqual([
      { path: 'version_stages[0]', before: 'AWSCURRENT', after: 'AWSPREVIOUS', sensitive: false },
    ]);
    expect(changesOf('aws_kinesis_stream.events')).toEqual([
      { path: 'retention_period', before: 24, after: 48, sensitive: false },
    ]);
    // The bucket lists the same rule: its companion reports it, once.
    expect(changesOf('aws_s3_bucket_cors_configuration.site')).toEqual([
      {
        path: 'cors_rule[0].allowed_origins[0]',
        before: 'https://example.com',
        after: '*',
        sensitive: false,
      },
    ]);

    expect(changesOf('aws_lambda_function_url.fn')).toEqual([
      { path: 'authorization_type', before: 'AWS_IAM', after: 'NONE', sensitive: false },
    ]);
    expect(findingFor(findings, 'aws_lambda_function_url.fn')?.evidence.severityReasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/^public-access:/)]),
    );

    const everything = [
      run.stdout,
      run.stderr,
      allFileText(storeDir),
      allFileText(join(temp.path, 'after-apply')),
      logLines.join('\n'),
    ].join('\n');
    for (const secret of [declaredSecret, handSecret]) expect(everything).not.toContain(secret);
  });
});
