import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES, type Policies } from '../../../../functions/core/registry/model.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan, stateResource } from '../../../helpers/plan-builders.js';

/**
 * Policies that are their own resources: aws_sqs_queue_policy, aws_sqs_queue_redrive_policy,
 * aws_sns_topic_policy, aws_kms_key_policy. Terraform 1.11.4 + AWS provider 5.100 against moto, first
 * refresh-only plan after the apply: the queue, topic and key read the policy their companion set
 * into their own `policy` (`redrive_policy`), from `""` or from the policy AWS wrote at creation (a
 * topic's `__default_policy_ID`). Values trimmed to the attributes that differ and the identities.
 */

function evaluate(raw: unknown, policies: Policies = DEFAULT_POLICIES) {
  return evaluatePlan(raw, { ...context({ policies }), hashSensitive });
}

const changedPaths = (result: ReturnType<typeof evaluate>) =>
  result.findings.map((finding) => [
    (finding.resource as { address: string }).address,
    finding.drift?.changes.map((change) => change.path),
  ]);

const QUEUE_URL = 'http://127.0.0.1:4566/123456789012/sweep-work';
const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:sweep-work';
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:sweep-events';
const KEY_ID = '4e9cf301-778d-46ba-b9f9-1a91d6c102a5';
const KEY_ARN = `arn:aws:kms:eu-west-1:123456789012:key/${KEY_ID}`;

const queuePolicy = JSON.stringify({
  Statement: [
    {
      Action: 'sqs:SendMessage',
      Condition: { ArnEquals: { 'aws:SourceArn': TOPIC_ARN } },
      Effect: 'Allow',
      Principal: { Service: 'sns.amazonaws.com' },
      Resource: QUEUE_ARN,
      Sid: 'FromTopic',
    },
  ],
  Version: '2012-10-17',
});
// As moto hands it back (a space after each separator).
const redrivePolicy =
  '{"deadLetterTargetArn": "arn:aws:sqs:eu-west-1:123456789012:sweep-dlq", "maxReceiveCount": 4}';
