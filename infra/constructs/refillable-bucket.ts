import { RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

/**
 * A private bucket of copies that can be fetched again (provider mirror, Terraform binaries): no public
 * access, TLS only, S3-managed encryption, ACLs off, server access logs, and removed with the stack,
 * since nothing in it is the only copy.
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
    serverAccessLogsBucket: props.accessLogs,
    serverAccessLogsPrefix: props.logPrefix,
    ...(props.lifecycleRules ? { lifecycleRules: props.lifecycleRules } : {}),
    removalPolicy: RemovalPolicy.DESTROY,
  });
}
