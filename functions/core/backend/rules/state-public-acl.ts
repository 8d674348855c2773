import { publicAclsFix } from '../bucket-fixes.js';
import { bootstrapRemediation, type StateRule, type StateVersionFacts } from '../rule.js';
import type { PublicGrant } from '../settings.js';

/**
 * A state object whose own ACL makes it public, in a bucket that is not: an object ACL applies to its
 * object (one version of it) alone, so backend.public-access never sees it. The S3 backend writes one
 * on every state when its `acl` argument is set (`acl = "public-read"`), and `aws s3 cp --acl` does
 * too. Versions keep the ACL they were written with: removing `acl` later leaves the earlier states,
 * and their secrets, public. The ACLs are read (check-backend.ts) only where ACLs are in effect.
 */
export const statePublicAclRule: StateRule = {
  id: 'state.public-acl',
  target: 'state',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'critical',
  checks:
    'the object ACL of each recent version of each registered state object grants nothing to AllUsers or AuthenticatedUsers (read only where object ACLs are in effect: object ownership is not BucketOwnerEnforced and IgnorePublicAcls is off; medium when a grant only reads the ACL)',
  explanation:
    'An object ACL applies to its object alone: a state can be public in a bucket that is not, and anyone (with AuthenticatedUsers, anyone with an AWS account) can download it with every secret it holds. The S3 backend sets the ACL of its `acl` argument on every state it writes.',
  iamActions: ['s3:GetObjectAcl', 's3:GetObjectVersionAcl'],
  reads: ['objectOwnership', 'publicAccessBlock'],
  evaluate(subject) {
    const exposed = subject.versions.filter((version) => (version.publicGrants?.length ?? 0) > 0);
    if (exposed.length === 0) return [];
    const where = `s3://${subject.bucket}/${subject.key}`;
    const current = exposed[0] === subject.versions[0];
    const earlier = exposed.length - (current ? 1 : 0);
    const earlierText = `${earlier} earlier version${earlier === 1 ? '' : 's'}`;
    const which = current
      ? `the current version${earlier > 0 ? ` and ${earlierText}` : ''} of ${where}`
      : `${earlierText} of ${where} (not the current one: removing the backend's \`acl\` changes only the states written after it)`;
    const grants = uniqueGrants(exposed);
    // READ_ACP alone shows the ACL, not the state: the rest lets anyone read it, or grant itself that.
    const readable = grants.some((grant) => grant.permission !== 'READ_ACP');
    const [terraform, cli] = publicAclsFix(subject.bucket);
    return [
      {
        resource: { bucket: subject.bucket, key: subject.key },
        ...(readable ? {} : { severity: 'medium' as const }),
        title: current
          ? `State ${where} is public through its object ACL`
          : `Earlier versions of state ${where} are public through their object ACLs`,
        detail: `The object ACL of ${which} grants ${grants.map(describeGrant).join(', ')}, while object ACLs are in effect and IgnorePublicAcls is off (unless the account-level public access block stops it, which driftwatch does not read). driftwatch reads the ACLs of the ${subject.versions.length} most recent versions; older ones may be public too.`,
        evidence: {
          publicVersions: exposed.map((version) => ({
            versionId: version.versionId ?? null,
            lastModified: version.lastModified ?? null,
            current: version === subject.versions[0],
            grants: (version.publicGrants ?? []).map(grantName),
          })),
          versionsRead: subject.versions.length,
        },
        remediation: bootstrapRemediation(
          `Stop public access to ${where} now: turn IgnorePublicAcls on (with the rest of the public access block), disable ACLs (object ownership BucketOwnerEnforced voids the ACL of every object and version), remove \`acl\` from the backend "s3" blocks that write this state${readable ? ', and rotate the secrets the state holds: anyone may have read them' : ''}.`,
          terraform,
          cli,
          [
            'Remove the `acl` argument from the `backend "s3"` block of every configuration that writes this state, then run `terraform init -reconfigure`: the S3 backend sets that ACL on every state it writes.',
            ...(readable
              ? [
                  'Rotate the secrets the state holds (passwords, keys and tokens in resource attributes and outputs): every version that was public could be read.',
                ]
              : []),
          ],
        ),
      },
    ];
  },
};

/** What an object ACL permission lets the grantee do with that object (WRITE does not apply to objects). */
const GRANTED: Readonly<Record<string, string>> = {
  READ: 'download the state and every secret in it',
  READ_ACP: "read the object's ACL",
  WRITE_ACP: "change the object's ACL, so grant itself READ",
  FULL_CONTROL: 'all of these',
};

function grantName(grant: PublicGrant): string {
  return `${grant.grantee} ${grant.permission}`;
}

function describeGrant(grant: PublicGrant): string {
  return `${grantName(grant)} (${GRANTED[grant.permission] ?? 'a permission S3 names so'})`;
}

function uniqueGrants(versions: readonly StateVersionFacts[]): PublicGrant[] {
  const byName = new Map<string, PublicGrant>();
  for (const version of versions)
    for (const grant of version.publicGrants ?? []) byName.set(grantName(grant), grant);
  return [...byName.values()];
}
