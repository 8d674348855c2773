import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { acknowledgeWildcardResource, nagRef } from '../nag.js';

/** Prefixes of the findings bucket (DESIGN.md "S3 layout"), plus the scratch space of a scan. */
export const FINDINGS_PREFIXES = {
  /** History: every finding of every scan (Athena's table) and each scan's summary. Write-once. */
  scans: 'scans/',
  current: 'current/',
  /**
   * LoadRegistry's item lists, the Distributed Maps' result files, the scanners' pending records and
   * run records: needed only while a scan runs.
   */
  scratch: 'scratch/',
  athenaResults: 'athena-results/',
  /** ObserveLocks' first look, read by ConfirmLocks. */
  locks: 'locks/',
  /** The digest outbox, claims and sent markers. */
  notifications: 'notifications/',
  quarantine: 'quarantine/',
  suppressions: 'suppressions/',
  /** The nightly HTML reports (WriteReports), linked from the digests; they expire. */
  reports: 'reports/',
} as const;

/** What one function may do with the findings bucket, prefix by prefix (infra/findings-access.ts). */
export interface FindingsGrant {
  read: readonly string[];
  write: readonly string[];
  delete: readonly string[];
}

/** Objects smaller than 128 KiB are not transitioned by S3 (the default minimum): small nights stay put. */
const HISTORY_TO_INFREQUENT_ACCESS = Duration.days(30);
const HISTORY_TO_GLACIER_INSTANT = Duration.days(180);
const NONCURRENT_VERSIONS_KEPT = Duration.days(30);
const REPORTS_KEPT = Duration.days(35);
const SCRATCH_KEPT = Duration.days(1);
/** Every prefix but history: their old versions expire. */
const NONCURRENT_EXPIRING = Object.values(FINDINGS_PREFIXES).filter(
  (prefix) => prefix !== FINDINGS_PREFIXES.scans,
);
/** Deletes of an object or of one of its versions: denied on history for everyone. */
export const DENIED_HISTORY_DELETES = ['s3:DeleteObject', 's3:DeleteObjectVersion'];

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
        { id: 'expire-scratch', prefix: FINDINGS_PREFIXES.scratch, expiration: SCRATCH_KEPT },
        // A digest links to its night's report for hours; a month of reports is plenty to look back.
        { id: 'expire-reports', prefix: FINDINGS_PREFIXES.reports, expiration: REPORTS_KEPT },
        {
          id: 'expire-athena-results',
          prefix: FINDINGS_PREFIXES.athenaResults,
          expiration: Duration.days(30),
        },
        // current/ is rewritten every night: its old versions are only an undo window. History
        // (scans/) keeps every version: no rule expires them and the bucket policy denies deleting
        // them, so a history file that had to be rewritten still shows what it said before.
        ...NONCURRENT_EXPIRING.map((prefix) => ({
          id: `expire-noncurrent-${prefix.replace(/\/$/, '')}`,
          prefix,
          // Scratch data (pending records, item lists, Map results) is gone a day after its scan,
          // its versions included: "expires after a day" must not mean a month in the version history.
          noncurrentVersionExpiration:
            prefix === FINDINGS_PREFIXES.scratch ? SCRATCH_KEPT : NONCURRENT_VERSIONS_KEPT,
        })),
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * History cannot be rewritten: the bucket policy denies deleting any object or version under
   * `scans/` to every principal, and writing there to every principal but `writer` (RecordFindings).
   * A rewrite by the writer (a rerun after a crash, a corrupt file replaced) is a new version; the
   * old one stays, since no lifecycle rule expires history versions. Chosen over Object Lock: see
   * docs/security.md ("History immutability").
   */
  protectHistory(writer: iam.IRole): void {
    const history = this.bucket.arnForObjects(`${FINDINGS_PREFIXES.scans}*`);
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyHistoryDeletes',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: DENIED_HISTORY_DELETES,
        resources: [history],
      }),
    );
    this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyHistoryWritesButRecordFindings',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [history],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': writer.roleArn } },
      }),
    );
  }

  /**
   * Exactly the prefixes a function reads, writes and deletes (infra/findings-access.ts); no `s3:*`,
   * no whole-bucket object grant. Listing is granted on the bucket without a prefix condition: S3
   * answers a GetObject of a missing key with 404 only to a caller who may list (403 otherwise), and
   * the stores read "absent" as a normal answer (a workspace's first scan).
   */
  grantFindings(grantee: iam.IGrantable & IConstruct, access: FindingsGrant): void {
    const objects = (prefixes: readonly string[]) =>
      prefixes.map((prefix) => this.bucket.arnForObjects(`${prefix}*`));
    const statements: Array<[string, string, readonly string[]]> = [
      ['ReadFindings', 's3:GetObject', access.read],
      ['WriteFindings', 's3:PutObject', access.write],
      ['DeleteFindings', 's3:DeleteObject', access.delete],
    ];
    for (const [sid, action, prefixes] of statements) {
      if (prefixes.length === 0) continue;
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ sid, actions: [action], resources: objects(prefixes) }),
      );
    }
    this.grantList(grantee);
    const keyActions = access.write.length > 0 ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'];
    this.key.grant(grantee, ...keyActions);
    for (const prefix of new Set([...access.read, ...access.write, ...access.delete])) {
      acknowledgeWildcardResource(
        grantee,
        `${nagRef(this.bucket)}/${prefix}*`,
        `Objects under ${prefix} are keyed by scan, date, scope or digest id, known only at run time; the grant is this one prefix of this one bucket, for the exact actions the function's code path uses.`,
      );
    }
  }

  private grantList(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
  }
}
