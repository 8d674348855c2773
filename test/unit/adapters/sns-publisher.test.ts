import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSnsPublisher } from '../../../functions/adapters/sns-publisher.js';
import type { Digest } from '../../../functions/core/notify/digest.js';

const sns = mockClient(SNSClient);
beforeEach(() => sns.reset());

function digest(owner: string, environment: string[] = ['prod']): Digest {
  return {
    owner,
    digestId: `scan-1.${owner}`,
    message: { metadata: { summary: `driftwatch for ${owner}: 1 new` } } as Digest['message'],
    attributes: {
      owner,
      severity: 'high',
      environment,
      kinds: ['terraform-drift'],
      digestId: `scan-1.${owner}`,
    },
    counts: { new: 1, changed: 0, regressed: 0, resolved: 0, reminders: 0, notListed: 0 },
  };
}
const publisher = () =>
  createSnsPublisher(new SNSClient({ region: 'eu-west-1' }), {
    topicArn: 'arn:aws:sns:eu-west-1:111111111111:driftwatch',
    sleep: async () => {},
  });

describe('SNS digest publisher', () => {
  it('publishes in batches of ten with the attributes subscriptions filter on', async () => {
    sns.on(PublishBatchCommand).callsFake((input: { PublishBatchRequestEntries: Array<{ Id: string }> }) => ({
      Successful: input.PublishBatchRequestEntries.map((entry) => ({ Id: entry.Id })),
    }));
    const owners = Array.from({ length: 12 }, (_, index) => `team-${index}`);
    const sns_ = publisher();
    const result = await sns_.publish(owners.map((owner) => digest(owner)));
    expect(result.sent).toHaveLength(12);
    expect(sns_.requests).toBe(2);
    expect(sns).toHaveReceivedNthCommandWith(PublishBatchCommand, 1, {
      TopicArn: 'arn:aws:sns:eu-west-1:111111111111:driftwatch',
      PublishBatchRequestEntries: expect.arrayContaining([
        expect.objectContaining({
          MessageAttributes: {
            owner: { DataType: 'String', StringValue: 'team-0' },
            severity: { DataType: 'String', StringValue: 'high' },
            kinds: { DataType: 'String.Array', StringValue: '["terraform-drift"]' },
            environment: { DataType: 'String.Array', StringValue: '["prod"]' },
            digestId: { DataType: 'String', StringValue: 'scan-1.team-0' },
          },
        }),
      ]),
    });
  });

  it('retries failed entries and throttled requests, then reports what still failed', async () => {
    sns
      .on(PublishBatchCommand)
      .rejectsOnce(new Error('Throttling'))
      .resolvesOnce({
        Successful: [{ Id: 'd0' }],
        Failed: [{ Id: 'd1', Code: 'InternalError', SenderFault: false }],
      })
      .resolves({ Failed: [{ Id: 'd0', Code: 'InternalError', SenderFault: false }] });
    const result = await publisher().publish([digest('a'), digest('b')]);
    expect(result.sent).toEqual(['scan-1.a']);
    expect(result.failed).toEqual([{ digestId: 'scan-1.b', reason: 'InternalError:' }]);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 3);
  });

  it('does not retry an entry SNS rejected as malformed, and leaves out an empty environment list', async () => {
    sns
      .on(PublishBatchCommand)
      .resolves({ Failed: [{ Id: 'd0', Code: 'InvalidParameter', SenderFault: true, Message: 'bad' }] });
    const result = await publisher().publish([digest('a', [])]);
    expect(result.failed).toEqual([{ digestId: 'scan-1.a', reason: 'InvalidParameter: bad' }]);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 1);
    const entry = sns.commandCalls(PublishBatchCommand)[0]!.args[0].input.PublishBatchRequestEntries![0]!;
    expect(entry.MessageAttributes?.environment).toBeUndefined();
  });
});
