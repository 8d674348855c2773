import { describe, expect, it } from 'vitest';
import { SENSITIVE_MARKER } from '../../../../functions/core/redaction/secrets.js';
import { compactPlan, evaluatePlan } from '../../../../functions/core/terraform/index.js';
import {
  bucketMask,
  bucketValues,
  context,
  entry,
  hashSensitive,
  ingressRule,
  plan,
  queueValues,
  securityGroupValues,
  ssmMask,
  ssmParameterValues,
  stateResource,
  versioningCompanion,
} from '../../../helpers/plan-builders.js';

/**
 * Refresh-only plans shaped like real Terraform 1.11.4 + AWS provider 5.100 output against moto:
 * the first refresh after an apply (noise only), a night with real drift, and two errored plans.
 */

const ssmBefore = 'ssm-secret-before-7d1c';
const ssmAfter = 'ssm-secret-after-9e4b';

/** The first refresh after apply: companion versioning and null→{} tags only. */
function noiseOnlyPlan() {
  return plan({
    drift: [
      entry('aws_s3_bucket.data', {
        before: bucketValues(),
        after: bucketValues({ versioning: [{ enabled: true, mfa_delete: false }] }),
        beforeSensitive: bucketMask,
        afterSensitive: bucketMask,
      }),
      entry('aws_security_group.db', {
        before: securityGroupValues(),
        after: securityGroupValues({ tags: {} }),
      }),
      entry('aws_ssm_parameter.pw', {
        before: ssmParameterValues(ssmBefore),
        after: ssmParameterValues(ssmBefore, { tags: {} }),
        beforeSensitive: ssmMask,
        afterSensitive: { ...ssmMask, tags: {} },
      }),
    ],
    prior: [
      stateResource(
        'aws_s3_bucket.data',
        bucketValues({ versioning: [{ enabled: true, mfa_delete: false }] }),
      ),
      versioningCompanion,
      stateResource('aws_security_group.db', securityGroupValues({ tags: {} })),
      stateResource('aws_ssm_parameter.pw', ssmParameterValues(ssmBefore), { value: true }),
    ],
  });
}

/** Someone retagged the bucket, opened SSH to the world, deleted the queue and rotated the secret. */
function driftPlan() {
  return plan({
    drift: [
      entry('aws_s3_bucket.data', {
        before: bucketValues(),
        after: bucketValues({
          tags: { Owner: 'someone-else' },
          tags_all: { Owner: 'someone-else' },
          versioning: [{ enabled: true, mfa_delete: false }],
        }),
        beforeSensitive: bucketMask,
        afterSensitive: bucketMask,
      }),
      entry('aws_security_group.db', {
        before: securityGroupValues(),
        // The new rule sorts first: the old one moves to index 1 (sets are lists in plan JSON).
        after: securityGroupValues({
          ingress: [ingressRule('0.0.0.0/0', 22), ingressRule('10.0.0.0/16', 5432)],
          tags: {},
        }),
      }),
      entry('aws_sqs_queue.q', { actions: ['delete'], before: queueValues(), after: null }),
      entry('aws_ssm_parameter.pw', {
        before: ssmParameterValues(ssmBefore),
        after: ssmParameterValues(ssmAfter, { tags: {}, version: 2 }),
        beforeSensitive: ssmMask,
        afterSensitive: { ...ssmMask, tags: {} },
      }),
    ],
    prior: [
      stateResource('aws_s3_bucket.data', bucketValues({ tags: { Owner: 'someone-else' } })),
      versioningCompanion,
      stateResource('aws_security_group.db', securityGroupValues()),
      stateResource('aws_ssm_parameter.pw', ssmParameterValues(ssmAfter), { value: true }),
    ],
  });
}

