import type { StateRule, StateSubject, StateVersionFacts, Violation } from '../rule.js';
import { shellWord } from '../rule.js';
import { restoreRemediation, versionEvidence } from './state-history.js';

export const stateUnreadableRule: StateRule = {
  id: 'state.unreadable',
  target: 'state',
  kind: 'state-integrity',
  check: 'backend',
  severity: 'high',
  checks:
    'the current version of each registered state object is valid state JSON (format 4, or formats 1-3 of Terraform 0.11 and older, which Terraform still reads) and not a delete marker',
  explanation:
    'Terraform cannot plan or apply against a state it cannot read, and a truncated or foreign object in its place usually means a failed write or a manual upload.',
  iamActions: ['s3:ListBucketVersions', 's3:GetObject', 's3:GetObjectVersion'],
  evaluate(subject) {
    const current = subject.versions[0];
    if (current?.headerUnknown !== undefined) return [headerNotRead(subject, current)];
    if (current?.unreadable === undefined) return [];
    if (current.archived !== undefined) return [archivedState(subject, current, current.archived)];
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
 * The current version is in an archive storage class (a lifecycle transition that reached live state,
 * an upload with --storage-class): valid state, perhaps, but S3 serves it to nobody until it is
 * restored, so every plan and apply of the workspace fails. The fix is a restore, not a push of an
 * older version, and nobody wrote anything wrong.
 */
function archivedState(subject: StateSubject, current: StateVersionFacts, storageClass: string): Violation {
  const where = `s3://${subject.bucket}/${subject.key}`;
  const bucket = shellWord(subject.bucket);
  const key = shellWord(subject.key);
  const version =
    current.versionId && current.versionId !== 'null' ? ` --version-id ${shellWord(current.versionId)}` : '';
  const glacier = /^(GLACIER|DEEP_ARCHIVE)$/.test(storageClass);
  const object = shellWord(`s3://${subject.bucket}/${subject.key}`);
  return {
    resource: { bucket: subject.bucket, key: subject.key },
    title: `State ${where} is archived (${storageClass}): Terraform cannot read it`,
    detail: `${where}: ${current.unreadable}.`,
    evidence: { reason: current.unreadable, storageClass, current: versionEvidence(current) },
    explanation:
      'Every plan and apply of the workspace fails until the state is restored (S3 answers InvalidObjectState), and a lifecycle rule that archived it will archive the next quiet state too.',
    remediation: {
      summary: `Restore ${where}, make it a readable object again, and stop what archived it.`,
      steps: [
        `Restore it (hours for ${storageClass}; Expedited is faster for GLACIER):\naws s3api restore-object --bucket ${bucket} --key ${key}${version} --restore-request ${glacier ? "'Days=7,GlacierJobParameters={Tier=Standard}'" : "'{}'"}`,
        glacier
          ? `Once restored (aws s3api head-object shows Restore: ongoing-request="false"), copy it onto itself in a readable class, which keeps its content:\naws s3 cp ${object} ${object} --storage-class STANDARD`
          : 'Once restored, Intelligent-Tiering serves it again from its Frequent Access tier.',
        'Narrow the lifecycle rule that moved it (backend.lifecycle-removes-state names it), or find who uploaded it with --storage-class.',
        'driftwatch never writes state: the restore is yours to decide and run.',
      ],
    },
  };
}

/**
 * The current version's header was not read though it may be valid state: its members are further
 * into the object than driftwatch reads (not in Terraform's order), or it is in a format of Terraform
 * 0.11 or older without a usable lineage. No alert, and no lineage or serial invented: an info
 * finding says what was not checked and how Terraform would write the state so that it is.
 */
function headerNotRead(subject: StateSubject, current: StateVersionFacts): Violation {
  const where = `s3://${subject.bucket}/${subject.key}`;
  const legacy = current.legacyFormat === true;
  return {
    resource: { bucket: subject.bucket, key: subject.key },
    severity: 'info',
    title: `Lineage and serial of ${where} not checked: ${legacy ? 'it is in a state format of Terraform 0.11 or older' : 'its header is not where Terraform writes it'}`,
    detail: `The current version of ${where} was not checked for lineage or serial changes: ${current.headerUnknown}.`,
    evidence: { reason: current.headerUnknown, current: versionEvidence(current) },
    explanation:
      'Terraform reads such a state as it is; only the lineage and serial checks of driftwatch are left out.',
    remediation: legacy
      ? {
          summary: `Let Terraform write ${where} in today's format, or accept that its lineage and serial are not checked.`,
          steps: [
            'Nothing has been applied to this workspace since Terraform 0.11: upgrade its configuration (through 0.12, as the Terraform upgrade guides say) in review.',
            'The next reviewed `terraform apply` from the workspace writes the state in format 4; driftwatch checks it from then on.',
          ],
        }
      : {
          summary: `Let Terraform rewrite ${where} in its own order, or accept that its lineage and serial are not checked.`,
          steps: [
            'Find out what wrote the state with its members reordered (a tool that sorts JSON keys, a manual edit).',
            'The next `terraform apply` from the workspace writes the state again, header first; driftwatch checks it from then on.',
          ],
        },
  };
}
