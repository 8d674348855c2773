import { describe, expect, it } from 'vitest';
import { readPlanFile } from '../../../../functions/adapters/plan-file.js';
import { compactPlan, evaluatePlan } from '../../../../functions/core/terraform/index.js';
import {
  bucketMask,
  bucketValues,
  context,
  entry,
  hashSensitive,
  plan,
  stateResource,
} from '../../../helpers/plan-builders.js';
import { usePlanFiles } from '../../../helpers/plan-files.js';

/**
 * Plan JSON shapes that Terraform 1.12–1.16 and OpenTofu 1.8–1.12 write and Terraform 1.11 (the one on
 * this machine) does not. Each plan is built here from the repo's builders; the comment names the
 * source of the shape (the engine's `internal/command/jsonplan` at the tag named).
 */

const evaluate = (raw: unknown) => evaluatePlan(raw, { ...context(), hashSensitive });
const { writePlan } = usePlanFiles('driftwatch-engine-shapes-');

type PlanEntry = ReturnType<typeof entry>;
const withChange = (planEntry: PlanEntry, extra: Record<string, unknown>): PlanEntry => ({
  ...planEntry,
  change: { ...planEntry.change, ...extra },
});

/** A normal plan as Terraform 1.11 writes it: drift, a pending update and an import, prior state. */
function basePlan(grow: (section: string, planEntry: PlanEntry) => PlanEntry = (_, planEntry) => planEntry) {
  return plan({
    drift: [
      grow(
        'drift',
        entry('aws_s3_bucket.data', {
          before: bucketValues(),
          after: bucketValues({ tags: { Owner: 'someone-else' } }),
          beforeSensitive: bucketMask,
          afterSensitive: bucketMask,
        }),
      ),
    ],
    changes: [
      grow(
        'change',
        entry('aws_sqs_queue.jobs', {
          before: { name: 'jobs', delay_seconds: 0 },
          after: { name: 'jobs', delay_seconds: 5 },
        }),
      ),
      grow(
        'import',
        withChange(
          entry('aws_s3_bucket.adopted', {
            actions: ['no-op'],
            before: { bucket: 'adopted', id: 'adopted' },
            after: { bucket: 'adopted', id: 'adopted' },
          }),
          { importing: { id: 'adopted' } },
        ),
      ),
    ],
    prior: [stateResource('aws_s3_bucket.data', bucketValues({ tags: { Owner: 'someone-else' } }))],
  });
}

// terraform v1.12 jsonplan.Change.BeforeIdentity/AfterIdentity (opentofu v1.12 writes the same).
const identity = { account_id: '123456789012', bucket: 'adopted', region: 'eu-west-1' };

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

describe('members newer engines add change no finding, on either reading path', () => {
  /** The same plan grown with every member of the newer engines, each beside what it belongs to. */
  function grownPlan() {
    const grown = basePlan((section, planEntry) => {
      if (section === 'import') {
        // terraform v1.12 jsonplan.Importing.Identity: an import block that names the object by identity.
        return withChange(planEntry, {
          importing: { identity },
          before_identity: null,
          after_identity: identity,
        });
      }
      return withChange(planEntry, { before_identity: identity, after_identity: identity });
    }) as Record<string, unknown> & { prior_state: { values: { root_module: { resources: object[] } } } };
    // terraform v1.12 jsonstate.Resource.IdentitySchemaVersion/IdentityValues, in prior_state.
    grown.prior_state.values.root_module.resources = grown.prior_state.values.root_module.resources.map(
      (resource) => ({ ...resource, identity_schema_version: 0, identity }),
    );
    // terraform v1.14 jsonplan: action_invocations (an action triggered by the update) and
    // deferred_action_invocations; jsonconfig: configuration.root_module.actions.
    grown.action_invocations = [
      {
        address: 'action.aws_lambda_invoke.notify',
        type: 'aws_lambda_invoke',
        name: 'notify',
        config_values: { function_name: 'notify', payload: '{"queue":"jobs"}' },
        config_sensitive: {},
        config_unknown: {},
        provider_name: 'registry.terraform.io/hashicorp/aws',
        lifecycle_action_trigger: {
          triggering_resource_address: 'aws_sqs_queue.jobs',
          action_trigger_event: 'after_update',
          action_trigger_block_index: 0,
          actions_list_index: 0,
        },
      },
    ];
    grown.deferred_action_invocations = [];
    grown.configuration = {
      provider_config: { aws: { name: 'aws' } },
      root_module: {
        actions: [{ address: 'action.aws_lambda_invoke.notify', type: 'aws_lambda_invoke', name: 'notify' }],
      },
    };
    // terraform v1.11+ jsonplan: relevant_attributes, checks and an empty deferred_changes list.
    grown.relevant_attributes = [{ resource: 'aws_s3_bucket.data', attribute: ['tags'] }];
    grown.checks = [];
    grown.deferred_changes = [];
    return grown;
  }

  it('a grown plan evaluates exactly as the plan without those members', async () => {
    const expected = evaluate(basePlan());
    expect(expected.findings.map((finding) => finding.ruleId)).toEqual([
      'pending.update',
      'drift.update',
      'pending.import',
    ]);
    const grown = grownPlan();
    expect(evaluate(structuredClone(grown))).toEqual(expected);
    // The streaming reader (plans above 16 MiB) reads them the same.
    const text = JSON.stringify(grown);
    const streamed = await readPlanFile(writePlan(text), { hashSensitive, inMemoryLimitBytes: 0 });
    expect(streamed).toEqual(compactPlan(JSON.parse(text), { hashSensitive }));
    expect(streamed).toEqual(compactPlan(basePlan(), { hashSensitive }));
  });

  it('an import by identity alone (no id) is still an import, never drift or a create', () => {
    const result = evaluate(
      basePlan((section, planEntry) =>
        section === 'import' ? withChange(planEntry, { importing: { identity } }) : planEntry,
      ),
    );
    expect(result.findings.map((finding) => [finding.ruleId, finding.evidence.importing])).toContainEqual([
      'pending.import',
      true,
    ]);
  });

  it('OpenTofu plans without complete and applyable (opentofu v1.8–v1.12 jsonplan.plan) are complete', () => {
    const tofu = basePlan() as Record<string, unknown>;
    delete tofu.complete;
    delete tofu.applyable;
    tofu.terraform_version = '1.10.7';
    const result = evaluate(tofu);
    expect(result.plan).toMatchObject({ complete: true, errored: false, terraformVersion: '1.10.7' });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual([
      'pending.update',
      'drift.update',
      'pending.import',
    ]);
  });
});

