import type { StateRule } from '../rule.js';
import { restoreRemediation, versionEvidence } from './state-history.js';

export const stateUnreadableRule: StateRule = {
  id: 'state.unreadable',
  target: 'state',
  kind: 'state-integrity',
  check: 'backend',
  severity: 'high',
  checks:
    'the current version of each registered state object is valid state v4 JSON (lineage, serial, resources)',
  explanation:
    'Terraform cannot plan or apply against a state it cannot read, and a truncated or foreign object in its place usually means a failed write or a manual upload.',
  iamActions: ['s3:ListBucketVersions', 's3:GetObject', 's3:GetObjectVersion'],
  evaluate(subject) {
    const current = subject.versions[0];
    if (current?.unreadable === undefined) return [];
    const good = subject.versions.find((version) => version.header !== undefined);
    return [
      {
        resource: { bucket: subject.bucket, key: subject.key },
        title: `State s3://${subject.bucket}/${subject.key} is not valid Terraform state`,
        detail: `The current version of s3://${subject.bucket}/${subject.key} is not valid state v4 JSON: ${current.unreadable}.`,
        evidence: { reason: current.unreadable, current: versionEvidence(current) },
        remediation: restoreRemediation(
          subject,
          'Find out what wrote the unreadable state, then restore the last good version through Terraform.',
          current,
          good,
        ),
      },
    ];
  },
};
