import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { acknowledgeWildcardResource, nagRef } from '../nag.js';

/** Prefixes of the findings bucket (DESIGN.md "S3 layout"), plus the scratch space of a scan. */
export const FINDINGS_PREFIXES = {
  scans: 'scans/',
  current: 'current/',
  /** LoadRegistry's item lists and the Distributed Maps' result files: needed only while a scan runs. */
  scratch: 'scratch/',
  athenaResults: 'athena-results/',
} as const;

/** Objects smaller than 128 KiB are not transitioned by S3 (the default minimum): small nights stay put. */
const HISTORY_TO_INFREQUENT_ACCESS = Duration.days(30);
const HISTORY_TO_GLACIER_INSTANT = Duration.days(180);
const NONCURRENT_VERSIONS_KEPT = Duration.days(30);

/**
 * Where findings live: a versioned bucket encrypted with a customer-managed key (whoever can read
 * findings can see which resources drifted where), TLS only, never public, ACLs disabled, with
 * server access logs in a separate bucket. History moves to cheaper storage classes; a scan's
 * scratch objects expire after a day.
 */
export class FindingsStorage extends Construct {
  readonly key: kms.Key;
  readonly bucket: s3.Bucket;
  readonly accessLogs: s3.Bucket;

  constructor(scope: Construct, id: string, props: { accessLogRetention?: Duration } = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'driftwatch findings bucket',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Server access logs cannot be delivered to a bucket encrypted with a customer-managed key.
    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      lifecycleRules: [
        {
          id: 'expire-access-logs',
          expiration: props.accessLogRetention ?? Duration.days(365),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket is the access-log destination of the findings bucket; logging it into itself would log its own log deliveries forever.',
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.key,
      // One data key per bucket rather than per object: far fewer KMS requests (and their cost).
      bucketKeyEnabled: true,
      versioned: true,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'findings/',
      lifecycleRules: [
        {
          id: 'history-to-cheaper-storage',
          prefix: FINDINGS_PREFIXES.scans,
          transitions: [
            {
              storageClass: s3.StorageClass.INFREQUENT_ACCESS,
              transitionAfter: HISTORY_TO_INFREQUENT_ACCESS,
            },
            {
              storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL,
              transitionAfter: HISTORY_TO_GLACIER_INSTANT,
            },
          ],
        },
        { id: 'expire-scratch', prefix: FINDINGS_PREFIXES.scratch, expiration: Duration.days(1) },
        {
          id: 'expire-athena-results',
          prefix: FINDINGS_PREFIXES.athenaResults,
          expiration: Duration.days(30),
        },
        {
          // current/ is rewritten every night: its old versions are only an undo window.
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: NONCURRENT_VERSIONS_KEPT,
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * What a pipeline function does with the bucket: read and write objects (conditional writes of
   * `current/` included) and list prefixes. Exact actions, no `s3:*`; deletes only where asked (the
   * notification outbox).
   */
  grantFindingsReadWrite(grantee: iam.IGrantable & IConstruct, options: { delete?: boolean } = {}): void {
    const actions = ['s3:GetObject', 's3:PutObject', ...(options.delete ? ['s3:DeleteObject'] : [])];
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions, resources: [this.bucket.arnForObjects('*')] }),
    );
    this.grantList(grantee);
    this.key.grant(grantee, 'kms:Decrypt', 'kms:GenerateDataKey');
    acknowledgeWildcardResource(
      grantee,
      `${nagRef(this.bucket)}/*`,
      'Findings objects are keyed by scan, date, workspace and finding id, all known only at run time; the grant is limited to this one bucket and to get/put.',
    );
  }

  /** The query API: reads, never writes. */
  grantFindingsRead(grantee: iam.IGrantable & IConstruct): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects('*')] }),
    );
    this.grantList(grantee);
    this.key.grant(grantee, 'kms:Decrypt');
    acknowledgeWildcardResource(
      grantee,
      `${nagRef(this.bucket)}/*`,
      'The query API reads open findings of any workspace (current/*.json), keys known only at run time; read-only, this bucket only.',
    );
  }

  private grantList(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
  }
}