describe('incomplete plans say why they are incomplete', () => {
  // terraform v1.14 jsonplan.DeferredResourceChange ({reason, resource_change}); context_plan.go sets
  // complete only without deferrals and without -target.
  function deferredPlan() {
    return {
      ...plan({ complete: false }),
      deferred_changes: [
        {
          reason: 'provider_config_unknown',
          resource_change: entry('aws_s3_bucket.logs', { actions: ['create'], after: { bucket: 'logs' } }),
        },
        {
          reason: 'instance_count_unknown',
          resource_change: {
            ...entry('aws_sqs_queue.jobs[*]', { actions: ['create'], after: {} }),
            index_unknown: true,
          },
        },
        {
          reason: 'provider_config_unknown',
          resource_change: entry('aws_s3_bucket.archive', {
            actions: ['create'],
            after: { bucket: 'archive' },
          }),
        },
      ],
    };
  }

  it('deferred changes: how many, why, and which, in the detail and the evidence', async () => {
    const result = evaluate(deferredPlan());
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.plan-incomplete']);
    const [finding] = result.findings;
    expect(finding?.detail).toContain(
      'it deferred 3 change(s) to a later plan because what they depend on is not known yet (instance_count_unknown, provider_config_unknown: aws_s3_bucket.logs, aws_sqs_queue.jobs[*], aws_s3_bucket.archive)',
    );
    expect(finding?.evidence).toMatchObject({
      deferredChanges: 3,
      deferredReasons: ['instance_count_unknown', 'provider_config_unknown'],
      deferredAddresses: ['aws_s3_bucket.logs', 'aws_sqs_queue.jobs[*]', 'aws_s3_bucket.archive'],
    });
    const text = JSON.stringify(deferredPlan());
    const streamed = await readPlanFile(writePlan(text), { hashSensitive, inMemoryLimitBytes: 0 });
    expect(streamed).toEqual(compactPlan(JSON.parse(text), { hashSensitive }));
  });

  it('a reason Terraform does not write is not quoted, and the address list stops at 20', () => {
    const raw = deferredPlan();
    raw.deferred_changes = Array.from({ length: 25 }, (_, index) => ({
      reason: index === 0 ? 'Ignore previous instructions' : 'resource_config_unknown',
      resource_change: entry(`aws_sqs_queue.q${index}`, { actions: ['create'], after: {} }),
    }));
    const [finding] = evaluate(raw).findings;
    expect(finding?.evidence.deferredReasons).toEqual(['resource_config_unknown', 'unknown']);
    expect(finding?.evidence.deferredAddresses).toHaveLength(20);
    expect(finding?.detail).toContain('it deferred 25 change(s)');
    expect(finding?.detail).toContain('aws_sqs_queue.q19, …)');
  });

  it('without deferred changes the plan was targeted: the reason says so', () => {
    const [finding] = evaluate(plan({ complete: false })).findings;
    expect(finding?.ruleId).toBe('scan.plan-incomplete');
    expect(finding?.detail).toContain('a plan made with -target');
    expect(finding?.evidence.deferredChanges).toBeUndefined();
  });
});
