import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

/** How long an overwritten or deleted copy stays restorable (and visible, should a writer misbehave). */
const NONCURRENT_VERSIONS_KEPT = Duration.days(7);

/**
 * A private bucket of copies that can be fetched again (provider mirror, Terraform binaries): no public
 * access, TLS only, S3-managed encryption, ACLs off, server access logs, versioned with old versions
 * expiring after a week (the backend rules driftwatch applies to state buckets, applied to its own:
 * test/infra/own-buckets.test.ts), and removed with the stack, since nothing in it is the only copy.
 */
export function refillableBucket(
  scope: Construct,
  id: string,
  props: { accessLogs: s3.IBucket; logPrefix: string; lifecycleRules?: s3.LifecycleRule[] },
): s3.Bucket {
  return new s3.Bucket(scope, id, {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: true,
    serverAccessLogsBucket: props.accessLogs,
    serverAccessLogsPrefix: props.logPrefix,
    lifecycleRules: [
      ...(props.lifecycleRules ?? []),
      { id: 'expire-noncurrent', noncurrentVersionExpiration: NONCURRENT_VERSIONS_KEPT },
    ],
    removalPolicy: RemovalPolicy.DESTROY,
  });
}
