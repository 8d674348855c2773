import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICIES } from '../../../../functions/core/registry/model.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import {
  context,
  entry,
  hashSensitive,
  plan,
  queueValues,
  stateResource,
} from '../../../helpers/plan-builders.js';

const evaluate = (raw: unknown, overrides: Parameters<typeof context>[0] = {}) =>
  evaluatePlan(raw, { ...context(overrides), hashSensitive });

describe('resource_drift actions', () => {
  it.each([[['delete', 'create']], [['create', 'delete']]])(
    '%j is drift.replace (high) with the differing attributes',
    (actions) => {
      const raw = plan({
        drift: [
          entry('aws_instance.web', {
            actions,
            before: { id: 'i-old', ami: 'ami-1', instance_type: 't3.micro' },
            after: { id: 'i-new', ami: 'ami-1', instance_type: 't3.micro' },
          }),
        ],
      });
      const [finding] = evaluate(raw).findings;
      expect([finding?.kind, finding?.ruleId, finding?.severity, finding?.drift, finding?.title]).toEqual([
        'terraform-drift',
        'drift.replace',
        'high',
        { action: 'replace', changes: [{ path: 'id', before: 'i-old', after: 'i-new', sensitive: false }] },
        'aws_instance.web was replaced outside Terraform: id',
      ]);
      expect(finding?.evidence.actions).toEqual(actions);
    },
  );

  it('plain no-op and read entries without a move produce nothing', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.q', { actions: ['no-op'], before: queueValues(), after: queueValues() }),
        entry('data.aws_region.current', { actions: ['read'], mode: 'data', after: { name: 'eu-west-1' } }),
        entry('data.aws_caller_identity.me', {
          actions: ['update'],
          mode: 'data',
          before: { a: 1 },
          after: { a: 2 },
        }),
      ],
    });
    expect(evaluate(raw).findings).toEqual([]);
  });

  it('a deletion inside a module keeps module and provider on the resource', () => {
    const raw = plan({
      drift: [
        entry('module.queues.aws_sqs_queue.q', {
          actions: ['delete'],
          before: queueValues(),
          module: 'module.queues',
        }),
      ],
    });
    expect(evaluate(raw).findings[0]?.resource).toEqual({
      address: 'module.queues.aws_sqs_queue.q',
      type: 'aws_sqs_queue',
      provider: 'registry.terraform.io/hashicorp/aws',
      module: 'module.queues',
    });
  });
});

describe('ordering', () => {
  it('sorts findings by severity, then address, and noise by address, whatever the plan order', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.zeta', {
          before: { delay_seconds: 0, tags: null },
          after: { delay_seconds: 1, tags: {} },
        }),
        entry('aws_sqs_queue.alpha', {
          before: { delay_seconds: 0, tags: null },
          after: { delay_seconds: 1, tags: {} },
        }),
        entry('aws_sqs_queue.mid', { actions: ['delete'], before: queueValues() }),
        entry('aws_sqs_queue.beta', { before: { delay_seconds: 0 }, after: { delay_seconds: 1 } }),
      ],
    });
    const result = evaluate(raw);
    expect(
      result.findings.map((finding) => [finding.severity, (finding.resource as { address: string }).address]),
    ).toEqual([
      ['high', 'aws_sqs_queue.mid'],
      ['medium', 'aws_sqs_queue.alpha'],
      ['medium', 'aws_sqs_queue.beta'],
      ['medium', 'aws_sqs_queue.zeta'],
    ]);
    expect(result.noiseRemoved.map((removal) => removal.address)).toEqual([
      'aws_sqs_queue.alpha',
      'aws_sqs_queue.zeta',
    ]);
  });
});

describe('deletion guard data', () => {
  const deletedQueues = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      entry(`aws_sqs_queue.q${index}`, { actions: ['delete'], before: queueValues(), after: null }),
    );
  const kept = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      stateResource(`aws_s3_bucket.b${index}`, { bucket: `b${index}` }),
    );

  it('triggers when deletions / managed reaches the policy ratio', () => {
    const result = evaluate(plan({ drift: deletedQueues(3), prior: kept(3) }));
    expect(result.deletionGuard).toEqual({ triggered: true, ratio: 0.5, deletions: 3, managed: 6 });
    expect(result.plan).toMatchObject({ managedResourceCount: 6, reportedDeletions: 3 });
    // The guard informs the scanner; the findings are still computed.
    expect(result.findings.map((finding) => finding.ruleId)).toEqual([
      'drift.delete',
      'drift.delete',
      'drift.delete',
    ]);
  });

  it('stays quiet below the ratio, and never triggers without deletions', () => {
    expect(evaluate(plan({ drift: deletedQueues(2), prior: kept(4) })).deletionGuard).toEqual({
      triggered: false,
      ratio: 2 / 6,
      deletions: 2,
      managed: 6,
    });
    const zeroRatio = { ...DEFAULT_POLICIES, deletionGuard: { ratio: 0 } };
    expect(evaluate(plan({ prior: kept(2) }), { policies: zeroRatio }).deletionGuard).toEqual({
      triggered: false,
      ratio: 0,
      deletions: 0,
      managed: 2,
    });
  });

  it('counts replacements as reported deletions and does not double-count resources still in state', () => {
    const raw = plan({
      drift: [
        entry('aws_s3_bucket.b0', {
          actions: ['delete', 'create'],
          before: { bucket: 'b0' },
          after: { bucket: 'b0' },
        }),
        ...deletedQueues(1),
      ],
      prior: kept(3),
    });
    expect(evaluate(raw).deletionGuard).toEqual({ triggered: true, ratio: 2 / 4, deletions: 2, managed: 4 });
  });
});
