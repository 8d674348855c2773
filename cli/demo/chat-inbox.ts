import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { ChatbotNotification } from '../../functions/core/notify/digest.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';

export interface ReceivedDigest {
  body: ChatbotNotification;
  raw: string;
  attributes: Record<string, string | undefined>;
}

/**
 * Stands in for each owner's chat channel: one SNS topic, and per owner an SQS queue subscribed
 * with the same `owner` filter policy the deployed subscriptions use (raw delivery, so a queue
 * holds exactly what Chatbot would receive).
 */
export async function createOwnerInboxes(owners: readonly string[], topicName = 'driftwatch') {
  const sns = new SNSClient({});
  const sqs = new SQSClient({});
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: topicName }))).TopicArn!;
  const queues = new Map<string, string>();
  for (const owner of owners) {
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: `${topicName}-${owner}` }))).QueueUrl!;
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: attributes.Attributes?.QueueArn,
        Attributes: { RawMessageDelivery: 'true', FilterPolicy: JSON.stringify({ owner: [owner] }) },
      }),
    );
    queues.set(owner, url);
  }

  /** Everything waiting for an owner (and removes it). */
  async function drain(owner: string): Promise<ReceivedDigest[]> {
    const received: ReceivedDigest[] = [];
    for (;;) {
      const response = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queues.get(owner),
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = response.Messages ?? [];
      if (messages.length === 0) return received;
      for (const message of messages) {
        received.push({
          raw: message.Body ?? '',
          body: JSON.parse(message.Body ?? '{}') as ChatbotNotification,
          attributes: Object.fromEntries(
            Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue]),
          ),
        });
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queues.get(owner), ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  }

  return { topicArn, drain };
}

const ICONS: Record<string, string> = {
  ':red_circle:': '🔴',
  ':large_orange_circle:': '🟠',
  ':large_yellow_circle:': '🟡',
  ':large_blue_circle:': '🔵',
  ':white_circle:': '⚪',
  ':white_check_mark:': '✅',
};

/**
 * A digest as a chat client shows it: title, the markdown description, and the next steps. Like a
 * client it shows `&lt;` as `<`; unlike one it prints to a terminal, so whatever arrived on the
 * topic is stripped of escape sequences and controls first.
 */
export function renderDigest(message: ChatbotNotification, channel: string): string {
  const icons = (text: string) =>
    stripForTerminal(text)
      .replace(/:[a-z_]+:/g, (code) => ICONS[code] ?? code)
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const lines = [
    `┌─ ${channel}`,
    `│ ${icons(message.content.title)}`,
    '│',
    ...message.content.description.split('\n').map((line) => `│ ${icons(line)}`),
    '│',
    '│ Next steps (reviewed, never automatic):',
    ...message.content.nextSteps.map((step, index) => `│  ${index + 1}. ${icons(step)}`),
    `└─ thread ${stripForTerminal(message.metadata.threadId)}`,
  ];
  return lines.join('\n');
}
