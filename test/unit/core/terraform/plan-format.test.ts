import { describe, expect, it } from 'vitest';
import {
  compactPlan,
  evaluatePlan,
  PlanFormatError,
  scanFailedFinding,
} from '../../../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

const evaluate = (raw: unknown) => evaluatePlan(raw, { ...context(), hashSensitive });

function expectOneScanFailed(raw: unknown, reason: RegExp) {
  const result = evaluate(raw);
  expect(result.findings).toHaveLength(1);
  const [finding] = result.findings;
  expect(finding).toMatchObject({
    kind: 'scan-failed',
    ruleId: 'scan.plan-invalid',
    severity: 'high',
    workspace: 'payments-prod',
  });
  expect(finding?.evidence.reason).toMatch(reason);
  expect(finding?.detail).toContain(finding?.evidence.reason);
  expect(result.plan).toEqual({
    formatVersion: '',
    errored: false,
    complete: false,
    managedResourceCount: 0,
    reportedDeletions: 0,
  });
}

describe('format_version', () => {
  it.each(['0.1', '0.2', '1.0', '1.2', '1.99'])('accepts %s', (formatVersion) => {
    expect(compactPlan(plan({ formatVersion }), { hashSensitive }).formatVersion).toBe(formatVersion);
  });

  it.each([
    ['2.0', 'unsupported format_version 2.0'],
    ['10.1', 'unsupported format_version 10.1'],
    ['one', 'unsupported format_version a string (not shown)'],
  ])('rejects %s', (formatVersion, reason) => {
    expect(() => compactPlan(plan({ formatVersion }), { hashSensitive })).toThrow(
      new PlanFormatError(reason),
    );
    expectOneScanFailed(plan({ formatVersion }), new RegExp(reason.replace(/[()]/g, '\\$&')));
  });

  it('rejects a missing or non-string format_version', () => {
    const missing: Record<string, unknown> = plan();
    delete missing.format_version;
    expect(() => compactPlan(missing, { hashSensitive })).toThrow('unsupported format_version (missing)');
    expect(() => compactPlan({ ...plan(), format_version: 1.2 }, { hashSensitive })).toThrow(
      'invalid format_version: the number 1.2, expected a string such as "1.2"',
    );
    // Plan text that is not a version is not quoted: a hostile plan could put anything there.
    expect(() =>
      compactPlan({ ...plan(), format_version: { password: 'CANARY-fv-object' } }, { hashSensitive }),
    ).toThrow('invalid format_version: an object (not shown), expected a string such as "1.2"');
    expect(() => compactPlan({ ...plan(), format_version: 'CANARY fv string' }, { hashSensitive })).toThrow(
      'unsupported format_version a string (not shown)',
    );
  });
});

describe('bad input → exactly one scan-failed finding with the reason', () => {
  it('not JSON', () => expectOneScanFailed('this is not json', /^plan is not JSON: /));
  it('truncated JSON', () =>
    expectOneScanFailed(JSON.stringify(plan()).slice(0, 200), /^plan is not JSON: /));
  it('empty text', () => expectOneScanFailed('', /^plan is empty$/));
  it('whitespace only', () => expectOneScanFailed(' \n\t ', /^plan is empty$/));
  it.each([['[]'], ['42'], ['null'], ['"plan"']])('JSON that is not an object: %s', (text) =>
    expectOneScanFailed(text, /^plan is not a JSON object$/),
  );
  it('a parsed non-object', () => expectOneScanFailed([plan()], /^plan is not a JSON object$/));
  it('unknown format major', () =>
    expectOneScanFailed(JSON.stringify(plan({ formatVersion: '2.0' })), /unsupported format_version 2\.0/));
  it('a resource entry without address', () =>
    expectOneScanFailed(
      plan({ drift: [{ change: { actions: ['update'] } }] }),
      /^invalid plan: resource_drift\[0\] has no address$/,
    ));

  it('never modifies a parsed plan handed in by the caller', () => {
    const raw = plan({
      drift: [entry('aws_sqs_queue.q', { before: { delay_seconds: 0 }, after: { delay_seconds: 1 } })],
      configuration: { root_module: { resources: [{ address: 'aws_sqs_queue.q' }] } },
    });
    const copy = structuredClone(raw);
    compactPlan(raw, { hashSensitive });
    evaluate(raw);
    expect(raw).toEqual(copy);
  });

  it('JSON text plans are evaluated like parsed ones', () => {
    const raw = plan({
      drift: [entry('aws_sqs_queue.q', { before: { delay_seconds: 0 }, after: { delay_seconds: 1 } })],
    });
    expect(evaluate(JSON.stringify(raw))).toEqual(evaluate(raw));
  });
});

describe('scanFailedFinding', () => {
  it('builds a scan-failed draft scoped to the workspace and redacts the reason', () => {
    const finding = scanFailedFinding(
      { workspace: 'payments-prod', owner: 'payments', environment: 'prod' },
      'Error: invalid credentials password = "hunter22"',
      { stage: 'plan' },
    );
    expect(finding).toMatchObject({
      kind: 'scan-failed',
      ruleId: 'scan.failed',
      severity: 'high',
      workspace: 'payments-prod',
      owner: 'payments',
      environment: 'prod',
      evidence: { stage: 'plan' },
    });
    expect(JSON.stringify(finding)).not.toContain('hunter22');
    expect(finding.remediation.steps.length).toBeGreaterThan(0);
    expect(finding.resource).toBeUndefined();
  });
});
