import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadRegistry } from '../../infra/config.js';
import {
  destinationFilterPolicy,
  fallbackDestinations,
  registryDestinations,
} from '../../infra/subscription-filters.js';
import { SAMPLE_REGISTRY, SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

// Some tests synthesize another variant of the app: seconds each, more on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TIMEOUT_MS });

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize();
}, SYNTH_TIMEOUT_MS);

function resourcesOf(type: string): Array<{ Properties: Record<string, unknown> }> {
  return Object.values(synthesized.template.findResources(type)) as Array<{
    Properties: Record<string, unknown>;
  }>;
}

describe('the findings bucket', () => {
  it('is encrypted with a rotating customer-managed key, versioned, TLS-only, private, ACLs disabled, logged', () => {
    synthesized.template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FindingsKey'), 'Arn'] },
            },
          },
        ],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LoggingConfiguration: {
        DestinationBucketName: { Ref: Match.stringLikeRegexp('^FindingsAccessLogs') },
        LogFilePrefix: 'findings/',
      },
    });
    synthesized.template.hasResourceProperties('AWS::KMS::Key', {
      Description: 'driftwatch findings bucket',
      EnableKeyRotation: true,
    });
    synthesized.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: Match.stringLikeRegexp('^FindingsBucket') },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('moves history to cheaper storage, expires scratch (and its old versions) after a day and other old versions after 30 days', () => {
    synthesized.template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Prefix: 'scans/',
            Transitions: [
              { StorageClass: 'STANDARD_IA', TransitionInDays: 30 },
              { StorageClass: 'GLACIER_IR', TransitionInDays: 180 },
            ],
          }),
          Match.objectLike({ Prefix: 'scratch/', ExpirationInDays: 1 }),
          Match.objectLike({ Prefix: 'current/', NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
          Match.objectLike({ Prefix: 'scratch/', NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
        ]),
      },
    });
  });
});

