import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { refillableBucket } from './refillable-bucket.js';

/** The bucket prefix CloudFront serves; `driftwatch providers mirror --to s3://<bucket>/provider-mirror`. */
export const PROVIDER_MIRROR_PREFIX = 'provider-mirror';

export interface ProviderMirrorProps {
  /** Server access logs of the mirror bucket (every fetch CloudFront makes through its OAC). */
  accessLogs: s3.IBucket;
}

/**
 * Terraform's provider network mirror for accounts without internet egress: a private bucket, filled
 * by `driftwatch providers mirror`, served over HTTPS by CloudFront through an origin access control.
 * CloudFront rather than an API Gateway S3 proxy: provider archives are 100-200 MB and API Gateway
 * answers at most 10 MB. Terraform requires https for a network mirror, and CloudFront's own
 * certificate gives it without a domain. The mirror holds public providers only: anyone with the URL
 * can read it (docs/providers.md says what that reveals and how to restrict it).
 */
export class ProviderMirror extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** What `providerMirror` / DRIFTWATCH_PROVIDER_MIRROR takes: https://<distribution>/ */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ProviderMirrorProps) {
    super(scope, id);
    // Refilled by `driftwatch providers mirror` at any time.
    this.bucket = refillableBucket(this, 'Bucket', {
      accessLogs: props.accessLogs,
      logPrefix: `${PROVIDER_MIRROR_PREFIX}/`,
    });
    // index.json changes when a version is added: a short TTL lets scans see it within minutes, while
    // archives (immutable, named by version and platform) are still served from the edge.
    const cachePolicy = new cloudfront.CachePolicy(this, 'CachePolicy', {
      comment: 'driftwatch provider mirror: documents change when versions are added',
      defaultTtl: Duration.minutes(5),
      minTtl: Duration.seconds(0),
      maxTtl: Duration.hours(1),
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'driftwatch provider network mirror',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originPath: `/${PROVIDER_MIRROR_PREFIX}`,
          originAccessLevels: [cloudfront.AccessLevel.READ],
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy,
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    });
    this.url = `https://${this.distribution.distributionDomainName}/`;
    new CfnOutput(this, 'Url', {
      description:
        'providerMirror: the HTTPS provider network mirror (fill it with driftwatch providers mirror)',
      value: this.url,
    });
    new CfnOutput(this, 'Target', {
      description: 'driftwatch providers mirror --to',
      value: `s3://${this.bucket.bucketName}/${PROVIDER_MIRROR_PREFIX}`,
    });

    const acknowledge = (rule: string, reason: string) =>
      Validations.of(this.distribution).acknowledge({ id: rule, reason });
    acknowledge(
      'AwsSolutions-CFR1',
      'Providers are public artifacts fetched by the scanner from wherever the stack runs: no country to exclude.',
    );
    acknowledge(
      'AwsSolutions-CFR2',
      'A read-only mirror of public provider packages; a web ACL can be attached when the URL must be restricted (docs/providers.md).',
    );
    acknowledge(
      'AwsSolutions-CFR3',
      'Every fetch reaches the bucket through the origin access control and is in its S3 server access logs; CloudFront standard logs would need ACLs on the log bucket.',
    );
    acknowledge(
      'AwsSolutions-CFR4',
      "CloudFront's default certificate (no domain to configure) fixes the viewer security policy; Terraform (Go) negotiates TLS 1.2 or newer itself. A custom domain can set TLSv1.2_2021.",
    );
  }
}
