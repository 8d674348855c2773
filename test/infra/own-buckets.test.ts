import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsBackendReader } from '../../functions/adapters/backend/aws-backend-reader.js';
import { BUCKET_RULES } from '../../functions/core/backend/rules/index.js';
import { s3ServiceError } from '../helpers/backend.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

/**
 * driftwatch's own buckets hold findings (which resources drifted where, redacted values), reports
 * and the scanner's caches: they must pass the backend rules driftwatch applies to the state buckets
 * it scans. Each bucket's synthesized configuration is served to the real backend reader (the S3
 * adapter CheckBackend runs) through a mocked S3, and every bucket rule evaluates what it read.
 */

/**
 * Whether each bucket must use SSE-KMS (the registry's `requireKms`), by logical-id prefix. Every
 * bucket of the template must be listed: a new bucket is classified here, never skipped.
 */
const BUCKETS: Record<string, { expectKms: boolean; why: string }> = {
  FindingsBucket: { expectKms: true, why: 'findings, history, reports, scratch: state-derived data' },
  FindingsAccessLogs: { expectKms: false, why: 'S3 delivers server access logs only to SSE-S3 buckets' },
  TerraformBinaryCache: {
    expectKms: false,
    why: 'public Terraform/OpenTofu release files, verified on read',
  },
  ProviderMirror: { expectKms: false, why: 'public provider packages' },
};

const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';

type Resource = { Type: string; Properties: Record<string, unknown> };

/** A deployed name for each bucket of the template, and the intrinsics resolved as CloudFormation would. */
function resolver(resources: Record<string, Resource>) {
  const bucketName = (id: string) => `dw-${id.toLowerCase()}`;
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    if ('Ref' in record) {
      const ref = String(record.Ref);
      if (ref === 'AWS::Partition') return 'aws';
      if (ref === 'AWS::AccountId') return ACCOUNT;
      if (ref === 'AWS::Region') return REGION;
      if (resources[ref]?.Type === 'AWS::S3::Bucket') return bucketName(ref);
      return `ref-${ref}`;
    }
    if ('Fn::GetAtt' in record) {
      const [id, attribute] = record['Fn::GetAtt'] as [string, string];
      const type = resources[id]?.Type;
      if (type === 'AWS::S3::Bucket' && attribute === 'Arn') return `arn:aws:s3:::${bucketName(id)}`;
      if (type === 'AWS::KMS::Key') return `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}`;
      if (type === 'AWS::IAM::Role') return `arn:aws:iam::${ACCOUNT}:role/${id}`;
      return `arn:aws:cloudformation:::${id}.${attribute}`;
    }
    if ('Fn::Join' in record) {
      const [delimiter, parts] = record['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => String(resolve(part))).join(delimiter);
    }
    return Object.fromEntries(Object.entries(record).map(([key, inner]) => [key, resolve(inner)]));
  };
  return { bucketName, resolve };
}

/** The answers S3 gives for a bucket deployed with these CloudFormation properties. */
function serveBucket(
  s3: ReturnType<typeof mockClient>,
  bucket: string,
  properties: Record<string, unknown>,
  policy: unknown,
): void {
  // One answer per command for this bucket; the synthesized values are checked by the reader, not here.
  const on = (command: unknown) =>
    s3.on(command as never, { Bucket: bucket } as never) as unknown as {
      resolves(output: unknown): void;
      rejects(error: Error): void;
    };
  const versioning = properties.VersioningConfiguration as { Status?: string } | undefined;
  on(GetBucketVersioningCommand).resolves(versioning?.Status ? { Status: versioning.Status } : {});

  const encryption = properties.BucketEncryption as
    | { ServerSideEncryptionConfiguration: Array<Record<string, unknown>> }
    | undefined;
  if (encryption)
    on(GetBucketEncryptionCommand).resolves({
      ServerSideEncryptionConfiguration: {
        Rules: encryption.ServerSideEncryptionConfiguration.map((rule) => ({
          ApplyServerSideEncryptionByDefault: rule.ServerSideEncryptionByDefault,
          BucketKeyEnabled: rule.BucketKeyEnabled,
        })),
      },
    });
  else
    on(GetBucketEncryptionCommand).rejects(
      s3ServiceError('ServerSideEncryptionConfigurationNotFoundError', 404),
    );

  const block = properties.PublicAccessBlockConfiguration;
  if (block) on(GetPublicAccessBlockCommand).resolves({ PublicAccessBlockConfiguration: block });
  else on(GetPublicAccessBlockCommand).rejects(s3ServiceError('NoSuchPublicAccessBlockConfiguration', 404));

  if (policy) on(GetBucketPolicyCommand).resolves({ Policy: JSON.stringify(policy) });
  else on(GetBucketPolicyCommand).rejects(s3ServiceError('NoSuchBucketPolicy', 404));
  // None of driftwatch's buckets is meant to be public; S3's verdict on a policy is not recomputed here.
  if (policy) on(GetBucketPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: false } });
  else on(GetBucketPolicyStatusCommand).rejects(s3ServiceError('NoSuchBucketPolicy', 404));
  on(GetBucketAclCommand).resolves({ Grants: [] });

  const ownership = properties.OwnershipControls;
  if (ownership) on(GetBucketOwnershipControlsCommand).resolves({ OwnershipControls: ownership });
  else on(GetBucketOwnershipControlsCommand).rejects(s3ServiceError('OwnershipControlsNotFoundError', 404));

  const lifecycle = properties.LifecycleConfiguration as
    | { Rules: Array<Record<string, unknown>> }
    | undefined;
  if (lifecycle)
    on(GetBucketLifecycleConfigurationCommand).resolves({
      Rules: lifecycle.Rules.map((rule) => ({
        ID: rule.Id,
        Status: rule.Status,
        Filter: {
          ...(rule.Prefix ? { Prefix: rule.Prefix } : {}),
          ...(rule.TagFilters ? { And: { Tags: rule.TagFilters } } : {}),
        },
        NoncurrentVersionExpiration: rule.NoncurrentVersionExpiration,
      })),
    });
  else
    on(GetBucketLifecycleConfigurationCommand).rejects(s3ServiceError('NoSuchLifecycleConfiguration', 404));
}

