import { Duration } from 'aws-cdk-lib';
import * as chatbot from 'aws-cdk-lib/aws-chatbot';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type PlannedDestination, subscriptionFilterPolicy } from '../subscription-filters.js';
import { deadLetterQueue } from './dead-letter-queue.js';

export interface ChatChannelsProps {
  digests: sns.ITopic;
  alarms: sns.ITopic;
  key: kms.IKey;
  destinations: PlannedDestination[];
  fallbackOwner: string;
}

/**
 * Slack channels through AWS Chatbot (Amazon Q Developer in chat applications), one per
 * `chatbot-slack` destination. A Chatbot channel takes every message of the topics it is given and
 * its subscription cannot carry a filter policy, so each channel gets a topic of its own, fed from
 * the digest topic by a filtered subscription (an SQS queue) and an EventBridge Pipe: a team's
 * channel sees that team's digests and nothing else. The fallback owner's channels also get the
 * alarm topic. Channel members can run nothing through Chatbot: the channel role has no
 * permissions and the guardrail is set explicitly to read-only (Chatbot's default is none).
 */
export class ChatChannels extends Construct {
  readonly channels: chatbot.SlackChannelConfiguration[] = [];
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: ChatChannelsProps) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', 'the chat relay queues and their subscriptions');
    const guardrail = iam.ManagedPolicy.fromAwsManagedPolicyName('ReadOnlyAccess');
    for (const planned of props.destinations) {
      const { destination, team } = planned;
      if (destination.type !== 'chatbot-slack') continue;
      const channel = new Construct(this, planned.id);
      const channelTopic = new sns.Topic(channel, 'Topic', {
        displayName: `driftwatch ${team.id}`,
        masterKey: props.key,
        enforceSSL: true,
      });
      const relay = new sqs.Queue(channel, 'Relay', {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
      });
      new sns.Subscription(channel, 'Subscription', {
        topic: props.digests,
        protocol: sns.SubscriptionProtocol.SQS,
        endpoint: relay.queueArn,
        rawMessageDelivery: true,
        deadLetterQueue: this.deadLetters,
        filterPolicy: subscriptionFilterPolicy(team, destination),
      });
      relay.addToResourcePolicy(
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('sns.amazonaws.com')],
          actions: ['sqs:SendMessage'],
          resources: [relay.queueArn],
          conditions: { ArnEquals: { 'aws:SourceArn': props.digests.topicArn } },
        }),
      );

      const pipeRole = new iam.Role(channel, 'PipeRole', {
        assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com'),
      });
      relay.grantConsumeMessages(pipeRole);
      pipeRole.addToPolicy(
        new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [channelTopic.topicArn] }),
      );
      props.key.grant(pipeRole, 'kms:Decrypt', 'kms:GenerateDataKey');
      new pipes.CfnPipe(channel, 'Pipe', {
        roleArn: pipeRole.roleArn,
        source: relay.queueArn,
        target: channelTopic.topicArn,
        sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
        // The queue's body is the digest (raw delivery): publish exactly that to the channel topic.
        targetParameters: { inputTemplate: '<$.body>' },
      });

      const topics = [channelTopic, ...(team.id === props.fallbackOwner ? [props.alarms] : [])];
      const configuration = new chatbot.SlackChannelConfiguration(channel, 'Channel', {
        slackChannelConfigurationName: `driftwatch-${planned.id}`.slice(0, 128),
        slackWorkspaceId: destination.workspace,
        slackChannelId: destination.channel,
        notificationTopics: topics,
        guardrailPolicies: [guardrail],
        userRoleRequired: false,
      });
      this.channels.push(configuration);
    }
  }
}
