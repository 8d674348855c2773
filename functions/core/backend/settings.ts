import type { Observed } from './ports.js';

/** A state bucket's configuration as the backend rules see it (absent settings are `undefined`). */
export interface BucketSettings {
  versioning: Observed<VersioningStatus>;
  /** The default encryption rule; undefined when the bucket has none. */
  encryption: Observed<DefaultEncryption | undefined>;
  publicAccessBlock: Observed<PublicAccessBlock | undefined>;
  /** The bucket policy document (JSON text); undefined when there is none. */
  policy: Observed<string | undefined>;
  /** `BucketOwnerEnforced`, `BucketOwnerPreferred` or `ObjectWriter`; undefined without ownership controls. */
  objectOwnership: Observed<string | undefined>;
  lifecycle: Observed<LifecycleRule[]>;
  /**
   * Whether S3 calls the bucket policy public (GetBucketPolicyStatus IsPublic, AWS's own reading of
   * principals and conditions such as aws:PrincipalOrgID); false without a policy, undefined when
   * the endpoint does not say.
   */
  policyStatus: Observed<boolean | undefined>;
  /** The bucket ACL's grants to everyone (AllUsers) or to any AWS account (AuthenticatedUsers). */
  publicGrants: Observed<PublicGrant[]>;
}

export type BucketSettingName = keyof BucketSettings;

export type VersioningStatus = 'Enabled' | 'Suspended' | 'Disabled';

export interface DefaultEncryption {
  /** `AES256` (SSE-S3), `aws:kms`, `aws:kms:dsse`. */
  algorithm: string;
  kmsKeyId?: string;
  bucketKeyEnabled?: boolean;
}

export interface PublicAccessBlock {
  blockPublicAcls?: boolean;
  ignorePublicAcls?: boolean;
  blockPublicPolicy?: boolean;
  restrictPublicBuckets?: boolean;
}

/** An ACL grant (of a bucket or an object) that S3 counts as public. */
export interface PublicGrant {
  grantee: 'AllUsers' | 'AuthenticatedUsers';
  /** `READ`, `WRITE`, `READ_ACP`, `WRITE_ACP`, `FULL_CONTROL`. */
  permission: string;
}

export interface LifecycleRule {
  id?: string;
  enabled: boolean;
  /** The key prefix the rule is limited to, if any. */
  prefix?: string;
  /** Rules filtered on tags never match state objects: Terraform does not tag them. */
  tagFiltered: boolean;
  /**
   * Object size bounds of the filter (`ObjectSizeGreaterThan`, `ObjectSizeLessThan`, in bytes, both
   * exclusive): the rule applies only to versions of a size between them.
   */
  objectSize?: { greaterThan?: number; lessThan?: number };
  noncurrentVersionExpiration?: { days?: number; newerVersions?: number };
  /**
   * `Expiration` of current versions after `days` or on `date` (YYYY-MM-DD). Not an
   * `ExpiredObjectDeleteMarker` alone, which removes only delete markers left without versions.
   */
  currentExpiration?: { days?: number; date?: string };
  /** `Transitions` of current versions to a class GetObject cannot read until restored (GLACIER, DEEP_ARCHIVE). */
  archivingTransitions?: Array<{ storageClass: string; days?: number; date?: string }>;
  /**
   * The transitions move only objects of at least this many bytes: the configuration's
   * `TransitionDefaultMinimumObjectSize` is `all_storage_classes_128K` (S3's default since September
   * 2024), which keeps smaller objects where they are, and the rule has no size filter of its own
   * (which would take precedence). Expirations are not bounded by it.
   */
  transitionsFromBytes?: number;
}

/** The IAM action that reads each setting (named in a failure when the read is denied). */
export const SETTING_READ_ACTIONS: Record<BucketSettingName, string> = {
  versioning: 's3:GetBucketVersioning',
  encryption: 's3:GetEncryptionConfiguration',
  publicAccessBlock: 's3:GetBucketPublicAccessBlock',
  policy: 's3:GetBucketPolicy',
  objectOwnership: 's3:GetBucketOwnershipControls',
  lifecycle: 's3:GetLifecycleConfiguration',
  policyStatus: 's3:GetBucketPolicyStatus',
  publicGrants: 's3:GetBucketAcl',
};
