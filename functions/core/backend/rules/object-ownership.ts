import { ownershipControlsFix } from '../bucket-fixes.js';
import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation } from '../rule.js';

export const objectOwnershipRule: BucketRule = {
  id: 'backend.object-ownership',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'medium',
  checks: 'ACLs are disabled (object ownership `BucketOwnerEnforced`)',
  explanation:
    'With ACLs enabled, an object ACL can grant access to a state object that the bucket policy never shows; with BucketOwnerEnforced only policies decide.',
  iamActions: ['s3:GetBucketOwnershipControls'],
  reads: ['objectOwnership'],
  evaluate({ bucket, settings }) {
    if (!settings.objectOwnership.ok) return [];
    const ownership = readable(settings.objectOwnership);
    if (ownership === 'BucketOwnerEnforced') return [];
    return [
      {
        resource: { bucket },
        title: `State bucket ${bucket} has ACLs enabled`,
        detail:
          ownership === undefined
            ? `State bucket ${bucket} has no ownership controls, so ACLs are in effect.`
            : `State bucket ${bucket} has object ownership ${ownership}, so ACLs are in effect.`,
        evidence: { objectOwnership: ownership ?? 'none' },
        remediation: bootstrapRemediation(
          `Disable ACLs on ${bucket} (object ownership BucketOwnerEnforced); check first that no reader relies on an object ACL.`,
          ...ownershipControlsFix(bucket),
        ),
      },
    ];
  },
};
