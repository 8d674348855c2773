import { describe, expect, it } from 'vitest';
import { findingId } from '../../../../functions/core/findings/fingerprint.js';
import { isAboveInfo } from '../../../../functions/core/findings/model.js';
import type { ConfigurationFacts } from '../../../../functions/core/terraform/configuration.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * Issue 10, "A refactor is not drift": moved blocks, import and removed blocks, and
 * lifecycle.ignore_changes. Plans are shaped like Terraform 1.11.4's refresh-only and normal plans
 * against the AWS provider (see test/integration/drift-scenarios.test.ts for the real thing).
 */

function evaluate(raw: unknown, configuration?: ConfigurationFacts) {
  return evaluatePlan(raw, { ...context(configuration ? { configuration } : {}), hashSensitive });
}

function importing<T extends { change: Record<string, unknown> }>(planEntry: T, id: string): T {
  return { ...planEntry, change: { ...planEntry.change, importing: { id } } };
}

const bucket = (tags: Record<string, string> | null) => ({ bucket: 'exp-a', tags, tags_all: tags ?? {} });

describe('moved blocks', () => {
  it('a move with no value change is one info finding "moved from", without a drift action', () => {
    const result = evaluate(
      plan({
        drift: [
          entry('aws_s3_bucket.a2', {
            actions: ['no-op'],
            previousAddress: 'aws_s3_bucket.a',
            before: bucket({ Owner: 'payments' }),
            after: bucket({ Owner: 'payments' }),
          }),
        ],
      }),
    );
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      kind: 'terraform-drift',
      ruleId: 'drift.moved',
      severity: 'info',
      title: 'aws_s3_bucket.a2 moved from aws_s3_bucket.a',
      resource: { address: 'aws_s3_bucket.a2', movedFrom: 'aws_s3_bucket.a' },
    });
    expect(finding?.drift).toBeUndefined();
  });

  it('a move with a value change is an update at the new address with movedFrom; same id as without the move', () => {
    const changed = {
      before: bucket({ Owner: 'payments' }),
      after: bucket({ Owner: 'finance' }),
    };
    const moved = evaluate(
      plan({ drift: [entry('aws_s3_bucket.a2', { ...changed, previousAddress: 'aws_s3_bucket.a' })] }),
    ).findings;
    const plain = evaluate(plan({ drift: [entry('aws_s3_bucket.a2', changed)] })).findings;
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({
      ruleId: 'drift.update',
      severity: 'low',
      resource: { address: 'aws_s3_bucket.a2', movedFrom: 'aws_s3_bucket.a' },
      drift: { action: 'update', changes: [{ path: 'tags.Owner', before: 'payments', after: 'finance' }] },
    });
    expect(moved[0]?.detail).toContain('moved it from aws_s3_bucket.a');
    expect(findingId(moved[0]!)).toBe(findingId(plain[0]!));
    // Same title as the plain update: once the move is applied the finding says the same thing.
    expect(moved[0]?.title).toBe(plain[0]?.title);
  });

  it('no finding of any plan ever carries the action "move"', () => {
    const result = evaluate(
      plan({
        drift: [
          entry('aws_sqs_queue.b', {
            actions: ['no-op'],
            previousAddress: 'aws_sqs_queue.a',
            before: { name: 'q' },
            after: { name: 'q' },
          }),
          entry('aws_sqs_queue.d', {
            previousAddress: 'aws_sqs_queue.c',
            before: { delay_seconds: 0 },
            after: { delay_seconds: 5 },
          }),
        ],
        changes: [
          entry('aws_sqs_queue.f', {
            previousAddress: 'aws_sqs_queue.e',
            before: { delay_seconds: 0 },
            after: { delay_seconds: 9 },
          }),
        ],
      }),
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.drift?.action])).toEqual([
      ['drift.update', 'update'],
      ['pending.update', 'update'],
      ['drift.moved', undefined],
    ]);
    expect(result.findings[1]?.resource).toMatchObject({ movedFrom: 'aws_sqs_queue.e' });
  });
});