const defaultTopicPolicy = JSON.stringify({
  Version: '2008-10-17',
  Id: '__default_policy_ID',
  Statement: [
    {
      Effect: 'Allow',
      Sid: '__default_statement_ID',
      Principal: { AWS: '*' },
      Action: ['SNS:GetTopicAttributes', 'SNS:Publish'],
      Resource: TOPIC_ARN,
      Condition: { StringEquals: { 'AWS:SourceOwner': '123456789012' } },
    },
  ],
});
const topicPolicy = JSON.stringify({
  Statement: [
    {
      Action: 'sns:Publish',
      Effect: 'Allow',
      Principal: { AWS: 'arn:aws:iam::123456789012:root' },
      Resource: TOPIC_ARN,
      Sid: 'Publish',
    },
  ],
  Version: '2012-10-17',
});
const keyPolicy = JSON.stringify({
  Statement: [
    { Action: 'kms:*', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:root' }, Resource: '*' },
  ],
  Version: '2012-10-17',
});
const keyPolicyWithDecrypt = JSON.stringify({
  Statement: [
    { Action: 'kms:*', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:root' }, Resource: '*' },
    {
      Action: 'kms:Decrypt',
      Effect: 'Allow',
      Principal: { AWS: 'arn:aws:iam::111122223333:root' },
      Resource: '*',
    },
  ],
  Version: '2012-10-17',
});

const queue = (policy: string, redrive: string) => ({
  id: QUEUE_URL,
  url: QUEUE_URL,
  arn: QUEUE_ARN,
  name: 'sweep-work',
  policy,
  redrive_policy: redrive,
  visibility_timeout_seconds: 30,
});
const topic = (policy: string) => ({ id: TOPIC_ARN, arn: TOPIC_ARN, name: 'sweep-events', policy });
const key = (policy: string) => ({
  id: KEY_ID,
  key_id: KEY_ID,
  arn: KEY_ARN,
  policy,
  enable_key_rotation: true,
});

const queueCompanions = [
  stateResource('aws_sqs_queue_policy.work', { id: QUEUE_URL, queue_url: QUEUE_URL, policy: queuePolicy }),
  stateResource('aws_sqs_queue_redrive_policy.work', {
    id: QUEUE_URL,
    queue_url: QUEUE_URL,
    redrive_policy: redrivePolicy,
  }),
];
const topicCompanion = stateResource('aws_sns_topic_policy.events', {
  id: TOPIC_ARN,
  arn: TOPIC_ARN,
  policy: topicPolicy,
});
// key_id takes the key's id or its ARN.
const keyCompanion = (keyId: string) =>
  stateResource('aws_kms_key_policy.app', { id: KEY_ID, key_id: keyId, policy: keyPolicyWithDecrypt });

/** The first refresh after the apply: each parent reads what its companion set. */
function afterApply(companions: unknown[]) {
  return plan({
    drift: [
      entry('aws_sqs_queue.work', { before: queue('', ''), after: queue(queuePolicy, redrivePolicy) }),
      entry('aws_sns_topic.events', { before: topic(defaultTopicPolicy), after: topic(topicPolicy) }),
      entry('aws_kms_key.app', { before: key(keyPolicy), after: key(keyPolicyWithDecrypt) }),
    ],
    prior: [
      stateResource('aws_sqs_queue.work', queue('', '')),
      stateResource('aws_sns_topic.events', topic(defaultTopicPolicy)),
      stateResource('aws_kms_key.app', key(keyPolicy)),
      ...companions,
    ],
  });
}

describe('policies that are their own resources (companion-attributes)', () => {
  it('a queue, topic and key reading the policies their companions set are noise, not drift', () => {
    const result = evaluate(afterApply([...queueCompanions, topicCompanion, keyCompanion(KEY_ARN)]));
    expect(result.findings).toEqual([]);
    const removed = result.noiseRemoved.filter((removal) => removal.rule === 'companion-attributes');
    expect(removed.map((removal) => [removal.address, removal.paths[0]])).toEqual([
      ['aws_kms_key.app', 'policy.Statement[1]'],
      ['aws_sns_topic.events', expect.stringMatching(/^policy\./)],
      ['aws_sqs_queue.work', 'policy'],
    ]);
    expect(removed.at(-1)?.paths).toEqual(['policy', 'redrive_policy']);
  });

  it('an aws_kms_key_policy naming its key by id links as one naming it by ARN', () => {
    expect(evaluate(afterApply([...queueCompanions, topicCompanion, keyCompanion(KEY_ID)])).findings).toEqual(
      [],
    );
  });

  it('without the companion in the state, the same change is drift', () => {
    expect(changedPaths(evaluate(afterApply([])))).toEqual([
      ['aws_kms_key.app', ['policy.Statement[1]']],
      ['aws_sns_topic.events', expect.arrayContaining(['policy.Statement[0].Sid'])],
      ['aws_sqs_queue.work', ['policy', 'redrive_policy']],
    ]);
  });

  it('a companion of another queue mutes nothing here, and a queue attribute no companion manages stays drift', () => {
    const other = 'http://127.0.0.1:4566/123456789012/other';
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.work', {
          before: queue('', ''),
          after: { ...queue(queuePolicy, ''), visibility_timeout_seconds: 300 },
        }),
      ],
      prior: [
        stateResource('aws_sqs_queue.work', queue('', '')),
        stateResource('aws_sqs_queue_policy.other', { id: other, queue_url: other, policy: queuePolicy }),
        stateResource('aws_sqs_queue_redrive_policy.work', { id: QUEUE_URL, queue_url: QUEUE_URL }),
      ],
    });
    expect(changedPaths(evaluate(raw))).toEqual([
      ['aws_sqs_queue.work', ['policy', 'visibility_timeout_seconds']],
    ]);
  });

  it('policies.noise.companionAttributes: false reports them', () => {
    const raw = afterApply([...queueCompanions, topicCompanion, keyCompanion(KEY_ARN)]);
    const policies = {
      ...DEFAULT_POLICIES,
      noise: { ...DEFAULT_POLICIES.noise, companionAttributes: false },
    };
    expect(evaluate(raw, policies).findings.map((finding) => finding.resource)).toHaveLength(3);
  });
});
