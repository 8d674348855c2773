import { publicAccessBlockFix, publicAclsFix } from '../bucket-fixes.js';
import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation } from '../rule.js';

/**
 * The bucket is public now, not merely unguarded (that is backend.public-access-block): S3 calls its
 * policy public and RestrictPublicBuckets does not stop it, or its ACL grants to everyone or to any
 * AWS account while ACLs are in effect and IgnorePublicAcls is off. S3's own policy status decides
 * what is public (a `Principal: "*"` narrowed by aws:PrincipalOrgID or aws:SourceVpce is not), so
 * the rule never guesses from the policy text. The account's own public access block (which may
 * stop it too) is not read: the detail says so.
 */
export const publicAccessRule: BucketRule = {
  id: 'backend.public-access',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'critical',
  checks:
    'the bucket is not public: S3 does not call its policy public (unless RestrictPublicBuckets stops it), and its ACL grants nothing to AllUsers or AuthenticatedUsers (unless ACLs are disabled or IgnorePublicAcls is on)',
  explanation:
    'A public state bucket lets anyone (with AuthenticatedUsers, any AWS account) do what its policy or ACL allows: list the state objects, read them and every secret they hold, or overwrite them; the settings that would stop it are off, so the exposure is live, not a missing guard.',
  iamActions: ['s3:GetBucketPolicyStatus', 's3:GetBucketAcl'],
  reads: ['policyStatus', 'publicGrants', 'publicAccessBlock', 'objectOwnership'],
  evaluate({ bucket, settings }) {
    // Each part is judged only when everything it depends on was read (failed reads are reported).
    const block = settings.publicAccessBlock.ok ? { value: readable(settings.publicAccessBlock) } : undefined;
    const publicPolicy =
      block !== undefined &&
      readable(settings.policyStatus) === true &&
      block.value?.restrictPublicBuckets !== true;
    const grants =
      block !== undefined &&
      settings.objectOwnership.ok &&
      readable(settings.objectOwnership) !== 'BucketOwnerEnforced' &&
      block.value?.ignorePublicAcls !== true
        ? (readable(settings.publicGrants) ?? [])
        : [];
    if (!publicPolicy && grants.length === 0) return [];
    const grantNames = grants.map((grant) => `${grant.grantee} ${grant.permission}`);
    const parts = [
      ...(publicPolicy
        ? [
            'its bucket policy grants public access (S3 policy status IsPublic) and RestrictPublicBuckets is off',
          ]
        : []),
      ...(grants.length > 0
        ? [
            `its ACL grants ${grants.map((grant) => `${grant.grantee} ${grant.permission} (${GRANTED[grant.permission] ?? 'a permission S3 names so'})`).join(', ')} while ACLs are in effect and IgnorePublicAcls is off`,
          ]
        : []),
    ];
    // A public policy alone needs no ACL steps (and a bucket with other grants, log delivery, would
    // lose them); public grants need the ACL reset and disabled (ownershipControlsFix says in which order).
    const aclSteps = grants.length > 0;
    const [terraform, cli] = aclSteps ? publicAclsFix(bucket) : publicAccessBlockFix(bucket);
    const then = [
      ...(publicPolicy
        ? ['remove the public statement of its policy (aws s3api get-bucket-policy shows it)']
        : []),
      ...(aclSteps
        ? ['reset its ACL to private and disable ACLs (object ownership BucketOwnerEnforced)']
        : []),
    ];
    return [
      {
        resource: { bucket },
        title: `State bucket ${bucket} is public`,
        detail: `State bucket ${bucket} is public: ${parts.join('; ')} (unless the account-level public access block stops it, which driftwatch does not read).`,
        evidence: {
          publicPolicy,
          publicGrants: grantNames,
          restrictPublicBuckets: block?.value?.restrictPublicBuckets === true,
          ignorePublicAcls: block?.value?.ignorePublicAcls === true,
          objectOwnership: readable(settings.objectOwnership) ?? 'none',
        },
        remediation: bootstrapRemediation(
          `Stop public access to ${bucket} now (all four public access block settings on), then ${then.join(', then ')}, and, if its states could be read, rotate the secrets they hold.`,
          terraform,
          cli,
        ),
      },
    ];
  },
};

/** What a bucket ACL permission lets the grantee do with the bucket (object ACLs govern reading objects). */
const GRANTED: Readonly<Record<string, string>> = {
  READ: 'list the state objects',
  WRITE: 'write, overwrite and delete state objects',
  READ_ACP: "read the bucket's ACL",
  WRITE_ACP: "change the bucket's ACL, so grant itself more",
  FULL_CONTROL: 'all of these',
};