describe('import blocks', () => {
  it('an import without changes is one info pending.import; with changes it is judged as a pending update of them', () => {
    const result = evaluate(
      plan({
        changes: [
          importing(
            entry('aws_s3_bucket.d', { actions: ['no-op'], before: bucket(null), after: bucket(null) }),
            'exp-d',
          ),
          importing(
            entry('aws_s3_bucket.e', {
              before: bucket({ Owner: 'x' }),
              after: bucket({ Owner: 'payments' }),
            }),
            'exp-e',
          ),
          // The import's apply also makes the bucket public: that is not info, whatever adopts it.
          importing(
            entry('aws_s3_bucket.f', {
              before: { ...bucket(null), acl: 'private' },
              after: { ...bucket(null), acl: 'public-read' },
            }),
            'exp-f',
          ),
        ],
      }),
    );
    expect(
      result.findings.map((finding) => [
        finding.ruleId,
        finding.severity,
        (finding.resource as { address: string }).address,
        finding.drift?.changes.map((change) => change.path),
      ]),
    ).toEqual([
      ['pending.import', 'critical', 'aws_s3_bucket.f', ['acl']],
      ['pending.import', 'low', 'aws_s3_bucket.e', ['tags.Owner']],
      ['pending.import', 'info', 'aws_s3_bucket.d', []],
    ]);
    expect(result.findings[2]?.title).toBe('aws_s3_bucket.d will be imported by the next apply');
  });

  it('an import that replaces the existing object stays a high pending.replace', () => {
    const result = evaluate(
      plan({
        changes: [
          importing(
            entry('aws_s3_bucket.d', {
              actions: ['delete', 'create'],
              before: { bucket: 'exp-d' },
              after: { bucket: 'exp-d2' },
            }),
            'exp-d',
          ),
        ],
      }),
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['pending.replace', 'high'],
    ]);
  });

  it('a drift entry that is being imported is never drift', () => {
    const result = evaluate(
      plan({
        drift: [
          importing(entry('aws_s3_bucket.d', { before: bucket(null), after: bucket({ X: 'y' }) }), 'exp-d'),
        ],
      }),
    );
    expect(result.findings).toEqual([]);
  });
});

describe('removed blocks', () => {
  it('a forget (removed block with destroy = false) yields no finding', () => {
    const result = evaluate(
      plan({
        changes: [
          entry('aws_s3_bucket.c', {
            actions: ['forget'],
            actionReason: 'delete_because_no_resource_config',
            before: bucket(null),
          }),
        ],
      }),
    );
    expect(result.findings).toEqual([]);
  });

  it('drift of a resource under a removed block is accounted as removed-block, not reported', () => {
    const raw = plan({
      drift: [
        entry('aws_s3_bucket.c', { before: bucket(null), after: bucket({ X: 'y' }) }),
        entry('module.old.aws_sqs_queue.q[0]', { before: { delay_seconds: 0 }, after: { delay_seconds: 5 } }),
      ],
    });
    // Without the configuration the refresh-only plan looks like ordinary drift.
    expect(evaluate(raw).findings.map((finding) => finding.ruleId)).toEqual(['drift.update', 'drift.update']);
    const result = evaluate(raw, {
      ignoreChanges: [],
      removed: [
        { from: 'aws_s3_bucket.c', destroy: false, file: 'main.tf' },
        { from: 'module.old', destroy: true, file: 'removed.tf' },
      ],
    });
    expect(result.findings).toEqual([]);
    expect(result.noiseRemoved.map((removal) => [removal.rule, removal.address, removal.reason])).toEqual([
      [
        'removed-block',
        'aws_s3_bucket.c',
        'removed block for aws_s3_bucket.c in main.tf (forgotten at the next apply)',
      ],
      [
        'removed-block',
        'module.old.aws_sqs_queue.q[0]',
        'removed block for module.old in removed.tf (destroyed at the next apply)',
      ],
    ]);
  });
});

