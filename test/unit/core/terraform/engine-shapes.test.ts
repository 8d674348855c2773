import { describe, expect, it } from 'vitest';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * Plan JSON shapes that Terraform 1.12–1.16 and OpenTofu 1.8–1.12 write and Terraform 1.11 (the one on
 * this machine) does not. Each plan is built here from the repo's builders; the comment names the
 * source of the shape (the engine's `internal/command/jsonplan` at the tag named).
 */

const evaluate = (raw: unknown) => evaluatePlan(raw, { ...context(), hashSensitive });

describe('replace actions that forget the old object (lifecycle destroy = false)', () => {
  it.each([
    // terraform v1.16 jsonplan actionString: CreateThenForget → ["create", "forget"] (a tainted object
    // under `lifecycle { destroy = false }`; the vocabulary is documented in jsonplan.Change since 1.7).
    { engine: 'Terraform 1.16', actions: ['create', 'forget'] },
    // opentofu v1.12 jsonplan actionString: ForgetThenCreate → ["forget", "create"] (any replace under
    // `lifecycle { destroy = false }`).
    { engine: 'OpenTofu 1.12', actions: ['forget', 'create'] },
  ])('$engine $actions is a pending.replace that says the old object is left, unmanaged', ({ actions }) => {
    const result = evaluate(
      plan({
        changes: [
          {
            ...entry('aws_instance.web', {
              actions,
              before: { id: 'i-0old', ami: 'ami-1', instance_type: 't3.micro' },
              after: { ami: 'ami-2', instance_type: 't3.micro' },
              afterUnknown: { id: true },
              replacePaths: [['ami']],
            }),
            action_reason: 'replace_because_cannot_update',
          },
        ],
      }),
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.drift?.action, finding.title])).toEqual([
      ['pending.replace', 'replace', 'aws_instance.web will be replaced by the next apply: id, ami'],
    ]);
    const [finding] = result.findings;
    expect(finding?.detail).toContain('The old object is not destroyed');
    expect(finding?.evidence).toMatchObject({ actions, actionReason: 'replace_because_cannot_update' });
  });

  it('a replace that destroys says nothing of forgetting', () => {
    const result = evaluate(
      plan({
        changes: [
          entry('aws_instance.web', {
            actions: ['delete', 'create'],
            before: { id: 'i-0old', ami: 'ami-1' },
            after: { ami: 'ami-2' },
            afterUnknown: { id: true },
          }),
        ],
      }),
    );
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['pending.replace']);
    expect(result.findings[0]?.detail).not.toContain('forget');
  });
});
