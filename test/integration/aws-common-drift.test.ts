import { join } from 'node:path';
import { DynamoDBClient, UpdateContinuousBackupsCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateNetworkAclEntryCommand,
  CreateRouteCommand,
  DescribeInstancesCommand,
  DescribeInternetGatewaysCommand,
  DescribeNetworkAclsCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupRulesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  EC2Client,
  ModifyInstanceMetadataOptionsCommand,
  ModifySecurityGroupRulesCommand,
  ModifySubnetAttributeCommand,
  ReplaceNetworkAclEntryCommand,
} from '@aws-sdk/client-ec2';
import {
  AddUserToGroupCommand,
  AttachRolePolicyCommand,
  CreatePolicyCommand,
  CreatePolicyVersionCommand,
  CreateUserCommand,
  IAMClient,
  TagUserCommand,
  UpdateAccountPasswordPolicyCommand,
} from '@aws-sdk/client-iam';
import { DeletePublicAccessBlockCommand } from '@aws-sdk/client-s3';
import { SetTopicAttributesCommand, SNSClient, TagResourceCommand } from '@aws-sdk/client-sns';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { SENSITIVE_MARKER } from '../../functions/core/redaction/secrets.js';
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
 * Common AWS resource types beyond the drift scenarios (KMS keys and key policies, log groups, alarms,
 * IAM policies, users and groups, the account password policy, a VPC with routes, rules, a network ACL
 * and an EC2 instance, an HTTP API route, an SNS topic policy, DynamoDB, ECR, S3 public access block and
 * ownership controls, a Lambda function), applied once with
 * real Terraform against moto. Right after the apply a scan finds nothing; then the changes people
 * make by hand, each made through the AWS API, are each exactly one finding, ranked, with the canary
 * secrets they plant nowhere in what driftwatch prints or stores.
 */
const aws = useMoto();
const temp = useTempDir();
const SALT = 'integration-test-salt-aws-common';
const apiKey = canary('api-key');
const lambdaSecret = canary('lambda-db-password');
const ssmSecret = canary('ssm-rotated');
const ACCOUNT = '123456789012';
let staged: StagedWorkspace;
let registryPath: string;
const logLines: string[] = [];

beforeAll(async () => {
  const zip = zippedHandler(temp.path);
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/aws-common'),
    backend: { bucket: STATE_BUCKET, key: 'aws-common/terraform.tfstate', region: REGION },
    env: { TF_VAR_api_key: apiKey, TF_VAR_lambda_zip: zip },
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
  process.env.AWS_COMMON_API_KEY = apiKey;
  registryPath = writeRegistry(join(temp.path, 'driftwatch.yaml'), [
    {
      id: 'aws-common',
      dir: 'aws-common',
      extra: [
        `    vars: { lambda_zip: ${JSON.stringify(zip)} }`,
        '    sensitiveVars: { api_key: { env: AWS_COMMON_API_KEY } }',
      ],
    },
  ]);
}, 240_000);

afterAll(async () => {
  await staged?.dispose();
});

const pathsOf = (finding: Finding | undefined) => finding?.drift?.changes.map((change) => change.path);

