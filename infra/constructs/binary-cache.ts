import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource, nagRef } from '../nag.js';
import { refillableBucket } from './refillable-bucket.js';

/** Where ScanTerraform keeps the Terraform/OpenTofu release files it downloaded. */
export const BINARY_CACHE_PREFIX = 'terraform-binaries/';

export interface BinaryCacheProps {
  /** Server access logs of the cache bucket. */
  accessLogs: s3.IBucket;
}

/**
 * The shared copy of Terraform and OpenTofu releases (zip, SHA256SUMS, signature) for the scanner's
 * containers, whose /tmp starts empty: a new container takes a version from here instead of the
 * releases site. Its own bucket, not a prefix of the findings bucket, because the scanner writes here
 * and the scanner's credentials are within reach of the providers it runs (docs/security.md): nothing
 * in this bucket is trusted, every file is verified against the signed SHA256SUMS again when read back
 * (docs/terraform-versions.md), and nothing here is the only copy.
 */
export class BinaryCache extends Construct {
  readonly bucket: s3.Bucket;
  /** What DRIFTWATCH_BINARY_CACHE_S3 takes: s3://<bucket>/terraform-binaries/ */
  readonly uri: string;

  constructor(scope: Construct, id: string, props: BinaryCacheProps) {
    super(scope, id);
    this.bucket = refillableBucket(this, 'Bucket', {
      accessLogs: props.accessLogs,
      logPrefix: BINARY_CACHE_PREFIX,
      // Versions no workspace pins any more fall out; the next scan that needs one downloads it again.
      lifecycleRules: [{ id: 'expire-unused-releases', expiration: Duration.days(180) }],
    });
    this.uri = `s3://${this.bucket.bucketName}/${BINARY_CACHE_PREFIX}`;
  }

  /** Get and put under the prefix, and list it (the cache lists what versions it holds). */
  grantReadWrite(role: iam.IRole): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'TerraformBinaryCacheObjects',
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.bucket.arnForObjects(`${BINARY_CACHE_PREFIX}*`)],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'TerraformBinaryCacheList',
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${BINARY_CACHE_PREFIX}*`] } },
      }),
    );
    acknowledgeWildcardResource(
      role,
      `${nagRef(this.bucket)}/${BINARY_CACHE_PREFIX}*`,
      'Release files are keyed by engine, version and platform, known only when a workspace asks for one; the grant is this one prefix of the scanner-only cache bucket, whose contents are verified on every read.',
    );
  }
}