describe('a refresh-only plan right after apply (noise only)', () => {
  const result = evaluatePlan(noiseOnlyPlan(), { ...context(), hashSensitive });

  it('yields no findings', () => {
    expect(result.findings).toEqual([]);
  });

  it('records each piece of noise it removed, by rule and address', () => {
    expect(result.noiseRemoved).toEqual([
      { rule: 'companion-attributes', address: 'aws_s3_bucket.data', paths: ['versioning[0].enabled'] },
      { rule: 'null-versus-empty', address: 'aws_security_group.db', paths: ['tags'] },
      { rule: 'null-versus-empty', address: 'aws_ssm_parameter.pw', paths: ['tags'] },
    ]);
  });

  it('reports the versioning change once the companion resource is gone from state', () => {
    const withoutCompanion = noiseOnlyPlan();
    withoutCompanion.prior_state.values.root_module.resources.splice(1, 1);
    const findings = evaluatePlan(withoutCompanion, { ...context(), hashSensitive }).findings;
    expect(findings.map((finding) => [finding.ruleId, finding.resource, finding.drift?.changes])).toEqual([
      [
        'drift.update',
        {
          address: 'aws_s3_bucket.data',
          type: 'aws_s3_bucket',
          provider: 'registry.terraform.io/hashicorp/aws',
        },
        [{ path: 'versioning[0].enabled', before: false, after: true, sensitive: false }],
      ],
    ]);
  });
});