describe('notifications', () => {
  it('encrypts both topics with a key that SNS, AWS Chatbot and CloudWatch alarms may use, TLS-only publishing', () => {
    const topics = resourcesOf('AWS::SNS::Topic').filter((topic) =>
      ['driftwatch digests', 'driftwatch alarms'].includes(String(topic.Properties.DisplayName)),
    );
    expect(topics).toHaveLength(2);
    for (const topic of topics)
      expect(topic.Properties.KmsMasterKeyId).toEqual({
        'Fn::GetAtt': [expect.stringMatching(/^NotificationsKey/), 'Arn'],
      });
    synthesized.template.hasResourceProperties('AWS::KMS::Key', {
      Description: 'driftwatch notification topics',
      KeyPolicy: {
        Statement: Match.arrayWith(
          ['sns.amazonaws.com', 'chatbot.amazonaws.com', 'cloudwatch.amazonaws.com'].map((service) =>
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: service },
              Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            }),
          ),
        ),
      },
    });
    synthesized.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('lets every alarm publish to its topic: the topic policy and the key allow CloudWatch, for this account’s alarms only', () => {
    type Statement = {
      Sid?: string;
      Effect: string;
      Principal?: unknown;
      Action: unknown;
      Condition?: unknown;
    };
    const document = (resource: { Properties: Record<string, unknown> } | undefined, field: string) =>
      (resource?.Properties[field] as { Statement: Statement[] } | undefined)?.Statement ?? [];
    const alarms = resourcesOf('AWS::CloudWatch::Alarm');
    const targets = new Set(
      alarms.flatMap((alarm) =>
        ((alarm.Properties.AlarmActions ?? []) as Array<{ Ref: string }>).map((action) => action.Ref),
      ),
    );
    expect(targets.size).toBeGreaterThan(0);
    const templateResources = synthesized.template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const fromThisAccountsAlarms = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':cloudwatch:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':alarm:*',
            ],
          ],
        },
      },
    };
    for (const topic of targets) {
      // enforceSSL's topic policy replaces SNS's default one: CloudWatch needs a statement of its own.
      const policy = resourcesOf('AWS::SNS::TopicPolicy').find((candidate) =>
        JSON.stringify(candidate.Properties.Topics).includes(`"${topic}"`),
      );
      expect(document(policy, 'PolicyDocument'), topic).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: 'sns:Publish',
          Condition: fromThisAccountsAlarms,
        }),
      );
      const topicResource = templateResources[topic];
      expect(topicResource, topic).toBeDefined();
      const keyId = (topicResource!.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      expect(document(templateResources[keyId], 'KeyPolicy'), topic).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Condition: fromThisAccountsAlarms,
        }),
      );
    }
    // No topic lets anyone but an AWS service of this account publish or subscribe through its policy.
    for (const policy of resourcesOf('AWS::SNS::TopicPolicy'))
      for (const statement of document(policy, 'PolicyDocument').filter((each) => each.Effect === 'Allow')) {
        expect(Object.keys(statement.Principal as object)).toEqual(['Service']);
        expect(JSON.stringify(statement.Condition)).toContain('aws:SourceAccount');
      }
  });

  it('generates one subscription per destination with the audience, owner (and environment) filter of the registry', () => {
    const registry = loadRegistry(SAMPLE_REGISTRY);
    const digestTopic = { Ref: Match.stringLikeRegexp('^NotificationsDigests') };
    const expectations = [
      {
        Protocol: 'email',
        Endpoint: 'platform-oncall@example.com',
        FilterPolicy: { audience: ['people'], owner: ['platform'] },
      },
      {
        Protocol: 'email',
        Endpoint: 'payments-oncall@example.com',
        FilterPolicy: { audience: ['people'], owner: ['payments'], environment: ['prod'] },
      },
      {
        Protocol: 'https',
        Endpoint: 'https://hooks.example.com/driftwatch',
        FilterPolicy: { audience: ['machines'], owner: ['payments'] },
      },
      {
        Protocol: 'sqs',
        Endpoint: 'arn:aws:sqs:eu-west-1:222222222222:data-drift',
        FilterPolicy: { audience: ['machines'], owner: ['data'], environment: ['prod', 'staging'] },
        RawMessageDelivery: true,
        Region: 'eu-west-1',
      },
    ];
    for (const expected of expectations)
      synthesized.template.hasResourceProperties('AWS::SNS::Subscription', {
        ...expected,
        TopicArn: digestTopic,
        RedrivePolicy: { deadLetterTargetArn: Match.anyValue() },
      });
    // The same policies, from the pure function the construct uses.
    const policies = registryDestinations(registry).map(({ team, destination }) =>
      destinationFilterPolicy(team, destination),
    );
    expect(policies).toContainEqual({ audience: ['people'], owner: ['payments'], environment: ['prod'] });
    expect(policies).toContainEqual({ audience: ['people'], owner: ['platform'] });
    expect(policies).toContainEqual({ audience: ['machines'], owner: ['payments'] });
    // Every destination takes exactly one of a digest's two messages.
    for (const policy of policies) expect(policy.audience).toHaveLength(1);
  });

  it('sends alarms to the fallback owner’s destinations only, unfiltered', () => {
    const registry = loadRegistry(SAMPLE_REGISTRY);
    expect(fallbackDestinations(registry).map(({ team }) => team.id)).toEqual(['platform', 'platform']);
    const alarmSubscriptions = resourcesOf('AWS::SNS::Subscription').filter((subscription) =>
      JSON.stringify(subscription.Properties.TopicArn).includes('NotificationsAlarms'),
    );
    expect(alarmSubscriptions.map((subscription) => subscription.Properties.Endpoint)).toEqual([
      'platform-oncall@example.com',
    ]);
    expect(alarmSubscriptions[0]?.Properties.FilterPolicy).toBeUndefined();
  });

  it('gives each Slack destination its own filtered channel topic, with a read-only guardrail and no permissions', () => {
    synthesized.template.hasResourceProperties('AWS::Chatbot::SlackChannelConfiguration', {
      ConfigurationName: 'driftwatch-platform-0',
      SlackWorkspaceId: 'T0123ABCD',
      SlackChannelId: 'C0456EFGH',
      GuardrailPolicies: [
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/ReadOnlyAccess']] },
      ],
      UserRoleRequired: false,
      // Its own topic, and (fallback owner) the alarm topic.
      SnsTopicArns: [
        { Ref: Match.stringLikeRegexp('^ChatChannelsplatform0Topic') },
        { Ref: Match.stringLikeRegexp('^NotificationsAlarms') },
      ],
    });
    synthesized.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: Match.stringLikeRegexp('^NotificationsDigests') },
      // The chat relay takes the message for people: SNS gives its SQS subscription the `default`, the chat payload.
      FilterPolicy: { audience: ['people'], owner: ['platform'] },
      RawMessageDelivery: true,
    });
    synthesized.template.hasResourceProperties('AWS::Pipes::Pipe', {
      Source: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ChatChannelsplatform0Relay'), 'Arn'] },
      Target: { Ref: Match.stringLikeRegexp('^ChatChannelsplatform0Topic') },
      TargetParameters: { InputTemplate: '<$.body>' },
    });
    const channelRoles = resourcesOf('AWS::IAM::Role').filter((role) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('chatbot.amazonaws.com'),
    );
    expect(channelRoles).toHaveLength(1);
    expect(channelRoles[0]?.Properties.Policies).toBeUndefined();
    expect(channelRoles[0]?.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('leaves Chat channels out unless -c chatbot=true (the Slack workspace must be authorised first)', () => {
    const withoutChat = synthesize({ chatbot: 'false' });
    withoutChat.template.resourceCountIs('AWS::Chatbot::SlackChannelConfiguration', 0);
    withoutChat.template.resourceCountIs('AWS::Pipes::Pipe', 0);
  });
});
