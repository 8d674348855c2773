import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/**
 * The two SNS topics of driftwatch, encrypted with one customer-managed key: `digests` (one message
 * per owner per scan, filtered per subscription) and `alarms` (the stack's own health: failed or
 * missing scans, dead letters), which only the fallback owner's destinations receive.
 */
export class NotificationTopics extends Construct {
  readonly key: kms.Key;
  readonly digests: sns.Topic;
  readonly alarms: sns.Topic;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'driftwatch notification topics',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // The services that put messages on the topics or take them off: SNS itself for delivery,
    // AWS Chatbot (Amazon Q Developer in chat applications) for Slack channels, CloudWatch for alarms.
    // CloudWatch documents aws:SourceAccount for this; SNS and Chatbot use the key only for topics
    // of this account (SNS topics cannot use another account's key).
    const services = [
      { sid: 'AllowSnsDelivery', service: 'sns.amazonaws.com' },
      { sid: 'AllowChatbotDelivery', service: 'chatbot.amazonaws.com' },
      {
        sid: 'AllowCloudWatchAlarms',
        service: 'cloudwatch.amazonaws.com',
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      },
    ];
    for (const { sid, service, conditions } of services) {
      this.key.addToResourcePolicy(
        new iam.PolicyStatement({
          sid,
          principals: [new iam.ServicePrincipal(service)],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
          resources: ['*'],
          ...(conditions ? { conditions } : {}),
        }),
      );
    }
    this.digests = new sns.Topic(this, 'Digests', {
      displayName: 'driftwatch digests',
      masterKey: this.key,
      enforceSSL: true,
    });
    this.alarms = new sns.Topic(this, 'Alarms', {
      displayName: 'driftwatch alarms',
      masterKey: this.key,
      enforceSSL: true,
    });
  }

  /**
   * Publish to a topic of this construct: sns:Publish on that topic and the two key operations SNS
   * needs for an encrypted topic (not the `kms:GenerateDataKey*` wildcard of topic.grantPublish).
   */
  grantPublish(grantee: iam.IGrantable, topic: sns.ITopic): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [topic.topicArn] }),
    );
    this.key.grant(grantee, 'kms:Decrypt', 'kms:GenerateDataKey');
  }
}
