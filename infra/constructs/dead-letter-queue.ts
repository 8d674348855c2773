import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A dead-letter queue: encrypted, TLS only, messages kept 14 days (the maximum) for someone to look
 * at after the DLQ alarm. It needs no dead-letter queue of its own, which cdk-nag is told with the
 * queue's purpose.
 */
export function deadLetterQueue(scope: Construct, id: string, deadLettersOf: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is the dead-letter queue of ${deadLettersOf}; a dead-letter queue of its own would only move the same messages again.`,
  });
  return queue;
}
