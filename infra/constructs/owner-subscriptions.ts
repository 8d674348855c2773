import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type PlannedDestination, subscriptionFilterPolicy } from '../subscription-filters.js';
import { deadLetterQueue } from './dead-letter-queue.js';

export interface OwnerSubscriptionsProps {
  topic: sns.ITopic;
  destinations: PlannedDestination[];
  /** Filter on owner (and environment): true for digests, false for the alarm topic. */
  filterByOwner: boolean;
}

/**
 * Email, HTTPS and SQS subscriptions generated from the registry's destinations, each with its
 * filter policy, and one dead-letter queue for messages SNS could not deliver after its retries.
 * Chat destinations are not SNS subscriptions of this topic (see ChatChannels).
 */
export class OwnerSubscriptions extends Construct {
  readonly deadLetters: sqs.Queue;
  readonly subscriptions: sns.Subscription[] = [];

  constructor(scope: Construct, id: string, props: OwnerSubscriptionsProps) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', 'these SNS subscriptions');
    for (const planned of props.destinations) {
      const subscription = this.subscribe(planned, props);
      if (subscription) this.subscriptions.push(subscription);
    }
  }

  private subscribe(
    planned: PlannedDestination,
    props: OwnerSubscriptionsProps,
  ): sns.Subscription | undefined {
    const { destination } = planned;
    const filterPolicy = props.filterByOwner
      ? subscriptionFilterPolicy(planned.team, destination)
      : undefined;
    const common = { topic: props.topic, deadLetterQueue: this.deadLetters, filterPolicy };
    switch (destination.type) {
      case 'email':
        return new sns.Subscription(this, planned.id, {
          ...common,
          protocol: sns.SubscriptionProtocol.EMAIL,
          endpoint: destination.address,
        });
      case 'https':
        return new sns.Subscription(this, planned.id, {
          ...common,
          protocol: sns.SubscriptionProtocol.HTTPS,
          endpoint: destination.url,
        });
      case 'sqs': {
        const region = destination.queueArn.split(':')[3];
        return new sns.Subscription(this, planned.id, {
          ...common,
          protocol: sns.SubscriptionProtocol.SQS,
          endpoint: destination.queueArn,
          // The queue gets the message body itself: the finding list (audience machines, docs/notifications.md).
          rawMessageDelivery: true,
          // The queue may live in another region than the stack (SNS delivers across regions).
          ...(region ? { region } : {}),
        });
      }
      case 'chatbot-slack':
        return undefined;
    }
  }
}
