import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCANNER_DOCKERFILE } from '../../infra/driftwatch-stack.js';
import { REPO_ROOT } from '../../infra/paths.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

/** The scan-terraform Lambda of a template: the one function with a container image. */
function scanTerraform(synthesized: Synthesized) {
  const functions = synthesized.template.findResources('AWS::Lambda::Function', {
    Properties: { PackageType: 'Image' },
  });
  const entries = Object.values(functions);
  expect(entries).toHaveLength(1);
  return entries[0]!.Properties as {
    Architectures: string[];
    Environment: { Variables: Record<string, unknown> };
  };
}

let plain: Synthesized;
let mirrored: Synthesized;
beforeAll(() => {
  plain = synthesize();
  mirrored = synthesize({ providerMirror: 'true' });
}, 2 * SYNTH_TIMEOUT_MS);

describe('providers in the deployed scanner', () => {
  it('ScanTerraform runs on x86_64 (lock files from CI carry linux_amd64 h1 checksums); the zip functions stay on ARM64', () => {
    expect(scanTerraform(plain).Architectures).toEqual(['x86_64']);
    const zips = Object.values(
      plain.template.findResources('AWS::Lambda::Function', { Properties: { PackageType: Match.absent() } }),
    );
    expect(zips.length).toBeGreaterThan(0);
    for (const fn of zips)
      expect((fn.Properties as { Architectures: string[] }).Architectures).toEqual(['arm64']);
  });

  it('the image bakes the AWS provider as a warm copy, not as the mirror: providers come from their registries', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, SCANNER_DOCKERFILE), 'utf8');
    expect(dockerfile).toMatch(/^\s+DRIFTWATCH_PROVIDER_MIRROR= \\$/m);
    expect(dockerfile).toMatch(/^\s+DRIFTWATCH_PROVIDER_WARM_CACHE=\/opt\/tf-plugins$/m);
    expect(dockerfile).toContain('(linux/amd64)');
    expect(scanTerraform(plain).Environment.Variables).not.toHaveProperty('DRIFTWATCH_PROVIDER_MIRROR');
    plain.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
  });

  it('-c providerMirror=true: a private bucket served over HTTPS by CloudFront through an origin access control, and ScanTerraform installs from it', () => {
    const { template } = mirrored;
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: 'https-only',
          AllowedMethods: ['GET', 'HEAD'],
        }),
        Origins: [
          Match.objectLike({ OriginPath: '/provider-mirror', OriginAccessControlId: Match.anyValue() }),
        ],
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
      }),
    });
    // The bucket stays private: only CloudFront's service principal, for this distribution, may read.
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'provider-mirror/' }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } },
          }),
        ]),
      }),
    });
    const mirror = scanTerraform(mirrored).Environment.Variables.DRIFTWATCH_PROVIDER_MIRROR;
    expect(JSON.stringify(mirror)).toMatch(
      /"https:\/\/",\{"Fn::GetAtt":\["ProviderMirrorDistribution\w+","DomainName"\]\},"\/"/,
    );
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs.some((name) => name.startsWith('ProviderMirrorUrl'))).toBe(true);
  });

  it('cdk-nag finds nothing unacknowledged with the mirror on', () => {
    const violations = new AwsSolutionsChecks()
      .validateScope(mirrored.app)
      .violations.flatMap((violation) =>
        violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
      );
    expect(violations).toEqual([]);
  });
});

describe('Terraform binaries in the deployed scanner', () => {
  type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

  it('shares downloaded versions through a bucket of their own, which only ScanTerraform reads and writes, under its prefix', () => {
    const cacheBuckets = Object.keys(
      plain.template.findResources('AWS::S3::Bucket', {
        Properties: {
          LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 180 })]) },
        },
      }),
    ).filter((id) => id.startsWith('TerraformBinaryCache'));
    expect(cacheBuckets).toHaveLength(1);
    const bucket = cacheBuckets[0]!;
    expect(JSON.stringify(scanTerraform(plain).Environment.Variables.DRIFTWATCH_BINARY_CACHE_S3)).toContain(
      bucket,
    );

    const policies = Object.entries(plain.template.findResources('AWS::IAM::Policy')) as Array<
      [string, { Properties: { PolicyDocument: { Statement: Statement[] }; Roles: Array<{ Ref: string }> } }]
    >;
    const touching = policies.flatMap(([, policy]) =>
      policy.Properties.PolicyDocument.Statement.filter((statement) =>
        JSON.stringify(statement.Resource).includes(bucket),
      ).map((statement) => ({ roles: policy.Properties.Roles.map((role) => role.Ref), statement })),
    );
    expect(touching.length).toBeGreaterThan(0);
    for (const { roles } of touching)
      expect(roles.every((role) => role.startsWith('ScanTerraformRole'))).toBe(true);
    const objects = touching.find(
      ({ statement }) => statement.Sid === 'TerraformBinaryCacheObjects',
    )!.statement;
    expect(objects.Action).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(JSON.stringify(objects.Resource)).toContain('/terraform-binaries/*');
    const list = touching.find(({ statement }) => statement.Sid === 'TerraformBinaryCacheList')!.statement;
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['terraform-binaries/*'] } });
  });
});
