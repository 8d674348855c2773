import type { StateRule } from '../rule.js';
import {
  type ReadableVersion,
  recentWrites,
  restoreRemediation,
  versionEvidence,
  versionLabel,
} from './state-history.js';

export const stateLineageChangedRule: StateRule = {
  id: 'state.lineage-changed',
  target: 'state',
  kind: 'state-integrity',
  check: 'backend',
  severity: 'high',
  checks: 'the lineage stays the same across the recent versions of each registered state object',
  explanation:
    'A new lineage means another state replaced this one (`terraform state push -force` of a different workspace, a restore from elsewhere): resources of the old state may now be unmanaged.',
  iamActions: ['s3:ListBucketVersions', 's3:GetObjectVersion'],
  evaluate(subject) {
    const change = recentWrites(subject).find(
      ([older, newer]) => older.header.lineage !== newer.header.lineage && !replacedEmptyState(older, newer),
    );
    if (!change) return [];
    const [older, newer] = change;
    const where = `s3://${subject.bucket}/${subject.key}`;
    return [
      {
        resource: { bucket: subject.bucket, key: subject.key },
        title: `State lineage of ${where} changed in version ${versionLabel(newer)}`,
        detail: `Version ${versionLabel(newer)} of ${where} has lineage ${newer.header.lineage}; the version before it, ${versionLabel(older)}, had ${older.header.lineage}.`,
        evidence: { before: versionEvidence(older), after: versionEvidence(newer) },
        remediation: restoreRemediation(
          subject,
          `Find out why ${where} got another lineage; if it was a mistake, push back version ${versionLabel(older)}.`,
          newer,
          older,
        ),
      },
    ];
  },
};

/**
 * The state was deleted while it held no resources, and written anew: `terraform workspace delete`
 * (which refuses a workspace whose state holds resources, unless forced) and `terraform workspace
 * new` of the same name, as short-lived environments do. A new lineage is what a new state has.
 */
function replacedEmptyState(older: ReadableVersion, newer: ReadableVersion): boolean {
  return newer.recreated === true && older.header.resources === 0;
}