interface ReadBucket {
  id: string;
  bucket: string;
  properties: Record<string, unknown>;
  policy?: { Statement: Array<Record<string, unknown>> };
  violations: string[];
}

const s3Mock = mockClient(S3Client);
afterAll(() => s3Mock.restore());

/** Every bucket of the template as CheckBackend would read it, and what each bucket rule says of it. */
async function checkOwnBuckets({ template }: Synthesized): Promise<ReadBucket[]> {
  s3Mock.reset();
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const { bucketName, resolve } = resolver(resources);
  const policies = Object.values(resources).filter((resource) => resource.Type === 'AWS::S3::BucketPolicy');
  const buckets = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::S3::Bucket');
  for (const [id, resource] of buckets) {
    const policy = policies.find((candidate) => (candidate.Properties.Bucket as { Ref?: string }).Ref === id);
    serveBucket(s3Mock, bucketName(id), resource.Properties, resolve(policy?.Properties.PolicyDocument));
  }
  const reader = createAwsBackendReader({
    s3: new S3Client({ region: REGION }),
    dynamodb: new DynamoDBClient({ region: REGION }),
  });
  const read: ReadBucket[] = [];
  for (const [id, resource] of buckets) {
    const bucket = bucketName(id);
    const kind = Object.keys(BUCKETS).find((prefix) => id.startsWith(prefix));
    if (!kind) throw new Error(`bucket ${id} is not classified in BUCKETS: decide whether it needs SSE-KMS`);
    const settings = await reader.bucketSettings(bucket);
    for (const [name, observed] of Object.entries(settings))
      expect(observed.ok, `${id}: ${name} read`).toBe(true);
    const violations = BUCKET_RULES.flatMap((rule) =>
      rule
        .evaluate({
          bucket,
          settings,
          expectKms: BUCKETS[kind]?.expectKms ?? true,
          stateKeys: [],
          lockTables: [],
        })
        .map((violation) => `${rule.id}: ${violation.title}`),
    );
    const policy = policies.find((candidate) => (candidate.Properties.Bucket as { Ref?: string }).Ref === id);
    read.push({
      id,
      bucket,
      properties: resource.Properties,
      ...(policy ? { policy: resolve(policy.Properties.PolicyDocument) as ReadBucket['policy'] } : {}),
      violations,
    });
  }
  return read;
}

const VARIANTS: Record<string, Record<string, unknown>> = {
  'the sample registry': {},
  'with the provider mirror': { providerMirror: 'true' },
};

describe.each(Object.entries(VARIANTS))("driftwatch's own buckets (%s)", (_name, context) => {
  let buckets: ReadBucket[];
  beforeAll(async () => {
    buckets = await checkOwnBuckets(synthesize(context));
  }, SYNTH_TIMEOUT_MS);

  it('pass every backend rule driftwatch applies to state buckets', () => {
    expect(buckets.length).toBeGreaterThanOrEqual(3);
    const failing = buckets.filter(({ violations }) => violations.length > 0);
    expect(Object.fromEntries(failing.map(({ id, violations }) => [id, violations]))).toEqual({});
  });

  it('grant nothing through ACLs and allow only AWS services of this account in their policies', () => {
    for (const { id, properties, policy } of buckets) {
      expect(properties.AccessControl, id).toBeUndefined();
      for (const statement of policy?.Statement ?? []) {
        if (statement.Effect !== 'Allow') continue;
        // Server access log delivery and CloudFront's origin access control, each for its one source.
        expect(Object.keys(statement.Principal as object), `${id}: ${JSON.stringify(statement)}`).toEqual([
          'Service',
        ]);
        expect(JSON.stringify(statement.Condition), id).toMatch(/aws:Source(Arn|Account)/i);
      }
    }
  });
});
