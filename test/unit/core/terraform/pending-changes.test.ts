import { describe, expect, it } from 'vitest';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import {
  context,
  entry,
  hashSensitive,
  ingressRule,
  plan,
  securityGroupValues,
} from '../../../helpers/plan-builders.js';

/** A normal plan lists drift twice: in resource_drift and as its revert in resource_changes. */

const evaluate = (raw: unknown) => evaluatePlan(raw, { ...context(), hashSensitive });
const summary = (raw: unknown) =>
  evaluate(raw).findings.map((finding) => [
    finding.kind,
    finding.ruleId,
    (finding.resource as { address: string }).address,
    finding.drift?.changes.map((change) => change.path),
  ]);

describe('pending changes versus the revert of drift', () => {
  it('an update that only restores the pre-drift values is not pending (set order shifted)', () => {
    const declared = securityGroupValues();
    const live = securityGroupValues({
      ingress: [ingressRule('0.0.0.0/0', 22), ingressRule('10.0.0.0/16', 5432)],
    });
    const raw = plan({
      drift: [entry('aws_security_group.db', { before: declared, after: live })],
      changes: [entry('aws_security_group.db', { before: live, after: declared })],
    });
    expect(summary(raw)).toEqual([
      ['terraform-drift', 'drift.update', 'aws_security_group.db', ['ingress[0]']],
    ]);
  });

  it('an update that also changes other paths reports only those', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.q', {
          before: { delay_seconds: 0, max_message_size: 1024 },
          after: { delay_seconds: 5, max_message_size: 1024 },
        }),
      ],
      changes: [
        entry('aws_sqs_queue.q', {
          before: { delay_seconds: 5, max_message_size: 1024 },
          after: { delay_seconds: 0, max_message_size: 2048 },
        }),
      ],
    });
    expect(summary(raw)).toEqual([
      ['pending-change', 'pending.update', 'aws_sqs_queue.q', ['max_message_size']],
      ['terraform-drift', 'drift.update', 'aws_sqs_queue.q', ['delay_seconds']],
    ]);
  });

  it('a path that drifted but is now configured to a third value is pending', () => {
    const raw = plan({
      drift: [entry('aws_sqs_queue.q', { before: { delay_seconds: 0 }, after: { delay_seconds: 5 } })],
      changes: [entry('aws_sqs_queue.q', { before: { delay_seconds: 5 }, after: { delay_seconds: 10 } })],
    });
    expect(summary(raw)).toContainEqual([
      'pending-change',
      'pending.update',
      'aws_sqs_queue.q',
      ['delay_seconds'],
    ]);
  });

  it('recreating a resource whose deletion was the drift is not pending', () => {
    const raw = plan({
      drift: [entry('aws_sqs_queue.q', { actions: ['delete'], before: { name: 'q' }, after: null })],
      changes: [
        entry('aws_sqs_queue.q', { actions: ['create'], after: { name: 'q' }, afterUnknown: { arn: true } }),
      ],
    });
    expect(summary(raw)).toEqual([['terraform-drift', 'drift.delete', 'aws_sqs_queue.q', []]]);
  });

  it('a replace that only reverts an immutable attribute (ids become unknown) is not pending', () => {
    const raw = plan({
      drift: [
        entry('aws_instance.web', {
          before: { ami: 'ami-1', id: 'i-1' },
          after: { ami: 'ami-2', id: 'i-1' },
        }),
      ],
      changes: [
        entry('aws_instance.web', {
          actions: ['delete', 'create'],
          before: { ami: 'ami-2', id: 'i-1' },
          after: { ami: 'ami-1' },
          afterUnknown: { id: true },
          replacePaths: [['ami']],
        }),
      ],
    });
    expect(summary(raw)).toEqual([['terraform-drift', 'drift.update', 'aws_instance.web', ['ami']]]);
  });

  it('removing a drifted resource from the configuration is a pending delete', () => {
    const raw = plan({
      drift: [entry('aws_sqs_queue.q', { before: { delay_seconds: 0 }, after: { delay_seconds: 5 } })],
      changes: [
        entry('aws_sqs_queue.q', {
          actions: ['delete'],
          before: { delay_seconds: 5 },
          actionReason: 'delete_because_no_resource_config',
        }),
      ],
    });
    expect(summary(raw)).toContainEqual(['pending-change', 'pending.delete', 'aws_sqs_queue.q', []]);
  });

  it('maps actions to pending rules and skips no-ops, reads and data sources', () => {
    const raw = plan({
      changes: [
        entry('aws_sqs_queue.a', { actions: ['create'], after: { name: 'a', tags: {}, fifo_queue: false } }),
        entry('aws_sqs_queue.b', {
          actions: ['update'],
          before: { delay_seconds: 0 },
          after: { delay_seconds: 1 },
        }),
        entry('aws_sqs_queue.c', { actions: ['delete'], before: { name: 'c' } }),
        entry('aws_sqs_queue.d', {
          actions: ['create', 'delete'],
          before: { name: 'd' },
          after: { name: 'd2' },
        }),
        entry('aws_sqs_queue.e', { actions: ['no-op'], before: { name: 'e' }, after: { name: 'e' } }),
        entry('aws_sqs_queue.f', {
          actions: ['no-op'],
          before: { name: 'f' },
          after: { name: 'f' },
          previousAddress: 'aws_sqs_queue.old',
        }),
        entry('data.aws_caller_identity.me', { actions: ['read'], mode: 'data', after: { account_id: '1' } }),
      ],
    });
    expect(
      evaluate(raw).findings.map((finding) => [
        finding.ruleId,
        finding.drift?.action,
        finding.severity,
        finding.title,
      ]),
    ).toEqual([
      ['pending.delete', 'delete', 'high', 'aws_sqs_queue.c will be destroyed by the next apply'],
      ['pending.replace', 'replace', 'high', 'aws_sqs_queue.d will be replaced by the next apply: name'],
      [
        'pending.update',
        'update',
        'medium',
        'aws_sqs_queue.b has configuration changes not yet applied: delay_seconds',
      ],
      ['pending.create', 'create', 'low', 'aws_sqs_queue.a will be created by the next apply'],
    ]);
    // a create lists the values it sets (empty and zero values left out: null-versus-empty)
    expect(evaluate(raw).findings.at(-1)?.drift?.changes).toEqual([
      { path: 'name', before: null, after: 'a', sensitive: false },
    ]);
  });

  it('a pending create of a security group open to the world is critical', () => {
    const raw = plan({
      changes: [
        entry('aws_security_group.bastion', {
          actions: ['create'],
          after: securityGroupValues({ ingress: [ingressRule('0.0.0.0/0', 22)] }),
          afterUnknown: { id: true },
        }),
      ],
    });
    expect(evaluate(raw).findings[0]?.severity).toBe('critical');
  });
});
