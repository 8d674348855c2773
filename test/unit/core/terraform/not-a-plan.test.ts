import { describe, expect, it } from 'vitest';
import { compactPlan, evaluatePlan, PlanFormatError } from '../../../../functions/core/terraform/index.js';
import { MAX_VALUE_DEPTH, nestingExceeds } from '../../../../functions/core/terraform/json-values.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * JSON that is not a plan, or a plan of a shape we do not know, is a PlanFormatError with a reason
 * (so a scan-failed finding and a one-line CLI error), never an empty result ("no drift").
 */
const compact = (raw: unknown) => compactPlan(raw, { hashSensitive });

function reasonOf(raw: unknown): string {
  try {
    compact(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(PlanFormatError);
    return (error as Error).message;
  }
  throw new Error('expected a PlanFormatError, but the document was read as a plan');
}

/** `d` levels of nested lists around a value. */
function nested(depth: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

describe('documents that are not plans', () => {
  // Shapes as Terraform 1.11 writes them (state file v4, `terraform show -json` without a plan file,
  // `terraform providers schema -json`).
  const stateFile = {
    version: 4,
    terraform_version: '1.11.4',
    serial: 7,
    lineage: '3d5f1c2e-0000-4000-8000-000000000000',
    outputs: {},
    resources: [{ mode: 'managed', type: 'aws_s3_bucket', name: 'a', instances: [] }],
    check_results: null,
  };
  const showState = {
    format_version: '1.0',
    terraform_version: '1.11.4',
    values: { root_module: { resources: [] } },
  };

  it.each([
    [
      'a state file',
      stateFile,
      /^this is a Terraform state file, not a plan: run `terraform show -json <planfile>`/,
    ],
    ['an empty state file', { version: 4, serial: 1, lineage: 'x', resources: [] }, /Terraform state file/],
    [
      'terraform show -json of a state',
      showState,
      /^this is `terraform show -json` of a state \(no plan file given\)/,
    ],
    [
      '{}',
      {},
      /^not a Terraform plan: no format_version, planned_values, resource_changes or resource_drift/,
    ],
    [
      'providers schema -json',
      { format_version: '1.0', provider_schemas: {} },
      /^not a Terraform plan: format_version 1\.0 but no planned_values/,
    ],
  ])('%s says what it is and what to run', (_name, raw, reason) => {
    expect(reasonOf(raw)).toMatch(reason);
    expect(reasonOf(JSON.stringify(raw))).toMatch(reason);
    const result = evaluatePlan(raw, { ...context(), hashSensitive });
    expect(result.findings.map((finding) => finding.kind)).toEqual(['scan-failed']);
  });

  it('a minimal plan (format_version and resource_drift only) is still a plan', () => {
    expect(compact({ format_version: '1.2', resource_drift: [] }).drift).toEqual([]);
  });
});

describe('plan sections of the wrong shape', () => {
  it.each([
    [
      'resource_drift as an object',
      { resource_drift: { a: entry('aws_s3_bucket.a', {}) } },
      'resource_drift is an object, expected a list',
    ],
    [
      'resource_changes as an object',
      { resource_changes: { a: 1 } },
      'resource_changes is an object, expected a list',
    ],
    ['resource_drift as a number', { resource_drift: 5 }, 'resource_drift is a number, expected a list'],
    ['resource_drift as text', { resource_drift: 'none' }, 'resource_drift is a string, expected a list'],
    [
      'output_changes as a list',
      { output_changes: [{ actions: ['update'] }] },
      'output_changes is a list, expected an object',
    ],
  ])('%s is an invalid plan, not "no drift"', (_name, sections, reason) => {
    const raw = { ...plan(), ...sections };
    expect(reasonOf(raw)).toBe(`invalid plan: ${reason}`);
  });

  it('null sections are Terraform\'s "none"', () => {
    expect(compact({ ...plan(), resource_drift: null, output_changes: null }).drift).toEqual([]);
  });
});

describe('unknown actions', () => {
  it.each([['explode'], ['Update'], ['']])(
    '%j in resource_drift fails the plan, naming the entry',
    (action) => {
      const raw = plan({ drift: [entry('aws_s3_bucket.a', { actions: [action], before: {}, after: {} })] });
      expect(reasonOf(raw)).toMatch(
        /^invalid plan: resource_drift\[0\] \(aws_s3_bucket\.a\) has an unknown action /,
      );
    },
  );

  it('in output_changes too', () => {
    const raw = plan({ outputs: { url: { actions: ['teleport'], before: 'a', after: 'b' } } });
    expect(reasonOf(raw)).toMatch(/^invalid plan: output_changes\.url has an unknown action "teleport"/);
  });

  it('every action Terraform writes is known', () => {
    for (const actions of [
      ['no-op'],
      ['create'],
      ['read'],
      ['update'],
      ['delete', 'create'],
      ['create', 'delete'],
      ['delete'],
      ['forget'],
      ['open'],
      ['renew'],
      ['close'],
    ]) {
      expect(() =>
        compact(
          plan({ changes: [entry('aws_s3_bucket.a', { actions, before: { a: 1 }, after: { a: 2 } })] }),
        ),
      ).not.toThrow();
    }
  });
});

describe('values nested 100k deep', () => {
  // Built as text: JSON.stringify is itself recursive, JSON.parse is not.
  const DEEP = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
  const withDeep = (raw: unknown) => JSON.stringify(raw).replace('"__DEEP__"', DEEP);

  it('nestingExceeds answers for any depth without recursion', () => {
    expect(nestingExceeds(JSON.parse(DEEP), MAX_VALUE_DEPTH)).toBe(true);
    expect(nestingExceeds(nested(MAX_VALUE_DEPTH), MAX_VALUE_DEPTH)).toBe(false);
    expect(nestingExceeds(nested(MAX_VALUE_DEPTH + 1), MAX_VALUE_DEPTH)).toBe(true);
    expect(nestingExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestingExceeds({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestingExceeds('text', 0)).toBe(false);
  });

  it.each([
    ['before', { before: { x: '__DEEP__' }, after: { x: 1 } }],
    ['after of a create', { actions: ['create'], before: null, after: { x: '__DEEP__' } }],
    ['a sensitivity mask', { before: { x: 1 }, after: { x: 2 }, beforeSensitive: { x: '__DEEP__' } }],
  ])('in %s: a failed scan with the limit named, no RangeError', (_name, options) => {
    const text = withDeep(
      plan({ drift: [entry('aws_s3_bucket.a', options as Parameters<typeof entry>[1])] }),
    );
    const reason = `invalid plan: resource_drift[0] (aws_s3_bucket.a) nests values deeper than ${MAX_VALUE_DEPTH} levels, driftwatch's limit`;
    expect(reasonOf(text)).toBe(reason);
    expect(reasonOf(JSON.parse(text))).toBe(reason);
    const result = evaluatePlan(text, { ...context(), hashSensitive });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]?.evidence.reason).toBe(reason);
  });

  it('in output_changes', () => {
    const text = withDeep(plan({ outputs: { o: { actions: ['update'], before: '__DEEP__', after: 1 } } }));
    expect(reasonOf(text)).toMatch(/^invalid plan: output_changes\.o nests values deeper than/);
  });

  it('a JSON document string nested 100k deep is compared as text (a change, no crash)', () => {
    const raw = plan({
      drift: [entry('aws_iam_policy.p', { before: { policy: DEEP }, after: { policy: `${DEEP} ` } })],
    });
    const result = evaluatePlan(raw, { ...context(), hashSensitive });
    expect(result.findings.map((finding) => finding.kind)).toEqual(['terraform-drift']);
  });

  it('prior_state modules nested 100k deep fail the plan', () => {
    const modules = `${'{"child_modules":['.repeat(100_000)}{"resources":[]}${']}'.repeat(100_000)}`;
    const text = withDeep({ ...plan(), prior_state: { values: { root_module: '__DEEP__' } } }).replace(
      DEEP,
      modules,
    );
    expect(reasonOf(text)).toMatch(/nests deeper than 256 levels/);
    expect(reasonOf(JSON.parse(text))).toMatch(/nests deeper than 256 levels/);
  });

  it('values just inside the limit are evaluated', () => {
    const raw = plan({
      drift: [entry('aws_s3_bucket.a', { before: { x: nested(200, 'a') }, after: { x: nested(200, 'b') } })],
    });
    const result = evaluatePlan(raw, { ...context(), hashSensitive });
    expect(result.findings.map((finding) => finding.kind)).toEqual(['terraform-drift']);
  });
});
