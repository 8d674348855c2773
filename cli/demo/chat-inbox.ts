import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { withHttpTimeouts } from '../../functions/adapters/aws-http-timeouts.js';
import type { ChatbotNotification } from '../../functions/core/notify/digest.js';
import type { DigestDocument } from '../../functions/core/notify/digest-document.js';
import { jsonForTerminal, stripForTerminal } from '../../functions/core/text/sanitize.js';

export interface ReceivedDigest<Body = ChatbotNotification> {
  body: Body;
  raw: string;
  attributes: Record<string, string | undefined>;
}

/**
 * The SNS filter policies of the deployed subscriptions (infra/subscription-filters.ts; the
 * integration test checks they are the same): a chat channel's relay queue takes the message for
 * people, an SQS or HTTPS destination the one for machines.
 */
export function inboxFilterPolicy(owner: string, audience: 'people' | 'machines'): Record<string, string[]> {
  return { audience: [audience], owner: [owner] };
}

/**
 * Stands in for each owner's destinations: one SNS topic, and per owner two SQS queues subscribed
 * with the filter policies the deployed subscriptions use, with raw delivery so a queue holds
 * exactly the message body: the chat relay queue (what Chatbot receives: SNS gives an SQS
 * subscription the `default` of the structured message, the chat payload) and an SQS destination
 * (the finding list, as an HTTPS endpoint gets it too). E-mail has no stand-in: moto delivers
 * nothing to e-mail subscriptions.
 */
export async function createOwnerInboxes(owners: readonly string[], topicName = 'driftwatch') {
  const sns = new SNSClient(withHttpTimeouts());
  const sqs = new SQSClient(withHttpTimeouts());
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: topicName }))).TopicArn!;
  const queues = new Map<string, string>();
  const subscribe = async (name: string, filterPolicy: Record<string, string[]>) => {
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: attributes.Attributes?.QueueArn,
        Attributes: { RawMessageDelivery: 'true', FilterPolicy: JSON.stringify(filterPolicy) },
      }),
    );
    return url;
  };
  for (const owner of owners) {
    queues.set(owner, await subscribe(`${topicName}-${owner}`, inboxFilterPolicy(owner, 'people')));
    queues.set(
      `${owner} machines`,
      await subscribe(`${topicName}-${owner}-machines`, inboxFilterPolicy(owner, 'machines')),
    );
  }

  /** Everything waiting in a queue (and removes it). */
  async function receive<Body>(queueUrl: string | undefined): Promise<ReceivedDigest<Body>[]> {
    const received: ReceivedDigest<Body>[] = [];
    for (;;) {
      const response = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
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
          body: JSON.parse(message.Body ?? '{}') as Body,
          attributes: Object.fromEntries(
            Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue]),
          ),
        });
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  }

  return {
    topicArn,
    /** The chat messages waiting for an owner's channel (and removes them). */
    drain: (owner: string) => receive<ChatbotNotification>(queues.get(owner)),
    /** The finding lists waiting for an owner's SQS (or HTTPS) destination (and removes them). */
    drainMachines: (owner: string) => receive<DigestDocument>(queues.get(`${owner} machines`)),
  };
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

/** An e-mail as a mail client shows a plain-text message: the subject, then the body. */
export function renderEmail(email: { subject: string; text: string }, mailbox: string): string {
  const lines = [
    `┌─ ${stripForTerminal(mailbox)}`,
    `│ Subject: ${stripForTerminal(email.subject)}`,
    '│',
    ...email.text
      .trimEnd()
      .split('\n')
      .map((line) => `│ ${stripForTerminal(line)}`),
    '└─',
  ];
  return lines.join('\n');
}

/** The finding list as an SQS or HTTPS consumer receives it, pretty-printed and inert on a terminal. */
export function renderDocument(raw: string, destination: string): string {
  const lines = [
    `┌─ ${stripForTerminal(destination)}`,
    ...jsonForTerminal(JSON.parse(raw))
      .split('\n')
      .map((line) => `│ ${line}`),
    '└─',
  ];
  return lines.join('\n');
}