describe('lifecycle.ignore_changes', () => {
  const tagsDrift = (address: string, options: { previousAddress?: string } = {}) =>
    entry(address, {
      ...options,
      before: { ...bucket({ Owner: 'payments', Team: 'ledger' }), versioning: [{ enabled: false }] },
      after: { ...bucket({ Owner: 'finance', Team: 'treasury' }), versioning: [{ enabled: false }] },
    });
  const facts = (address: string, paths: ConfigurationFacts['ignoreChanges'][number]['paths']) => ({
    ignoreChanges: [{ address, paths, file: 'main.tf' }],
    removed: [],
  });

  it('changes confined to ignored attributes are one info finding that says where they are ignored', () => {
    const result = evaluate(
      plan({ drift: [tagsDrift('aws_s3_bucket.b')] }),
      facts('aws_s3_bucket.b', [['tags']]),
    );
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ ruleId: 'drift.ignored-changes', severity: 'info' });
    expect(finding?.drift?.changes.map((change) => change.path)).toEqual(['tags.Owner', 'tags.Team']);
    expect(finding?.detail).toContain('ignored by lifecycle.ignore_changes in main.tf');
    expect(finding?.remediation.summary).toContain('lifecycle.ignore_changes in main.tf');
  });

  it('without the configuration the same plan is an update above info (the step does the work)', () => {
    const [finding] = evaluate(plan({ drift: [tagsDrift('aws_s3_bucket.b')] })).findings;
    expect(finding?.ruleId).toBe('drift.update');
    expect(isAboveInfo(finding!)).toBe(true);
  });

  it('ignore_changes = all ignores every attribute', () => {
    const result = evaluate(plan({ drift: [tagsDrift('aws_s3_bucket.b')] }), facts('aws_s3_bucket.b', 'all'));
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['drift.ignored-changes', 'info'],
    ]);
  });

  it('tags["Owner"] ignores only that key: mixed changes keep the other paths, above info', () => {
    const result = evaluate(
      plan({ drift: [tagsDrift('aws_s3_bucket.b')] }),
      facts('aws_s3_bucket.b', [['tags', 'Owner']]),
    );
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ ruleId: 'drift.update', severity: 'low' });
    expect(finding?.drift?.changes.map((change) => change.path)).toEqual(['tags.Team']);
    expect(finding?.evidence.ignoredChanges).toEqual({
      paths: ['tags.Owner'],
      by: 'lifecycle.ignore_changes',
      file: 'main.tf',
      address: 'aws_s3_bucket.b',
    });
    expect(finding?.detail).toContain('ignored by lifecycle.ignore_changes in main.tf');
  });

  it('a change of the whole map is not confined to one ignored key', () => {
    // Without tags_all beside it, nothing says which keys the whole change holds.
    const raw = plan({
      drift: [
        entry('aws_s3_bucket.b', {
          before: { bucket: 'exp-a', tags: null },
          after: { bucket: 'exp-a', tags: { Owner: 'finance' } },
        }),
      ],
    });
    const [finding] = evaluate(raw, facts('aws_s3_bucket.b', [['tags', 'Owner']])).findings;
    expect(finding?.ruleId).toBe('drift.update');
    expect(finding?.drift?.changes.map((change) => change.path)).toEqual(['tags']);
  });

  it('the first tag of a resource applied without tags is its key (tags_all names it): ignored when that key is', () => {
    const raw = plan({
      drift: [entry('aws_s3_bucket.b', { before: bucket(null), after: bucket({ Owner: 'finance' }) })],
    });
    const [finding] = evaluate(raw, facts('aws_s3_bucket.b', [['tags', 'Owner']])).findings;
    expect(finding?.ruleId).toBe('drift.ignored-changes');
    expect(finding?.drift?.changes.map((change) => change.path)).toEqual(['tags.Owner']);
  });

  it('[*] patterns match every instance of count/for_each resources and modules, nothing else', () => {
    const raw = plan({
      drift: [
        tagsDrift('module.db["eu"].aws_s3_bucket.b[0]'),
        tagsDrift('module.db["us"].aws_s3_bucket.b[1]'),
        tagsDrift('aws_s3_bucket.b[0]'),
      ],
    });
    const result = evaluate(raw, facts('module.db[*].aws_s3_bucket.b[*]', [['tags']]));
    expect(
      result.findings.map((finding) => [(finding.resource as { address: string }).address, finding.ruleId]),
    ).toEqual([
      ['aws_s3_bucket.b[0]', 'drift.update'],
      ['module.db["eu"].aws_s3_bucket.b[0]', 'drift.ignored-changes'],
      ['module.db["us"].aws_s3_bucket.b[1]', 'drift.ignored-changes'],
    ]);
  });

  it('nested block paths: versioning[0].enabled is ignored, other attributes are not', () => {
    const raw = plan({
      drift: [
        entry('aws_s3_bucket.b', {
          before: { bucket: 'b', versioning: [{ enabled: false, mfa_delete: false }] },
          after: { bucket: 'b', versioning: [{ enabled: true, mfa_delete: true }] },
        }),
      ],
    });
    const [finding] = evaluate(raw, facts('aws_s3_bucket.b', [['versioning', 0, 'enabled']])).findings;
    expect(finding?.drift?.changes.map((change) => change.path)).toEqual(['versioning[0].mfa_delete']);
  });

  it('a moved resource whose changes are all ignored is info, follows the new address, and says it moved', () => {
    const result = evaluate(
      plan({ drift: [tagsDrift('aws_s3_bucket.b2', { previousAddress: 'aws_s3_bucket.b' })] }),
      facts('aws_s3_bucket.b2', [['tags']]),
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity, finding.resource])).toEqual([
      [
        'drift.ignored-changes',
        'info',
        expect.objectContaining({ address: 'aws_s3_bucket.b2', movedFrom: 'aws_s3_bucket.b' }),
      ],
    ]);
  });
});