describe('a refresh-only plan with drift', () => {
  const result = evaluatePlan(driftPlan(), { ...context(), hashSensitive });
  const byAddress = new Map(
    result.findings.map((finding) => [(finding.resource as { address: string }).address, finding]),
  );

  it('reports one finding per drifted resource, most severe first', () => {
    expect(
      result.findings.map((finding) => [
        finding.severity,
        finding.ruleId,
        finding.drift?.action,
        finding.title,
      ]),
    ).toEqual([
      ['critical', 'drift.update', 'update', 'aws_security_group.db changed outside Terraform: ingress'],
      ['high', 'drift.delete', 'delete', 'aws_sqs_queue.q was deleted outside Terraform'],
      ['medium', 'drift.update', 'update', 'aws_ssm_parameter.pw changed outside Terraform: value, version'],
      ['low', 'drift.update', 'update', 'aws_s3_bucket.data changed outside Terraform: tags.Owner'],
    ]);
    for (const finding of result.findings) {
      expect(finding).toMatchObject({
        kind: 'terraform-drift',
        workspace: 'payments-prod',
        owner: 'payments',
        environment: 'prod',
      });
    }
  });

  it('matches reordered set elements and reports only the new ingress rule', () => {
    const finding = byAddress.get('aws_security_group.db')!;
    expect(finding.drift?.changes).toEqual([
      { path: 'ingress[0]', before: null, after: ingressRule('0.0.0.0/0', 22), sensitive: false },
    ]);
    expect(finding.evidence.severityReasons).toEqual([
      'base: drift.update is medium',
      'open-ingress: security group ingress opened to 0.0.0.0/0 or ::/0: critical',
    ]);
    expect(finding.evidence.noiseRemoved).toEqual([{ rule: 'null-versus-empty', paths: ['tags'] }]);
  });

  it('folds tags_all into tags, drops companion noise, and ranks a tag-only change low', () => {
    const finding = byAddress.get('aws_s3_bucket.data')!;
    expect(finding.drift?.changes).toEqual([
      { path: 'tags.Owner', before: 'payments', after: 'someone-else', sensitive: false },
    ]);
    expect(finding.evidence.noiseRemoved).toEqual([
      { rule: 'fold-tags-all', paths: ['tags_all.Owner'] },
      { rule: 'companion-attributes', paths: ['versioning[0].enabled'] },
    ]);
    // Tags come from the applied side: routing follows what the team declared, not the drift.
    expect(finding.evidence.tags).toEqual({ Owner: 'payments' });
  });

  it('hashes the SecureString value and keeps the version visible', () => {
    const finding = byAddress.get('aws_ssm_parameter.pw')!;
    expect(finding.drift?.changes).toEqual([
      { path: 'value', before: hashSensitive(ssmBefore), after: hashSensitive(ssmAfter), sensitive: true },
      { path: 'version', before: 1, after: 2, sensitive: false },
    ]);
    expect(finding.drift?.changes[0]?.before).toMatch(SENSITIVE_MARKER);
    const serialised = JSON.stringify(result);
    expect(serialised).not.toContain(ssmBefore);
    expect(serialised).not.toContain(ssmAfter);
  });

  it('describes a deletion without listing its attributes and offers recreate or remove', () => {
    const finding = byAddress.get('aws_sqs_queue.q')!;
    expect(finding.drift).toEqual({ action: 'delete', changes: [] });
    expect(finding.remediation.steps[0]).toMatch(
      /^Recreate: run a normal `terraform plan` for workspace payments-prod/,
    );
    expect(finding.remediation.steps[1]).toMatch(/`removed` block .*terraform state rm aws_sqs_queue\.q/);
  });

  it('offers revert and adopt for drift, naming the paths, and never an unattended apply', () => {
    const finding = byAddress.get('aws_security_group.db')!;
    expect(finding.remediation.steps[0]).toMatch(
      /^Revert: run a normal `terraform plan` for workspace payments-prod through the team's pipeline/,
    );
    // The ingress was opened to the world: adopting it keeps it open, and the adopt path says so.
    expect(finding.remediation.steps[1]).toMatch(
      /^Adopt only if the exposure is intended and approved \(adopting keeps it open\): change the configuration to declare the live values of ingress\[0\]; review and merge/,
    );
    expect(finding.remediation.summary).toContain('revert');
    expect(finding.remediation.summary).toContain('adopt');
    for (const found of result.findings) {
      expect(JSON.stringify(found.remediation)).not.toMatch(/auto-approve|terraform apply(?! ?through)/);
    }
  });

  it('shares one frozen remediation between findings with the same paths', () => {
    const twice = plan({
      drift: ['a', 'b'].map((name) =>
        entry(`aws_sqs_queue.${name}`, { before: { delay_seconds: 0 }, after: { delay_seconds: 5 } }),
      ),
    });
    const [first, second] = evaluatePlan(twice, { ...context(), hashSensitive }).findings;
    expect(first?.remediation).toBe(second?.remediation);
    expect(Object.isFrozen(first?.remediation)).toBe(true);
    expect(Object.isFrozen(first?.remediation.steps)).toBe(true);
  });

  it('names the configuration and state location in remediation when the context has them', () => {
    const located = evaluatePlan(driftPlan(), {
      ...context({
        remediation: { source: 'infra/payments', backend: 's3://tfstate-prod/payments/terraform.tfstate' },
      }),
      hashSensitive,
    });
    expect(located.findings[0]?.remediation.steps[0]).toContain(
      'workspace payments-prod (configuration in infra/payments, state in s3://tfstate-prod/payments/terraform.tfstate)',
    );
    expect(located.findings[0]?.remediation.steps[1]).toContain('change the configuration in infra/payments');
  });

  it('counts the deleted queue for the deletion guard although prior_state no longer lists it', () => {
    expect(result.plan).toEqual({
      formatVersion: '1.2',
      terraformVersion: '1.11.4',
      errored: false,
      complete: true,
      managedResourceCount: 5,
      reportedDeletions: 1,
    });
    expect(result.deletionGuard).toEqual({ triggered: false, ratio: 0.2, deletions: 1, managed: 5 });
  });

  it('carries the evidence a reviewer needs', () => {
    expect(byAddress.get('aws_ssm_parameter.pw')?.evidence).toEqual({
      actions: ['update'],
      terraformVersion: '1.11.4',
      formatVersion: '1.2',
      noiseRemoved: [{ rule: 'null-versus-empty', paths: ['tags'] }],
      severityReasons: ['base: drift.update is medium'],
    });
  });

  it('is deterministic', () => {
    expect(evaluatePlan(driftPlan(), { ...context(), hashSensitive })).toEqual(result);
  });

  it('keeps prior_state down to identity attributes', () => {
    const compact = compactPlan(driftPlan(), { hashSensitive });
    expect(compact.managedResources).toEqual([
      {
        address: 'aws_s3_bucket.data',
        type: 'aws_s3_bucket',
        values: { bucket: 'payments-data', id: 'payments-data' },
      },
      {
        address: 'aws_s3_bucket_versioning.data',
        type: 'aws_s3_bucket_versioning',
        values: { bucket: 'payments-data', id: 'payments-data' },
      },
      { address: 'aws_security_group.db', type: 'aws_security_group', values: { id: 'sg-0db', name: 'db' } },
      {
        address: 'aws_ssm_parameter.pw',
        type: 'aws_ssm_parameter',
        values: { id: '/payments/db-password', name: '/payments/db-password', type: 'SecureString' },
      },
    ]);
  });
});

