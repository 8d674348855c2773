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

/** ACLs disabled: object ownership BucketOwnerEnforced. */
export function ownershipControlsFix(bucket: string): BucketFix {
  return [
    [
      `resource "aws_s3_bucket_ownership_controls" "state" {`,
      `  bucket = ${hcl(bucket)}`,
      '  rule {',
      '    object_ownership = "BucketOwnerEnforced"',
      '  }',
      '}',
    ].join('\n'),
    `aws s3api put-bucket-ownership-controls --bucket ${shellWord(bucket)} --ownership-controls 'Rules=[{ObjectOwnership=BucketOwnerEnforced}]'`,
  ];
}
