import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readPlanStream } from '../../../../functions/adapters/plan-file.js';
import { changeSummary } from '../../../../functions/core/findings/describe.js';
import { valueHashOf } from '../../../../functions/core/findings/lifecycle.js';
import { prepareRemediation } from '../../../../functions/core/remediation/prepare.js';
import { compactPlan, evaluateCompactPlan } from '../../../../functions/core/terraform/index.js';
import { storedFinding } from '../../../helpers/findings.js';
import { context, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * The `checks` of a refresh-only plan, in the shape `terraform show -json` wrote it (Terraform
 * 1.11.4 against moto, a check block on an SQS queue whose visibility timeout was changed by hand):
 * `{address: {kind, name, to_display}, status, instances: [{address, status, problems: [{message}]}]}`.
 */
const DB_PASSWORD = 'canary-check-9Xq2-password';
const ACCESS_KEY = 'AKIAQX7CHECKCANARY12';

function checksPlan() {
  return {
    ...plan({
      variables: { db_password: { value: DB_PASSWORD } },
      configuration: {
        provider_config: { aws: { name: 'aws' } },
        root_module: { variables: { db_password: { sensitive: true } } },
      },
    }),
    checks: [
      {
        address: { kind: 'check', name: 'queue_named', to_display: 'check.queue_named' },
        status: 'pass',
        instances: [{ address: { to_display: 'check.queue_named' }, status: 'pass' }],
      },
      {
        address: { kind: 'check', name: 'queue_visibility', to_display: 'check.queue_visibility' },
        status: 'fail',
        instances: [
          {
            address: { to_display: 'check.queue_visibility' },
            status: 'fail',
            problems: [
              { message: `visibility is 90, expected 30 (key ${ACCESS_KEY}, password ${DB_PASSWORD})` },
            ],
          },
        ],
      },
      {
        // A postcondition a refresh-only plan reports as a warning, failing on two of three instances.
        address: {
          kind: 'resource',
          mode: 'managed',
          type: 'aws_s3_bucket',
          name: 'logs',
          to_display: 'module.cdn.aws_s3_bucket.logs',
        },
        status: 'fail',
        instances: [
          {
            address: { to_display: 'aws_s3_bucket.logs[0]' },
            status: 'fail',
            problems: [{ message: 'not versioned' }],
          },
          {
            address: { to_display: 'aws_s3_bucket.logs[1]' },
            status: 'fail',
            problems: [{ message: 'not versioned' }],
          },
          { address: { to_display: 'aws_s3_bucket.logs[2]' }, status: 'pass' },
        ],
      },
      {
        // Depends on a value known only after apply: not a failure.
        address: { kind: 'check', name: 'endpoint', to_display: 'check.endpoint' },
        status: 'unknown',
        instances: [{ address: { to_display: 'check.endpoint' }, status: 'unknown' }],
      },
    ],
  };
}

describe('failed checks of a refresh-only plan', () => {
  it('are kept with their failing instances and distinct messages, redacted, by both readers', async () => {
    const compact = compactPlan(checksPlan(), { hashSensitive });
    expect(compact.failedChecks).toEqual([
      {
        address: 'check.queue_visibility',
        kind: 'check',
        messages: [expect.stringMatching(/^visibility is 90, expected 30 \(key .+, password .+\)$/)],
        failedInstances: 1,
      },
      {
        address: 'module.cdn.aws_s3_bucket.logs',
        kind: 'resource',
        messages: ['not versioned'],
        failedInstances: 2,
      },
    ]);
    const text = JSON.stringify(compact.failedChecks);
    expect(text).not.toContain(DB_PASSWORD);
    expect(text).not.toContain(ACCESS_KEY);
    // The streaming reader (plans above 16 MiB) keeps the same.
    const streamed = await readPlanStream(Readable.from([Buffer.from(JSON.stringify(checksPlan()))]), {
      hashSensitive,
    });
    expect(streamed.failedChecks).toEqual(compact.failedChecks);
  });

  it('each is a medium drift.check-failed finding saying what failed, with no revert or adopt', () => {
    const findings = evaluateCompactPlan(compactPlan(checksPlan(), { hashSensitive }), context()).findings;
    const failed = findings.filter((finding) => finding.ruleId === 'drift.check-failed');
    expect(failed.map((finding) => [finding.title, finding.severity, finding.resource])).toEqual([
      ['Check check.queue_visibility fails', 'medium', { address: 'check.queue_visibility', type: 'check' }],
      [
        'A condition of module.cdn.aws_s3_bucket.logs fails',
        'medium',
        { address: 'module.cdn.aws_s3_bucket.logs', type: 'aws_s3_bucket' },
      ],
    ]);
    expect(failed[1]?.detail).toBe(
      "A condition of module.cdn.aws_s3_bucket.logs fails against the live infrastructure of payments-prod (2 instances): not versioned. Terraform reports it as a warning; the plan's other findings show any drift of what it reads.",
    );
    expect(failed[0]?.evidence).toMatchObject({ checkKind: 'check', failedInstances: 1 });
    expect(JSON.stringify(findings)).not.toMatch(new RegExp(`${DB_PASSWORD}|${ACCESS_KEY}`));
    for (const mode of ['revert', 'adopt'] as const)
      expect(prepareRemediation(storedFinding({}, failed[0]!), mode, {})).toMatchObject({
        notApplicable: expect.stringMatching(/does not apply to a failed check/),
      });
  });

  it("tables and digests show a failed check's message; its value hash does not depend on it", () => {
    const [failed] = evaluateCompactPlan(
      compactPlan(checksPlan(), { hashSensitive }),
      context(),
    ).findings.filter((finding) => finding.ruleId === 'drift.check-failed');
    expect(changeSummary(failed!)).toMatch(/^visibility is 90, expected 30 \(key /);
    // Tomorrow's message names another live value: the finding is the same, not "changed".
    const tomorrow = {
      ...failed!,
      evidence: { ...failed!.evidence, messages: ['visibility is 120, expected 30'] },
    };
    expect(valueHashOf(tomorrow)).toBe(valueHashOf(failed!));
    expect(changeSummary(tomorrow)).toBe('visibility is 120, expected 30');
  });

  it('a plan whose checks all pass, or that has none, adds nothing', () => {
    const passing = {
      ...checksPlan(),
      checks: checksPlan().checks.filter((check) => check.status !== 'fail'),
    };
    expect(compactPlan(passing, { hashSensitive }).failedChecks).toBeUndefined();
    expect(compactPlan(plan(), { hashSensitive }).failedChecks).toBeUndefined();
  });
});
