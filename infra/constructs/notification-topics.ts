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
    // CloudWatch documents aws:SourceAccount and aws:SourceArn for this (the alarms of this account);
    // SNS and Chatbot use the key only for topics of this account (SNS topics cannot use another
    // account's key).
    const stack = Stack.of(this);
    const fromAlarmsOfThisAccount = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*`,
      },
    };
    const services = [
      { sid: 'AllowSnsDelivery', service: 'sns.amazonaws.com' },
      { sid: 'AllowChatbotDelivery', service: 'chatbot.amazonaws.com' },
      {
        sid: 'AllowCloudWatchAlarms',
        service: 'cloudwatch.amazonaws.com',
        conditions: fromAlarmsOfThisAccount,
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
    // enforceSSL gives the topic a policy of its own, which replaces SNS's default policy (the one that
    // let this account's services publish): without this statement CloudWatch's publish of every
    // alarm is refused ("no resource-based policy allows the SNS:Publish action") and alarms reach no one.
    this.alarms.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarms.topicArn],
        conditions: fromAlarmsOfThisAccount,
      }),
    );
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
