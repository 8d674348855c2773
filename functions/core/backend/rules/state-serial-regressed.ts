import type { StateRule } from '../rule.js';
import { recentWrites, restoreRemediation, versionEvidence, versionLabel } from './state-history.js';

export const stateSerialRegressedRule: StateRule = {
  id: 'state.serial-regressed',
  target: 'state',
  kind: 'state-integrity',
  check: 'backend',
  severity: 'high',
  checks: 'the serial never goes down between recent versions of the same lineage',
  explanation:
    'Terraform only ever increases the serial; a lower one means an older state was pushed with -force or restored, and changes recorded since are lost from state.',
  iamActions: ['s3:ListBucketVersions', 's3:GetObjectVersion'],
  evaluate(subject) {
    const regression = recentWrites(subject).find(
      ([older, newer]) =>
        older.header.lineage === newer.header.lineage && newer.header.serial < older.header.serial,
    );
    if (!regression) return [];
    const [older, newer] = regression;
    const where = `s3://${subject.bucket}/${subject.key}`;
    return [
      {
        resource: { bucket: subject.bucket, key: subject.key },
        title: `State serial of ${where} went back in version ${versionLabel(newer)}`,
        detail: `Version ${versionLabel(newer)} of ${where} has serial ${newer.header.serial}, lower than ${older.header.serial} in the version before it, ${versionLabel(older)}.`,
        evidence: { before: versionEvidence(older), after: versionEvidence(newer) },
        remediation: restoreRemediation(
          subject,
          `Find out who pushed the older state to ${where}; if it was a mistake, push back version ${versionLabel(older)}.`,
          newer,
          older,
        ),
      },
    ];
  },
};
