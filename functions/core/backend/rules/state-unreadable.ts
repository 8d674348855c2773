import type { StateRule, StateSubject, StateVersionFacts, Violation } from '../rule.js';
import { restoreRemediation, versionEvidence } from './state-history.js';

export const stateUnreadableRule: StateRule = {
  id: 'state.unreadable',
  target: 'state',
  kind: 'state-integrity',
  check: 'backend',
  severity: 'high',
  checks:
    'the current version of each registered state object is valid state v4 JSON (lineage, serial, resources) and not a delete marker',
  explanation:
    'Terraform cannot plan or apply against a state it cannot read, and a truncated or foreign object in its place usually means a failed write or a manual upload.',
  iamActions: ['s3:ListBucketVersions', 's3:GetObject', 's3:GetObjectVersion'],
  evaluate(subject) {
    const current = subject.versions[0];
    if (current?.headerUnknown !== undefined) return [headerNotRead(subject, current)];
    if (current?.unreadable === undefined) return [];
    const good = subject.versions.find((version) => version.header !== undefined);
    return [
      {
        resource: { bucket: subject.bucket, key: subject.key },
        title: current.deleted
          ? `State s3://${subject.bucket}/${subject.key} was deleted (a delete marker is its current version)`
          : `State s3://${subject.bucket}/${subject.key} is not valid Terraform state`,
        detail: current.deleted
          ? `s3://${subject.bucket}/${subject.key} is listed no more: ${current.unreadable}. Earlier versions are still in the bucket.`
          : `The current version of s3://${subject.bucket}/${subject.key} is not valid state v4 JSON: ${current.unreadable}.`,
        evidence: { reason: current.unreadable, current: versionEvidence(current) },
        ...(current.deleted && {
          explanation:
            'Terraform cannot plan or apply against a deleted state: its next plan would create every resource again.',
        }),
        remediation: restoreRemediation(
          subject,
          current.deleted
            ? 'Find out who deleted the state, then restore the last good version through Terraform.'
            : 'Find out what wrote the unreadable state, then restore the last good version through Terraform.',
          current,
          good,
        ),
      },
    ];
  },
};

/**
 * The current version's header is further into the object than driftwatch reads (its members are
 * not in Terraform's order): maybe valid state, so no alert, and no lineage or serial invented; an
 * info finding says what was not checked and how Terraform would put it back in order.
 */
function headerNotRead(subject: StateSubject, current: StateVersionFacts): Violation {
  const where = `s3://${subject.bucket}/${subject.key}`;
  return {
    resource: { bucket: subject.bucket, key: subject.key },
    severity: 'info',
    title: `Lineage and serial of ${where} not checked: its header is not where Terraform writes it`,
    detail: `The current version of ${where} was not checked for lineage or serial changes: ${current.headerUnknown}.`,
    evidence: { reason: current.headerUnknown, current: versionEvidence(current) },
    explanation:
      'Terraform reads such a state as it is; only the lineage and serial checks of driftwatch are left out.',
    remediation: {
      summary: `Let Terraform rewrite ${where} in its own order, or accept that its lineage and serial are not checked.`,
      steps: [
        'Find out what wrote the state with its members reordered (a tool that sorts JSON keys, a manual edit).',
        'The next `terraform apply` from the workspace writes the state again, header first; driftwatch checks it from then on.',
      ],
    },
  };
}