/** The out-of-band changes, each as a person makes it by hand (console, CLI), through the AWS APIs. */
async function changeByHand(): Promise<void> {
  const kms = (action: string, input: unknown) => awsJsonCall('kms', `TrentService.${action}`, input);
  const appKey = (
    (await kms('DescribeKey', { KeyId: 'alias/sweep-app' })) as {
      KeyMetadata: { KeyId: string; Arn: string };
    }
  ).KeyMetadata;
  await kms('TagResource', { KeyId: appKey.KeyId, Tags: [{ TagKey: 'CostCenter', TagValue: 'cc-42' }] });
  await kms('DisableKeyRotation', { KeyId: appKey.KeyId });
  const partner = {
    Sid: 'Partner',
    Effect: 'Allow',
    Principal: { AWS: 'arn:aws:iam::111122223333:root' },
    Action: 'kms:Decrypt',
    Resource: '*',
  };
  const withPartner = async (keyId: string) => {
    const { Policy } = (await kms('GetKeyPolicy', { KeyId: keyId, PolicyName: 'default' })) as {
      Policy: string;
    };
    const policy = JSON.parse(Policy) as { Statement: unknown[] };
    policy.Statement.push(partner);
    await kms('PutKeyPolicy', { KeyId: keyId, PolicyName: 'default', Policy: JSON.stringify(policy) });
  };
  await withPartner(appKey.KeyId);
  // The key whose policy is an aws_kms_key_policy: the companion reports it, not the key.
  const { Keys } = (await kms('ListKeys', {})) as { Keys: { KeyId: string }[] };
  for (const { KeyId } of Keys) {
    const { KeyMetadata } = (await kms('DescribeKey', { KeyId })) as { KeyMetadata: { Description: string } };
    if (KeyMetadata.Description !== 'sweep shared key') continue;
    await withPartner(KeyId);
    await kms('DisableKey', { KeyId });
    // The app's alias moved to it: whatever encrypts through alias/sweep-app now uses this key.
    await kms('UpdateAlias', { AliasName: 'alias/sweep-app', TargetKeyId: KeyId });
  }

  await awsJsonCall('logs', 'Logs_20140328.PutRetentionPolicy', {
    logGroupName: '/sweep/app',
    retentionInDays: 1,
  });
  await awsQueryCall('monitoring', {
    Action: 'PutMetricAlarm',
    Version: '2010-08-01',
    AlarmName: 'sweep-errors',
    AlarmDescription: 'errors',
    ComparisonOperator: 'GreaterThanThreshold',
    EvaluationPeriods: '1',
    MetricName: 'Errors',
    Namespace: 'AWS/Lambda',
    Period: '300',
    Statistic: 'Sum',
    Threshold: '500',
    'Dimensions.member.1.Name': 'FunctionName',
    'Dimensions.member.1.Value': 'sweep-fn',
  });

  const iam = new IAMClient({});
  await iam.send(
    new CreatePolicyVersionCommand({
      PolicyArn: `arn:aws:iam::${ACCOUNT}:policy/sweep-read`,
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }],
      }),
      SetAsDefault: true,
    }),
  );
  const admin = await iam.send(
    new CreatePolicyCommand({
      PolicyName: 'sweep-handmade-admin',
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
      }),
    }),
  );
  await iam.send(new AttachRolePolicyCommand({ RoleName: 'sweep-fn', PolicyArn: admin.Policy?.Arn }));
  await iam.send(
    new TagUserCommand({ UserName: 'sweep-ci', Tags: [{ Key: 'Team', Value: 'someone-else' }] }),
  );
  // A user added to the deployers group by hand gets the group's policies.
  await iam.send(new CreateUserCommand({ UserName: 'intruder' }));
  await iam.send(new AddUserToGroupCommand({ GroupName: 'sweep-deployers', UserName: 'intruder' }));
  // The console sends every setting; only the minimum length is lowered.
  await iam.send(
    new UpdateAccountPasswordPolicyCommand({
      MinimumPasswordLength: 8,
      RequireLowercaseCharacters: true,
      RequireNumbers: true,
      RequireUppercaseCharacters: true,
      RequireSymbols: true,
      AllowUsersToChangePassword: true,
      PasswordReusePrevention: 24,
    }),
  );

  const ec2 = new EC2Client({});
  const tables = await ec2.send(
    new DescribeRouteTablesCommand({ Filters: [{ Name: 'tag:Name', Values: ['sweep-private'] }] }),
  );
  const table = tables.RouteTables?.[0];
  const gateways = await ec2.send(
    new DescribeInternetGatewaysCommand({
      Filters: [{ Name: 'attachment.vpc-id', Values: [table?.VpcId ?? ''] }],
    }),
  );
  await ec2.send(
    new CreateRouteCommand({
      RouteTableId: table?.RouteTableId,
      DestinationCidrBlock: '0.0.0.0/0',
      GatewayId: gateways.InternetGateways?.[0]?.InternetGatewayId,
    }),
  );
  const groups = await ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: ['sweep-app'] }] }),
  );
  await ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: groups.SecurityGroups?.[0]?.GroupId,
      IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
    }),
  );
  const subnets = await ec2.send(
    new DescribeSubnetsCommand({ Filters: [{ Name: 'tag:Name', Values: ['sweep-a'] }] }),
  );
  await ec2.send(
    new ModifySubnetAttributeCommand({
      SubnetId: subnets.Subnets?.[0]?.SubnetId,
      MapPublicIpOnLaunch: { Value: true },
    }),
  );
  const reservations = await ec2.send(
    new DescribeInstancesCommand({
      Filters: [{ Name: 'subnet-id', Values: [subnets.Subnets?.[0]?.SubnetId ?? ''] }],
    }),
  );
  // IMDSv1 answered again. moto resets every option the call leaves out (EC2 keeps them), so all are given.
  await ec2.send(
    new ModifyInstanceMetadataOptionsCommand({
      InstanceId: reservations.Reservations?.[0]?.Instances?.[0]?.InstanceId,
      HttpTokens: 'optional',
      HttpEndpoint: 'enabled',
      HttpPutResponseHopLimit: 1,
      HttpProtocolIpv6: 'disabled',
      InstanceMetadataTags: 'disabled',
    }),
  );
  const acls = await ec2.send(
    new DescribeNetworkAclsCommand({ Filters: [{ Name: 'vpc-id', Values: [table?.VpcId ?? ''] }] }),
  );
  await ec2.send(
    new CreateNetworkAclEntryCommand({
      // aws_network_acl.a, the one associated with the subnet.
      NetworkAclId: acls.NetworkAcls?.find((acl) => !acl.IsDefault && (acl.Associations?.length ?? 0) > 0)
        ?.NetworkAclId,
      RuleNumber: 90,
      Protocol: '-1',
      RuleAction: 'allow',
      Egress: false,
      CidrBlock: '0.0.0.0/0',
    }),
  );

  // Edited in place, as the console's "Edit inbound rules" does: the HTTPS rule open to the world
  // becomes SSH, and the private NACL entry is widened to 0.0.0.0/0 under its rule number.
  const edge = (
    await ec2.send(
      new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: ['sweep-edge'] }] }),
    )
  ).SecurityGroups?.[0]?.GroupId;
  const edgeRules = await ec2.send(
    new DescribeSecurityGroupRulesCommand({ Filters: [{ Name: 'group-id', Values: [edge ?? ''] }] }),
  );
  const https = edgeRules.SecurityGroupRules?.find((rule) => !rule.IsEgress && rule.FromPort === 443);
  await ec2.send(
    new ModifySecurityGroupRulesCommand({
      GroupId: edge,
      SecurityGroupRules: [
        {
          SecurityGroupRuleId: https?.SecurityGroupRuleId,
          SecurityGroupRule: { IpProtocol: 'tcp', FromPort: 22, ToPort: 22, CidrIpv4: '0.0.0.0/0' },
        },
      ],
    }),
  );
  // aws_network_acl.b, associated with no subnet.
  const privateAcl = acls.NetworkAcls?.find((acl) => !acl.IsDefault && (acl.Associations?.length ?? 0) === 0);
  await ec2.send(
    new ReplaceNetworkAclEntryCommand({
      NetworkAclId: privateAcl?.NetworkAclId,
      RuleNumber: 100,
      Protocol: '6',
      RuleAction: 'allow',
      Egress: false,
      CidrBlock: '0.0.0.0/0',
      PortRange: { From: 443, To: 443 },
    }),
  );

  // The topic's statement edited in place: its Condition removed, Principal "*" left as it was.
  const topicArn = `arn:aws:sns:${REGION}:${ACCOUNT}:sweep-events`;
  await new SNSClient({}).send(
    new SetTopicAttributesCommand({
      TopicArn: topicArn,
      AttributeName: 'Policy',
      AttributeValue: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'PublishFromAccount',
            Effect: 'Allow',
            Principal: { AWS: '*' },
            Action: 'sns:Publish',
            Resource: topicArn,
          },
        ],
      }),
    }),
  );

  // The route that required IAM answers anyone now (UpdateRoute, as the console's "Detach authorization").
  const apis = JSON.parse(await awsRequest({ service: 'apigateway', method: 'GET', path: '/v2/apis' })) as {
    items: { apiId: string; name: string }[];
  };
  const apiId = apis.items.find((api) => api.name === 'sweep-orders')?.apiId;
  const routes = JSON.parse(
    await awsRequest({ service: 'apigateway', method: 'GET', path: `/v2/apis/${apiId}/routes` }),
  ) as { items: { routeId: string }[] };
  await awsRequest({
    service: 'apigateway',
    method: 'PATCH',
    path: `/v2/apis/${apiId}/routes/${routes.items[0]?.routeId}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authorizationType: 'NONE' }),
  });

  // The first tag of a topic applied without tags (its state holds tags = null).
  await new SNSClient({}).send(
    new TagResourceCommand({ ResourceArn: topicArn, Tags: [{ Key: 'Team', Value: 'ledger' }] }),
  );

  const dynamodb = new DynamoDBClient({});
  await dynamodb.send(
    new UpdateTableCommand({ TableName: 'sweep-orders', DeletionProtectionEnabled: false }),
  );
  await dynamodb.send(
    new UpdateContinuousBackupsCommand({
      TableName: 'sweep-events',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
    }),
  );
  // Keep 3 images instead of 10: a retention setting, not a permission.
  await awsJsonCall('ecr', 'AmazonEC2ContainerRegistry_V20150921.PutLifecyclePolicy', {
    repositoryName: 'sweep-app',
    lifecyclePolicyText: JSON.stringify({
      rules: [
        {
          rulePriority: 1,
          description: 'keep 10',
          selection: { tagStatus: 'any', countType: 'imageCountMoreThan', countNumber: 3 },
          action: { type: 'expire' },
        },
      ],
    }),
  });
  await awsJsonCall('ecr', 'AmazonEC2ContainerRegistry_V20150921.PutImageTagMutability', {
    repositoryName: 'sweep-app',
    imageTagMutability: 'MUTABLE',
  });
  await aws.s3.send(new DeletePublicAccessBlockCommand({ Bucket: 'sweep-assets' }));
  await awsRequest({
    service: 'lambda',
    method: 'PUT',
    path: '/2015-03-31/functions/sweep-fn/configuration',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Environment: { Variables: { LOG_LEVEL: 'debug', DB_PASSWORD: lambdaSecret } } }),
  });
  await new SSMClient({}).send(
    new PutParameterCommand({
      Name: '/sweep/api-key',
      Value: ssmSecret,
      Type: 'SecureString',
      KeyId: appKey.Arn,
      Overwrite: true,
    }),
  );
}

describe('common AWS resource types with real terraform and moto', () => {
  it('right after apply: no findings; companion policies and protocol numbers are noise', async () => {
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
        .map((removal) => [removal.address, removal.paths[0]]);
    // The topic read the policy of aws_sns_topic_policy, the key that of aws_kms_key_policy.
    expect(removed('companion-attributes')).toEqual(
      expect.arrayContaining([
        ['aws_sns_topic.events', expect.stringMatching(/^policy/)],
        ['aws_kms_key.shared', expect.stringMatching(/^policy/)],
      ]),
    );
    // protocol = "tcp" read back as the number the network ACL API speaks.
    expect(removed('equivalent-protocol')).toEqual([['aws_network_acl.a', 'ingress[0].protocol']]);
  });

  it('changes made by hand are one finding each, ranked, with no secret anywhere', async () => {
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
      'aws_kms_key.app': 'high',
      'aws_kms_key.shared': 'high',
      'aws_kms_key_policy.shared': 'high',
      'aws_kms_alias.app': 'high',
      'aws_cloudwatch_log_group.app': 'medium',
      'aws_cloudwatch_metric_alarm.errors': 'medium',
      'aws_iam_policy.read': 'high',
      'aws_iam_role.fn': 'high',
      'aws_iam_user.ci': 'low',
      'aws_iam_group_membership.deployers': 'high',
      'aws_iam_account_password_policy.strict': 'high',
      'aws_subnet.a': 'high',
      'aws_instance.web': 'high',
      'aws_apigatewayv2_route.orders': 'critical',
      'aws_route_table.private': 'high',
      'aws_security_group.app': 'critical',
      'aws_network_acl.a': 'high',
      'aws_security_group.edge': 'critical',
      'aws_network_acl.b': 'high',
      'aws_sns_topic_policy.events': 'critical',
      'aws_dynamodb_table.orders': 'high',
      'aws_dynamodb_table.events': 'high',
      'aws_sns_topic.events': 'low',
      'aws_ecr_lifecycle_policy.app': 'medium',
      'aws_ecr_repository.app': 'high',
      'aws_s3_bucket_public_access_block.assets': 'critical',
      'aws_lambda_function.fn': 'medium',
      'aws_ssm_parameter.api_key': 'medium',
    });

    expect(pathsOf(findingFor(findings, 'aws_kms_key.app'))).toEqual([
      'enable_key_rotation',
      'policy.Statement[1]',
      'tags.CostCenter',
    ]);
    expect(findingFor(findings, 'aws_kms_key_policy.shared')?.drift?.changes).toEqual([
      {
        path: 'policy.Statement[1]',
        before: null,
        after: expect.objectContaining({ Sid: 'Partner', Action: 'kms:Decrypt' }),
        sensitive: false,
      },
    ]);
    expect(findingFor(findings, 'aws_cloudwatch_log_group.app')?.drift?.changes).toEqual([
      { path: 'retention_in_days', before: 30, after: 1, sensitive: false },
    ]);
    expect(findingFor(findings, 'aws_cloudwatch_metric_alarm.errors')?.drift?.changes).toEqual([
      { path: 'threshold', before: 5, after: 500, sensitive: false },
    ]);
    expect(pathsOf(findingFor(findings, 'aws_iam_policy.read'))).toEqual([
      'policy.Statement[0].Action[0]',
      'policy.Statement[0].Resource[0]',
    ]);
    // The attachment made by hand, not the one aws_iam_role_policy_attachment declares.
    expect(findingFor(findings, 'aws_iam_role.fn')?.drift?.changes).toEqual([
      expect.objectContaining({ before: null, after: `arn:aws:iam::${ACCOUNT}:policy/sweep-handmade-admin` }),
    ]);
    const route = findingFor(findings, 'aws_route_table.private')?.drift?.changes;
    expect(route).toEqual([
      expect.objectContaining({ before: null, after: expect.objectContaining({ cidr_block: '0.0.0.0/0' }) }),
    ]);
    const opened = findingFor(findings, 'aws_security_group.app')?.drift?.changes;
    expect(opened).toEqual([
      expect.objectContaining({
        after: expect.objectContaining({ cidr_blocks: ['0.0.0.0/0'], from_port: 22 }),
      }),
    ]);
    // The rule added by hand, whole; its protocol number beside the configured "tcp" is not a change.
    expect(findingFor(findings, 'aws_network_acl.a')?.drift?.changes).toEqual([
      {
        path: 'ingress[0]',
        before: null,
        after: expect.objectContaining({ rule_no: 90, cidr_block: '0.0.0.0/0', protocol: '-1' }),
        sensitive: false,
      },
    ]);
    // Opened to everyone in place: only the Condition went, and that is public access.
    const topicPolicy = findingFor(findings, 'aws_sns_topic_policy.events');
    expect(pathsOf(topicPolicy)).toEqual(['policy.Statement[0].Condition']);
    expect(topicPolicy?.evidence.severityReasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/^public-access:/)]),
    );
    // The topic's own finding holds its new tag, once, and nothing of the policy its companion reports.
    expect(findingFor(findings, 'aws_sns_topic.events')?.drift?.changes).toEqual([
      { path: 'tags.Team', before: null, after: 'ledger', sensitive: false },
    ]);
    expect(findingFor(findings, 'aws_dynamodb_table.events')?.evidence.severityReasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/^protection-off:/)]),
    );
    const lifecycle = findingFor(findings, 'aws_ecr_lifecycle_policy.app');
    expect(lifecycle?.drift?.changes).toEqual([
      { path: 'policy.rules[0].selection.countNumber', before: 10, after: 3, sensitive: false },
    ]);
    expect(lifecycle?.evidence.severityReasons).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^iam-policy:/)]),
    );
    // The shared key's own finding is that it was disabled; its policy is its companion's finding.
    expect(findingFor(findings, 'aws_kms_key.shared')?.drift?.changes).toEqual([
      { path: 'is_enabled', before: true, after: false, sensitive: false },
    ]);
    const reasonsOf = (address: string) => findingFor(findings, address)?.evidence.severityReasons;
    expect(pathsOf(findingFor(findings, 'aws_kms_alias.app'))).toEqual(['target_key_arn', 'target_key_id']);
    expect(reasonsOf('aws_kms_alias.app')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^encryption:/)]),
    );
    for (const address of ['aws_kms_key.shared', 'aws_kms_key.app', 'aws_instance.web']) {
      expect(reasonsOf(address)).toEqual(expect.arrayContaining([expect.stringMatching(/^protection-off:/)]));
    }
    expect(findingFor(findings, 'aws_instance.web')?.drift?.changes).toEqual([
      { path: 'metadata_options[0].http_tokens', before: 'required', after: 'optional', sensitive: false },
    ]);
    expect(findingFor(findings, 'aws_subnet.a')?.drift?.changes).toEqual([
      { path: 'map_public_ip_on_launch', before: false, after: true, sensitive: false },
    ]);
    // Edited in place: only the members that changed are shown, and the verdict on the whole entry ranks them.
    expect(findingFor(findings, 'aws_security_group.edge')?.drift?.changes).toEqual([
      { path: 'ingress[0].from_port', before: 443, after: 22, sensitive: false },
      { path: 'ingress[0].to_port', before: 443, after: 22, sensitive: false },
    ]);
    expect(reasonsOf('aws_security_group.edge')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^open-ingress:/)]),
    );
    expect(findingFor(findings, 'aws_network_acl.b')?.drift?.changes).toEqual([
      { path: 'ingress[0].cidr_block', before: '10.0.0.0/8', after: '0.0.0.0/0', sensitive: false },
    ]);
    for (const address of [
      'aws_subnet.a',
      'aws_network_acl.a',
      'aws_network_acl.b',
      'aws_route_table.private',
    ]) {
      expect(reasonsOf(address)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^network-exposure:/)]),
      );
    }
    expect(findingFor(findings, 'aws_apigatewayv2_route.orders')?.drift?.changes).toEqual([
      { path: 'authorization_type', before: 'AWS_IAM', after: 'NONE', sensitive: false },
    ]);
    expect(findingFor(findings, 'aws_iam_account_password_policy.strict')?.drift?.changes).toEqual([
      { path: 'minimum_password_length', before: 14, after: 8, sensitive: false },
    ]);
    expect(pathsOf(findingFor(findings, 'aws_dynamodb_table.orders'))).toEqual([
      'deletion_protection_enabled',
    ]);
    expect(findingFor(findings, 'aws_ecr_repository.app')?.drift?.changes).toEqual([
      { path: 'image_tag_mutability', before: 'IMMUTABLE', after: 'MUTABLE', sensitive: false },
    ]);
    expect(findingFor(findings, 'aws_s3_bucket_public_access_block.assets')?.ruleId).toBe('drift.delete');
    expect(findingFor(findings, 'aws_iam_group_membership.deployers')?.drift?.changes).toEqual([
      expect.objectContaining({ before: null, after: 'intruder' }),
    ]);
    expect(findingFor(findings, 'aws_iam_user.ci')?.drift?.changes).toEqual([
      { path: 'tags.Team', before: 'platform', after: 'someone-else', sensitive: false },
    ]);

    const environment = findingFor(findings, 'aws_lambda_function.fn')?.drift?.changes;
    expect(environment?.map((change) => [change.path, change.sensitive])).toEqual([
      ['environment[0].variables.LOG_LEVEL', false],
      ['environment[0].variables.DB_PASSWORD', true],
    ]);
    expect(environment?.[1]?.after).toMatch(SENSITIVE_MARKER);
    const parameter = findingFor(findings, 'aws_ssm_parameter.api_key')?.drift?.changes;
    expect(parameter?.map((change) => change.path)).toEqual(['value', 'version']);
    expect(parameter?.[0]).toMatchObject({ sensitive: true, after: expect.stringMatching(SENSITIVE_MARKER) });

    const everything = [
      run.stdout,
      run.stderr,
      allFileText(storeDir),
      allFileText(join(temp.path, 'after-apply')),
      logLines.join('\n'),
    ].join('\n');
    for (const secret of [apiKey, lambdaSecret, ssmSecret]) expect(everything).not.toContain(secret);
  });
});