describe('deposed objects (create_before_destroy leftovers)', () => {
  it('their drift, even a deletion, is accounted as deposed-object noise, never as the current object deleted', () => {
    const deposed = (planEntry: ReturnType<typeof entry>) => ({ ...planEntry, deposed: '1a2b3c4d' });
    const result = evaluate(
      plan({
        drift: [
          deposed(entry('aws_instance.x', { actions: ['delete'], before: { id: 'i-old' }, after: null })),
          deposed(
            entry('aws_instance.y', {
              before: { id: 'i-old-y', instance_type: 't3.micro' },
              after: { id: 'i-old-y', instance_type: 't3.large' },
            }),
          ),
          entry('aws_instance.x', {
            before: { id: 'i-new', instance_type: 't3.micro' },
            after: { id: 'i-new', instance_type: 't3.large' },
          }),
        ],
      }),
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.title])).toEqual([
      ['drift.update', 'aws_instance.x changed outside Terraform: instance_type'],
    ]);
    expect(result.noiseRemoved.filter((noise) => noise.rule === 'deposed-object')).toEqual([
      expect.objectContaining({ address: 'aws_instance.x', paths: [''] }),
      expect.objectContaining({ address: 'aws_instance.y', paths: ['instance_type'] }),
    ]);
  });

  // A normal plan lists a deposed object twice at the current object's address: its drift, and its
  // pending `delete` (jsonplan.ResourceChange.Deposed, sorted after the current object). Neither may
  // stand for the current object.
  const deposedPlan = () =>
    plan({
      drift: [
        entry('aws_instance.x', {
          before: { id: 'i-new', instance_type: 't3.micro' },
          after: { id: 'i-new', instance_type: 't3.large' },
        }),
        {
          ...entry('aws_instance.x', {
            before: { id: 'i-old', instance_type: 't3.micro' },
            after: { id: 'i-old', instance_type: 't3.xlarge' },
          }),
          deposed: '1a2b3c4d',
        },
        {
          ...entry('aws_instance.y', { actions: ['delete'], before: { id: 'i-old-y' } }),
          deposed: '5e6f7a8b',
        },
      ],
      changes: [
        // the current object's update only puts its drift back
        entry('aws_instance.x', {
          before: { id: 'i-new', instance_type: 't3.large' },
          after: { id: 'i-new', instance_type: 't3.micro' },
        }),
        {
          ...entry('aws_instance.x', {
            actions: ['delete'],
            before: { id: 'i-old', instance_type: 't3.xlarge' },
          }),
          deposed: '1a2b3c4d',
        },
      ],
    });

  it('the pending delete of a deposed object is deposed-object noise, never "<address> will be destroyed"', () => {
    const result = evaluate(deposedPlan());
    expect(result.findings.map((finding) => [finding.ruleId, finding.title])).toEqual([
      ['drift.update', 'aws_instance.x changed outside Terraform: instance_type'],
    ]);
    expect(result.noiseRemoved.filter((noise) => noise.rule === 'deposed-object')).toEqual([
      {
        rule: 'deposed-object',
        address: 'aws_instance.x',
        paths: ['instance_type'],
        reason: expect.any(String),
      },
      {
        rule: 'deposed-object',
        address: 'aws_instance.x',
        paths: [''],
        reason: 'deposed object 1a2b3c4d, destroyed by the next apply',
      },
      { rule: 'deposed-object', address: 'aws_instance.y', paths: [''], reason: expect.any(String) },
    ]);
  });

  it("a deposed object's drift is not the drift a current object's pending change reverts", () => {
    // Without the deposed entry the revert is recognised; with it (listed after the current one),
    // the current object's revert must still be recognised, not reported as pending.update.
    const rules = evaluate(deposedPlan()).findings.map((finding) => finding.ruleId);
    expect(rules).not.toContain('pending.update');
  });

  it("a deposed object's deletion is not counted by the deletion guard", () => {
    const result = evaluate(deposedPlan());
    expect(result.deletionGuard).toMatchObject({ deletions: 0, triggered: false });
    expect(result.plan.reportedDeletions).toBe(0);
  });
});
