import type { Remediation } from '../../findings/model.js';
import { type StateSubject, type StateVersionFacts, shellWord } from '../rule.js';
import type { StateHeader } from '../state-document.js';

/** Helpers shared by the state rules (not a rule). */

export type ReadableVersion = StateVersionFacts & { header: StateHeader };

/** Consecutive pairs of readable versions, most recent pair first: `[older, newer]`. */
export function recentWrites(subject: StateSubject): Array<[ReadableVersion, ReadableVersion]> {
  const readable = subject.versions.filter(
    (version): version is ReadableVersion => version.header !== undefined,
  );
  const pairs: Array<[ReadableVersion, ReadableVersion]> = [];
  for (let index = 0; index + 1 < readable.length; index++)
    pairs.push([readable[index + 1]!, readable[index]!]);
  return pairs;
}

export function versionLabel(version: StateVersionFacts): string {
  return version.versionId ?? 'current';
}

export function versionEvidence(version: StateVersionFacts): Record<string, unknown> {
  return {
    versionId: version.versionId ?? null,
    lastModified: version.lastModified ?? null,
    serial: version.header?.serial ?? null,
    lineage: version.header?.lineage ?? null,
    terraformVersion: version.header?.terraformVersion ?? null,
    ...(version.encrypted ? { encrypted: true } : {}),
  };
}

/**
 * Find who wrote the version, then (if it was a mistake) put the right one back through Terraform,
 * from the workspace, after review. Never an automatic restore.
 */
export function restoreRemediation(
  subject: StateSubject,
  summary: string,
  suspect: StateVersionFacts,
  good: StateVersionFacts | undefined,
): Remediation {
  const bucket = shellWord(subject.bucket);
  const key = shellWord(subject.key);
  const goodId = good?.versionId ?? '<good version id>';
  return {
    summary,
    steps: [
      suspect.deleted
        ? `Find out who deleted the state (delete marker ${versionLabel(suspect)}${suspect.lastModified ? ` at ${suspect.lastModified}` : ''}: pipeline runs, DeleteObject in CloudTrail S3 data events) and whether it was intended.`
        : `Find out who wrote ${writtenVersion(suspect)}${suspect.lastModified ? ` at ${suspect.lastModified}` : ''} (pipeline runs, CloudTrail S3 data events) and whether it was intended.`,
      `Compare the versions with the AWS CLI:\naws s3api list-object-versions --bucket ${bucket} --prefix ${key} --max-items 10\naws s3api get-object --bucket ${bucket} --key ${key} --version-id ${shellWord(goodId)} good.tfstate`,
      `If it was a mistake, restore through Terraform from the workspace, after review (-force only when the good state has a lower serial or another lineage):\nterraform show good.tfstate\nterraform state push -force good.tfstate\nterraform plan`,
      'driftwatch never writes state: the restore is yours to decide and run.',
    ],
  };
}

/**
 * The version a person looks up, in words: S3 gives an object written while the bucket's versioning
 * was off (never enabled, or suspended) the version id `null`, which reads as no version at all.
 */
function writtenVersion(version: StateVersionFacts): string {
  if (version.versionId === undefined) return 'the current version';
  if (version.versionId === 'null')
    return "the version written while the bucket's versioning was off (version id null)";
  return `version ${version.versionId}`;
}