describe('errored and incomplete plans (principle 3)', () => {
  /** The endpoint went away mid-refresh: the provider reports the bucket and queue as deleted. */
  function erroredPlan(overrides: { errored?: boolean; complete?: boolean } = {}) {
    return plan({
      errored: overrides.errored ?? true,
      complete: overrides.complete ?? false,
      drift: [
        entry('aws_s3_bucket.data', { actions: ['delete'], before: bucketValues(), after: null }),
        entry('aws_sqs_queue.q', { actions: ['delete'], before: queueValues(), after: null }),
        entry('aws_security_group.db', {
          before: securityGroupValues(),
          after: securityGroupValues({ ingress: [ingressRule('0.0.0.0/0', 22)] }),
        }),
      ],
      prior: [versioningCompanion, stateResource('aws_security_group.db', securityGroupValues())],
    });
  }

  it('an errored plan that reports deletions is exactly one scan-failed finding', () => {
    const result = evaluatePlan(erroredPlan(), { ...context(), hashSensitive });
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      kind: 'scan-failed',
      ruleId: 'scan.plan-errored',
      severity: 'high',
      workspace: 'payments-prod',
      owner: 'payments',
      environment: 'prod',
      title: 'Scan of payments-prod failed: the plan is errored',
    });
    expect(finding?.drift).toBeUndefined();
    expect(finding?.evidence).toMatchObject({
      errored: true,
      complete: false,
      ignoredDrift: 3,
      ignoredDeletions: 2,
      ignoredAddresses: ['aws_s3_bucket.data', 'aws_sqs_queue.q', 'aws_security_group.db'],
    });
    expect(finding?.detail).toContain('2 deletion(s)');
  });

  it('still computes the deletion guard data for the scanner', () => {
    const result = evaluatePlan(erroredPlan(), { ...context(), hashSensitive });
    expect(result.deletionGuard).toEqual({ triggered: true, ratio: 0.5, deletions: 2, managed: 4 });
    expect(result.plan).toMatchObject({
      errored: true,
      complete: false,
      managedResourceCount: 4,
      reportedDeletions: 2,
    });
  });

  it('complete: false alone is scan.plan-incomplete', () => {
    const result = evaluatePlan(erroredPlan({ errored: false, complete: false }), {
      ...context(),
      hashSensitive,
    });
    expect(result.findings.map((finding) => [finding.kind, finding.ruleId])).toEqual([
      ['scan-failed', 'scan.plan-incomplete'],
    ]);
  });

  it('errored takes precedence over incomplete and even a complete errored plan fails', () => {
    const result = evaluatePlan(erroredPlan({ errored: true, complete: true }), {
      ...context(),
      hashSensitive,
    });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.plan-errored']);
  });

  it('missing errored/complete keys mean a good plan (older versions, trimmed plans)', () => {
    const trimmed: Record<string, unknown> = erroredPlan();
    delete trimmed.errored;
    delete trimmed.complete;
    const result = evaluatePlan(trimmed, { ...context(), hashSensitive });
    expect(result.plan).toMatchObject({ errored: false, complete: true });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual([
      'drift.update',
      'drift.delete',
      'drift.delete',
    ]);
  });
});

describe('plans without drift (principle 2: the JSON decides, not an exit code)', () => {
  it('an empty refresh-only plan yields zero findings', () => {
    const result = evaluatePlan(
      plan({ prior: [stateResource('aws_security_group.db', securityGroupValues())] }),
      {
        ...context(),
        hashSensitive,
      },
    );
    expect(result.findings).toEqual([]);
    expect(result.plan.managedResourceCount).toBe(1);
  });

  it('`resource_drift: null` and no-op entries yield zero findings', () => {
    const quiet = {
      ...plan(),
      resource_drift: null,
      resource_changes: [
        entry('aws_sqs_queue.q', { actions: ['no-op'], before: queueValues(), after: queueValues() }),
      ],
    };
    expect(evaluatePlan(quiet, { ...context(), hashSensitive }).findings).toEqual([]);
  });
});
