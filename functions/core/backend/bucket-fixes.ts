import { hcl, shellWord } from './rule.js';

/**
 * The fix of a state bucket's guard as bootstrapRemediation takes it: Terraform for the configuration
 * that manages the bucket, and the AWS CLI call. Shared by the rules that ask for the same guard.
 */
export type BucketFix = [terraform: string, cli: string];

/** All four S3 public access block settings on. */
export function publicAccessBlockFix(bucket: string): BucketFix {
  return [
    [
      `resource "aws_s3_bucket_public_access_block" "state" {`,
      `  bucket                  = ${hcl(bucket)}`,
      '  block_public_acls       = true',
      '  ignore_public_acls      = true',
      '  block_public_policy     = true',
      '  restrict_public_buckets = true',
      '}',
    ].join('\n'),
    `aws s3api put-public-access-block --bucket ${shellWord(bucket)} --public-access-block-configuration BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true`,
  ];
}

/**
 * ACLs disabled: object ownership BucketOwnerEnforced. S3 refuses it while the bucket ACL grants to
 * anyone but the owner (InvalidBucketAclWithObjectOwnership), so the ACL goes back to private first:
 * the CLI resets it, and Terraform cannot (destroying an aws_s3_bucket_acl leaves the grants), so its
 * snippet says to. Resetting an ACL that is already private changes nothing.
 */
export function ownershipControlsFix(bucket: string): BucketFix {
  return [
    [
      '# First set the bucket ACL to private (acl = "private" in its aws_s3_bucket_acl, or',
      `# aws s3api put-bucket-acl --bucket ${shellWord(bucket)} --acl private): S3 refuses`,
      '# BucketOwnerEnforced while the ACL grants to anyone but the owner.',
      `resource "aws_s3_bucket_ownership_controls" "state" {`,
      `  bucket = ${hcl(bucket)}`,
      '  rule {',
      '    object_ownership = "BucketOwnerEnforced"',
      '  }',
      '}',
    ].join('\n'),
    [
      `aws s3api put-bucket-acl --bucket ${shellWord(bucket)} --acl private`,
      `aws s3api put-bucket-ownership-controls --bucket ${shellWord(bucket)} --ownership-controls 'Rules=[{ObjectOwnership=BucketOwnerEnforced}]'`,
    ].join('\n'),
  ];
}

/**
 * Public ACLs stopped now (the public access block) and ACLs disabled for good (object ownership
 * BucketOwnerEnforced, which voids the ACL of every object and version), in that order.
 */
export function publicAclsFix(bucket: string): BucketFix {
  const [blockTerraform, blockCli] = publicAccessBlockFix(bucket);
  const [ownershipTerraform, ownershipCli] = ownershipControlsFix(bucket);
  return [`${blockTerraform}\n\n${ownershipTerraform}`, `${blockCli}\n${ownershipCli}`];
}
