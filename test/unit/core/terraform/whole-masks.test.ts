import { describe, expect, it } from 'vitest';
import { compactPlan, evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan, stateResource } from '../../../helpers/plan-builders.js';

/**
 * A sensitivity mask `true` for a whole object covers every member below it. The differ honoured
 * that, but the readers that pick one member out of a resource did not: the tags and the identity
 * attributes (`name`, `id`…) of a change masked `before_sensitive: true` / `after_sensitive: true`,
 * and of a prior_state resource with `sensitive_values: true`, were kept in plaintext (tags are
 * printed with every finding of the resource). The same for `tags: true` inside a mask is covered.
 */
const CANARY = 'WHOLEMASK9v';
const values = (suffix: string) => ({
  name: `${CANARY}n${suffix}`,
  id: `${CANARY}i${suffix}`,
  tags: { Note: `${CANARY}t${suffix}` },
  size: suffix.length,
});

function wholeMaskPlan() {
  return plan({
    drift: [
      entry('aws_sqs_queue.drifted', {
        before: values('d1'),
        after: values('d22'),
        beforeSensitive: true,
        afterSensitive: true,
      }),
    ],
    changes: [
      entry('aws_sqs_queue.created', { actions: ['create'], after: values('c1'), afterSensitive: true }),
      entry('aws_sqs_queue.updated', {
        before: values('u1'),
        after: values('u22'),
        beforeSensitive: true,
        afterSensitive: { tags: true },
      }),
      entry('aws_sqs_queue.deleted', { actions: ['delete'], before: values('x1'), beforeSensitive: true }),
    ],
    prior: [{ ...stateResource('aws_sqs_queue.prior', values('p1')), sensitive_values: true }],
  });
}

describe('a mask true for a whole resource', () => {
  it('keeps its tags and identity out of the compacted plan and the findings', () => {
    const compact = compactPlan(wholeMaskPlan(), { hashSensitive });
    expect(JSON.stringify(compact)).not.toContain(CANARY);
    const result = evaluatePlan(wholeMaskPlan(), { ...context(), hashSensitive });
    expect(JSON.stringify(result)).not.toContain(CANARY);
    // The changes stay visible, hashed (a whole mask makes the whole value one change).
    for (const change of [...compact.drift, ...compact.changes].filter((c) => c.changes.length > 0)) {
      for (const attribute of change.changes) expect(attribute.sensitive, change.address).toBe(true);
    }
    expect(compact.changes.find((change) => change.address === 'aws_sqs_queue.updated')?.changes).not.toEqual(
      [],
    );
  });
});
