import { Readable } from 'node:stream';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  GetPublicAccessBlockCommand,
  type LifecycleRule,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  NoSuchKey,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { errorCode } from '../../../functions/adapters/aws-read-failure.js';
import { createAwsBackendReader } from '../../../functions/adapters/backend/aws-backend-reader.js';
import { classifyReadFailure } from '../../../functions/core/backend/failure-cause.js';
import { BackendReadError, ObjectTooLargeError } from '../../../functions/core/backend/ports.js';
import { s3ServiceError } from '../../helpers/backend.js';

const s3Mock = mockClient(S3Client);
const dynamoMock = mockClient(DynamoDBClient);
const reader = createAwsBackendReader({
  s3: new S3Client({ region: 'eu-west-1' }),
  dynamodb: new DynamoDBClient({ region: 'eu-west-1' }),
});

beforeEach(() => {
  s3Mock.reset();
  dynamoMock.reset();
});

const stream = (text: string) => Readable.from([Buffer.from(text)]) as never;
const body = (text: string) => ({ transformToString: async () => text }) as never;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('AWS backend reader', () => {
  it('lists every page of a prefix with one ListObjectsV2 request per page', async () => {
    s3Mock
      .on(ListObjectsV2Command)
      .resolvesOnce({
        Contents: [
          { Key: 'a.tfstate', Size: 10, ETag: '"1"', LastModified: new Date('2026-11-29T00:00:00Z') },
        ],
        IsTruncated: true,
        NextContinuationToken: 'page-2',
      })
      .resolvesOnce({ Contents: [{ Key: 'a.tfstate.tflock', Size: 2 }], IsTruncated: false });
    const listed = await collect(reader.listObjects('tfstate', ''));
    expect(listed.map((object) => object.key)).toEqual(['a.tfstate', 'a.tfstate.tflock']);
    expect(listed[0]).toMatchObject({ etag: '"1"', size: 10 });
    expect(s3Mock).toHaveReceivedCommandTimes(ListObjectsV2Command, 2);
    expect(s3Mock).toHaveReceivedNthCommandWith(ListObjectsV2Command, 2, { ContinuationToken: 'page-2' });
  });

  it('turns a failed listing into BackendReadError naming the resource and the IAM action', async () => {
    s3Mock.on(ListObjectsV2Command).rejects(s3ServiceError('NoSuchBucket', 404));
    const error = await collect(reader.listObjects('missing', '')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BackendReadError);
    expect((error as BackendReadError).failure).toEqual({
      resource: 's3://missing/',
      action: 's3:ListBucket',
      code: 'NoSuchBucket',
      message: 'NoSuchBucket!',
      errorName: 'NoSuchBucket',
      // Where the answer came from (AWS_ENDPOINT_URL or AWS in the region) and its status.
      endpoint: expect.any(String),
      httpStatus: 404,
    });
  });

  it('reads bucket settings: "not configured" answers are absent values, denials are kept per setting', async () => {
    s3Mock.on(GetBucketVersioningCommand).resolves({ Status: 'Suspended' });
    s3Mock
      .on(GetBucketEncryptionCommand)
      .rejects(s3ServiceError('ServerSideEncryptionConfigurationNotFoundError', 404));
    s3Mock
      .on(GetPublicAccessBlockCommand)
      .rejects(s3ServiceError('NoSuchPublicAccessBlockConfiguration', 404));
    s3Mock.on(GetBucketPolicyCommand).rejects(s3ServiceError('AccessDenied', 403));
    s3Mock.on(GetBucketPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: false } });
    s3Mock.on(GetBucketAclCommand).resolves({ Grants: [] });
    s3Mock.on(GetBucketOwnershipControlsCommand).resolves({
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    s3Mock.on(GetBucketLifecycleConfigurationCommand).resolves({
      Rules: [
        {
          Status: 'Enabled',
          Filter: { Prefix: 'env:/' },
          NoncurrentVersionExpiration: { NoncurrentDays: 30 },
        },
        { Status: 'Disabled', Filter: { Tag: { Key: 'a', Value: 'b' } } },
        {
          Status: 'Enabled',
          Filter: { And: { Prefix: 'big/', ObjectSizeGreaterThan: 1048576 } },
          NoncurrentVersionExpiration: { NoncurrentDays: 7 },
        },
      ],
    });
    const settings = await reader.bucketSettings('tfstate');
    expect(settings).toEqual({
      versioning: { ok: true, value: 'Suspended' },
      encryption: { ok: true, value: undefined },
      publicAccessBlock: { ok: true, value: undefined },
      policy: {
        ok: false,
        failure: {
          resource: 's3://tfstate',
          action: 's3:GetBucketPolicy',
          code: 'AccessDenied',
          message: 'AccessDenied!',
          errorName: 'AccessDenied',
          endpoint: expect.any(String),
          httpStatus: 403,
        },
      },
      objectOwnership: { ok: true, value: 'BucketOwnerEnforced' },
      lifecycle: {
        ok: true,
        value: [
          {
            enabled: true,
            prefix: 'env:/',
            tagFiltered: false,
            noncurrentVersionExpiration: { days: 30, newerVersions: undefined },
          },
          { enabled: false, tagFiltered: true },
          {
            enabled: true,
            prefix: 'big/',
            tagFiltered: false,
            objectSize: { greaterThan: 1048576 },
            noncurrentVersionExpiration: { days: 7, newerVersions: undefined },
          },
        ],
      },
      policyStatus: { ok: true, value: false },
      publicGrants: { ok: true, value: [] },
    });
  });

  it('reads what a lifecycle rule does to current versions: expiration by age or date, archive transitions only', async () => {
    s3Mock.on(GetBucketLifecycleConfigurationCommand).resolves({
      Rules: [
        { ID: 'age', Status: 'Enabled', Filter: {}, Expiration: { Days: 90 } },
        { ID: 'date', Status: 'Enabled', Filter: {}, Expiration: { Date: new Date('2027-01-01T00:00:00Z') } },
        // Removes only delete markers left without versions: not an expiration of state.
        { ID: 'markers', Status: 'Enabled', Filter: {}, Expiration: { ExpiredObjectDeleteMarker: true } },
        {
          ID: 'tiers',
          Status: 'Enabled',
          Filter: {},
          Transitions: [
            { Days: 30, StorageClass: 'STANDARD_IA' },
            { Days: 60, StorageClass: 'GLACIER_IR' },
            { Days: 180, StorageClass: 'GLACIER' },
            { Date: new Date('2028-06-01T00:00:00Z'), StorageClass: 'DEEP_ARCHIVE' },
          ],
        },
      ],
    });
    const { lifecycle } = await reader.bucketSettings('tfstate');
    expect(lifecycle).toEqual({
      ok: true,
      value: [
        { id: 'age', enabled: true, tagFiltered: false, currentExpiration: { days: 90 } },
        { id: 'date', enabled: true, tagFiltered: false, currentExpiration: { date: '2027-01-01' } },
        { id: 'markers', enabled: true, tagFiltered: false },
        {
          id: 'tiers',
          enabled: true,
          tagFiltered: false,
          archivingTransitions: [
            { storageClass: 'GLACIER', days: 180 },
            { storageClass: 'DEEP_ARCHIVE', date: '2028-06-01' },
          ],
        },
      ],
    });
  });

  it("reads S3's transition minimum (all_storage_classes_128K) onto the archiving rules without a size filter of their own", async () => {
    const rules: LifecycleRule[] = [
      {
        ID: 'cold',
        Status: 'Enabled',
        Filter: {},
        Transitions: [{ Days: 90, StorageClass: 'GLACIER' }],
      },
      {
        ID: 'sized',
        Status: 'Enabled',
        Filter: { ObjectSizeGreaterThan: 1 },
        Transitions: [{ Days: 90, StorageClass: 'DEEP_ARCHIVE' }],
      },
      { ID: 'expire', Status: 'Enabled', Filter: {}, Expiration: { Days: 30 } },
    ];
    const read = async (minimum?: 'all_storage_classes_128K' | 'varies_by_storage_class') => {
      s3Mock.on(GetBucketLifecycleConfigurationCommand).resolves({
        Rules: rules,
        ...(minimum ? { TransitionDefaultMinimumObjectSize: minimum } : {}),
      });
      const { lifecycle } = await reader.bucketSettings('tfstate');
      return lifecycle.ok ? lifecycle.value.map((rule) => [rule.id, rule.transitionsFromBytes]) : lifecycle;
    };
    expect(await read('all_storage_classes_128K')).toEqual([
      ['cold', 131072],
      ['sized', undefined],
      ['expire', undefined],
    ]);
    for (const minimum of ['varies_by_storage_class', undefined] as const)
      expect(await read(minimum)).toEqual([
        ['cold', undefined],
        ['sized', undefined],
        ['expire', undefined],
      ]);
  });

  it("reads S3's policy status and the ACL's public grants (everyone, any AWS account), nothing else of the ACL", async () => {
    const owner = { ID: 'a1b2', Type: 'CanonicalUser' as const };
    s3Mock.on(GetBucketPolicyStatusCommand).resolves({ PolicyStatus: { IsPublic: true } });
    s3Mock.on(GetBucketAclCommand).resolves({
      Owner: { ID: 'a1b2' },
      Grants: [
        { Grantee: owner, Permission: 'FULL_CONTROL' },
        {
          Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
          Permission: 'READ',
        },
        {
          Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers' },
          Permission: 'WRITE',
        },
        {
          Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/s3/LogDelivery' },
          Permission: 'WRITE',
        },
      ],
    });
    const settings = await reader.bucketSettings('tfstate');
    expect(settings.policyStatus).toEqual({ ok: true, value: true });
    expect(settings.publicGrants).toEqual({
      ok: true,
      value: [
        { grantee: 'AllUsers', permission: 'READ' },
        { grantee: 'AuthenticatedUsers', permission: 'WRITE' },
      ],
    });
  });

  it('a bucket without a policy is not public by its policy; an endpoint that does not say claims nothing', async () => {
    s3Mock.on(GetBucketPolicyStatusCommand).rejects(s3ServiceError('NoSuchBucketPolicy', 404));
    expect((await reader.bucketSettings('tfstate')).policyStatus).toEqual({ ok: true, value: false });
    s3Mock.on(GetBucketPolicyStatusCommand).resolves({ PolicyStatus: {} });
    expect((await reader.bucketSettings('tfstate')).policyStatus).toEqual({ ok: true, value: undefined });
    s3Mock.on(GetBucketPolicyStatusCommand).rejects(s3ServiceError('AccessDenied', 403));
    s3Mock.on(GetBucketAclCommand).rejects(s3ServiceError('AccessDenied', 403));
    const denied = await reader.bucketSettings('tfstate');
    expect(denied.policyStatus).toMatchObject({ ok: false, failure: { action: 's3:GetBucketPolicyStatus' } });
    expect(denied.publicGrants).toMatchObject({ ok: false, failure: { action: 's3:GetBucketAcl' } });
  });

  it("reads a state version's object ACL: its public grants, undefined when gone, the version's action when denied", async () => {
    s3Mock.on(GetObjectAclCommand, { Bucket: 'tfstate', Key: 'app.tfstate', VersionId: 'v2' }).resolves({
      Grants: [
        { Grantee: { ID: 'a1b2', Type: 'CanonicalUser' }, Permission: 'FULL_CONTROL' },
        {
          Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
          Permission: 'READ',
        },
      ],
    });
    expect(await reader.objectPublicGrants('tfstate', 'app.tfstate', 'v2')).toEqual([
      { grantee: 'AllUsers', permission: 'READ' },
    ]);
    // `null` is the version id of an object written while versioning was off: the current object.
    s3Mock.on(GetObjectAclCommand, { Key: 'old.tfstate' }).resolves({ Grants: [] });
    expect(await reader.objectPublicGrants('tfstate', 'old.tfstate', 'null')).toEqual([]);
    expect(s3Mock).toHaveReceivedCommandWith(GetObjectAclCommand, {
      Key: 'old.tfstate',
      VersionId: undefined,
    });
    s3Mock.on(GetObjectAclCommand, { Key: 'gone.tfstate' }).rejects(s3ServiceError('NoSuchVersion', 404));
    expect(await reader.objectPublicGrants('tfstate', 'gone.tfstate', 'v1')).toBeUndefined();
    s3Mock.on(GetObjectAclCommand, { Key: 'denied.tfstate' }).rejects(s3ServiceError('AccessDenied', 403));
    const denied = await reader.objectPublicGrants('tfstate', 'denied.tfstate', 'v1').catch((error) => error);
    expect(denied).toBeInstanceOf(BackendReadError);
    expect(denied.failure).toMatchObject({
      resource: 's3://tfstate/denied.tfstate',
      action: 's3:GetObjectVersionAcl',
      code: 'AccessDenied',
    });
  });

  it('lists recent versions of exactly one key, newest first, delete markers marked', async () => {
    s3Mock.on(ListObjectVersionsCommand).resolves({
      Versions: [
        { Key: 'a.tfstate', VersionId: 'v1', LastModified: new Date('2026-11-01T00:00:00Z') },
        { Key: 'a.tfstate', VersionId: 'v2', IsLatest: true, LastModified: new Date('2026-11-02T00:00:00Z') },
        { Key: 'a.tfstate.tflock', VersionId: 'l1', LastModified: new Date('2026-11-03T00:00:00Z') },
      ],
      DeleteMarkers: [{ Key: 'a.tfstate', VersionId: 'd1', LastModified: new Date('2026-11-01T12:00:00Z') }],
    });
    const versions = await reader.recentVersions('tfstate', 'a.tfstate', 5);
    expect(versions.map((version) => [version.versionId, version.deleteMarker])).toEqual([
      ['v2', false],
      ['d1', true],
      ['v1', false],
    ]);
    expect(s3Mock).toHaveReceivedCommandWith(ListObjectVersionsCommand, { Prefix: 'a.tfstate', MaxKeys: 20 });
  });

  it('reads an object or one version of it; a missing one is undefined; a 403 without a code is AccessDenied', async () => {
    s3Mock
      .on(GetObjectCommand, { Key: 'a.tfstate', VersionId: 'v1' })
      .resolves({ Body: body('{"version":4}') });
    s3Mock
      .on(GetObjectCommand, { Key: 'gone.tflock' })
      .rejects(new NoSuchKey({ message: 'gone', $metadata: {} }));
    s3Mock.on(GetObjectCommand, { Key: 'secret.tflock' }).rejects(s3ServiceError('Unknown', 403));
    expect(await reader.readObject('tfstate', 'a.tfstate', 'v1')).toBe('{"version":4}');
    expect(await reader.readObject('tfstate', 'gone.tflock')).toBeUndefined();
    const error = (await reader
      .readObject('tfstate', 'secret.tflock')
      .catch((caught) => caught)) as BackendReadError;
    expect(error.failure).toMatchObject({ code: 'AccessDenied', action: 's3:GetObject' });
    // `null` is the version id of objects written before versioning: read them without one.
    s3Mock.on(GetObjectCommand, { Key: 'old.tfstate' }).resolves({ Body: body('{}') });
    await reader.readObject('tfstate', 'old.tfstate', 'null');
    expect(s3Mock).toHaveReceivedCommandWith(GetObjectCommand, { Key: 'old.tfstate', VersionId: undefined });
  });

  it('an object larger than the caller takes is refused by its length, its body left unread', async () => {
    let read = false;
    let destroyed = false;
    const huge = {
      transformToString: async () => {
        read = true;
        return '';
      },
      destroy: () => {
        destroyed = true;
      },
    } as never;
    s3Mock
      .on(GetObjectCommand, { Key: 'big.tflock' })
      .resolves({ Body: huge, ContentLength: 600 * 1024 * 1024 });
    const error = await reader
      .readObject('tfstate', 'big.tflock', undefined, 64 * 1024)
      .catch((thrown) => thrown);
    expect(error).toBeInstanceOf(ObjectTooLargeError);
    expect(error).toMatchObject({ bytes: 600 * 1024 * 1024, maxBytes: 64 * 1024 });
    expect(read).toBe(false);
    expect(destroyed).toBe(true);
    s3Mock.on(GetObjectCommand, { Key: 'small.tflock' }).resolves({ Body: body('{}'), ContentLength: 2 });
    expect(await reader.readObject('tfstate', 'small.tflock', undefined, 64 * 1024)).toBe('{}');
  });

  it('reads the start of a state with a Range GET and knows the whole size from Content-Range', async () => {
    s3Mock.on(GetObjectCommand, { Key: 'big.tfstate' }).resolves({
      Body: stream('{"version":4,'),
      ContentRange: 'bytes 0-65535/734003200',
      ContentLength: 65536,
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: 'arn:aws:kms:eu-west-1:111111111111:key/1',
    });
    // With the encryption S3 reports for the object (state.encryption judges it).
    expect(await reader.readObjectStart('tfstate', 'big.tfstate', 'v7', 65536)).toEqual({
      text: '{"version":4,',
      totalBytes: 734003200,
      complete: false,
      encryption: 'aws:kms',
      kmsKeyId: 'arn:aws:kms:eu-west-1:111111111111:key/1',
    });
    expect(s3Mock).toHaveReceivedCommandWith(GetObjectCommand, {
      Key: 'big.tfstate',
      VersionId: 'v7',
      Range: 'bytes=0-65535',
    });
    // A state shorter than the range: S3 answers the whole of it (206, bytes 0-1/2).
    s3Mock
      .on(GetObjectCommand, { Key: 'small.tfstate' })
      .resolves({ Body: stream('{}'), ContentRange: 'bytes 0-1/2' });
    expect(await reader.readObjectStart('tfstate', 'small.tfstate', undefined, 65536)).toEqual({
      text: '{}',
      totalBytes: 2,
      complete: true,
    });
  });

  it('reads the end of a state with a suffix Range GET', async () => {
    s3Mock
      .on(GetObjectCommand)
      .resolves({ Body: stream('  ]\n}\n'), ContentRange: 'bytes 734003136-734003199/734003200' });
    expect(await reader.readObjectEnd('tfstate', 'big.tfstate', 'v7', 64)).toBe('  ]\n}\n');
    expect(s3Mock).toHaveReceivedCommandWith(GetObjectCommand, {
      Key: 'big.tfstate',
      VersionId: 'v7',
      Range: 'bytes=-64',
    });
  });

  it('a Content-Range without the total is no proof the range holds the whole object', async () => {
    s3Mock.on(GetObjectCommand).resolves({
      Body: stream('x'.repeat(16)),
      ContentRange: 'bytes 0-15/*',
      ContentLength: 16,
    });
    expect(await reader.readObjectStart('tfstate', 'a.tfstate', undefined, 16)).toMatchObject({
      complete: false,
    });
    s3Mock
      .on(GetObjectCommand)
      .resolves({ Body: stream('{}'), ContentRange: 'bytes 0-1/*', ContentLength: 2 });
    expect(await reader.readObjectStart('tfstate', 'a.tfstate', undefined, 16)).toMatchObject({
      complete: true,
    });
  });

  it('reads no more than the range when a server ignores it, and closes the stream', async () => {
    const { endless, pulled } = endlessBody();
    s3Mock.on(GetObjectCommand).resolves({ Body: endless as never, ContentLength: 900 * 1024 * 1024 });
    const start = await reader.readObjectStart('tfstate', 'big.tfstate', undefined, 65536);
    expect(start).toMatchObject({ totalBytes: 900 * 1024 * 1024, complete: false });
    expect(start?.text.length).toBe(65536);
    expect(pulled()).toBeLessThan(10);
    expect(endless.destroyed).toBe(true);
  });

  it('an empty object (416 to any range) is empty text; a missing one is undefined', async () => {
    s3Mock.on(GetObjectCommand, { Key: 'empty.tfstate' }).rejects(s3ServiceError('InvalidRange', 416));
    s3Mock
      .on(GetObjectCommand, { Key: 'gone.tfstate' })
      .rejects(new NoSuchKey({ message: 'gone', $metadata: {} }));
    expect(await reader.readObjectStart('tfstate', 'empty.tfstate', undefined, 65536)).toEqual({
      text: '',
      totalBytes: 0,
      complete: true,
    });
    expect(await reader.readObjectStart('tfstate', 'gone.tfstate', undefined, 65536)).toBeUndefined();
  });

  it('a state object whose SSE-KMS key cannot be used fails with the KMS error S3 passes through, never as a missing object', async () => {
    const ARN = 'arn:aws:kms:eu-west-1:111111111111:key/0b5e1f0e-1111-4222-8333-444455556666';
    const kmsError = (name: string, status: number, message: string) =>
      Object.assign(s3ServiceError(name, status), { Code: name, message });
    s3Mock
      .on(GetObjectCommand, { Key: 'disabled.tfstate' })
      .rejects(kmsError('KMS.DisabledException', 400, `${ARN} is disabled.`));
    s3Mock
      .on(GetObjectCommand, { Key: 'deleted-key.tfstate' })
      .rejects(kmsError('KMS.NotFoundException', 400, `Invalid keyId ${ARN}`));
    s3Mock
      .on(GetObjectCommand, { Key: 'denied.tfstate' })
      .rejects(kmsError('AccessDenied', 403, 'Access Denied'));
    const failureOf = async (key: string) =>
      (
        (await reader
          .readObjectStart('tfstate', key, 'v1', 65536)
          .catch((thrown) => thrown)) as BackendReadError
      ).failure;
    for (const key of ['disabled.tfstate', 'deleted-key.tfstate']) {
      const failure = await failureOf(key);
      expect(failure).toMatchObject({ action: 's3:GetObjectVersion', code: expect.stringMatching(/^KMS\./) });
      expect(classifyReadFailure(failure).kind).toBe('kms-key');
    }
    const denied = await failureOf('denied.tfstate');
    expect(denied).toMatchObject({ code: 'AccessDenied', httpStatus: 403 });
    expect(classifyReadFailure({ ...denied, kmsKeyId: ARN }).advice).toContain(`Allow kms:Decrypt on ${ARN}`);
  });

  it('an archived state (InvalidObjectState) keeps the storage class S3 names; an SSE-C one its InvalidRequest', async () => {
    s3Mock.on(GetObjectCommand, { Key: 'archived.tfstate' }).rejects(
      Object.assign(s3ServiceError('InvalidObjectState', 403), {
        message: "The operation is not valid for the object's storage class",
        StorageClass: 'DEEP_ARCHIVE',
      }),
    );
    s3Mock.on(GetObjectCommand, { Key: 'tiered.tfstate' }).rejects(
      Object.assign(s3ServiceError('InvalidObjectState', 403), {
        StorageClass: 'INTELLIGENT_TIERING',
        AccessTier: 'DEEP_ARCHIVE_ACCESS',
      }),
    );
    s3Mock.on(GetObjectCommand, { Key: 'ssec.tfstate' }).rejects(
      Object.assign(s3ServiceError('InvalidRequest', 400), {
        message:
          'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
      }),
    );
    const failureOf = async (key: string) =>
      (
        (await reader
          .readObjectStart('tfstate', key, undefined, 65536)
          .catch((thrown) => thrown)) as BackendReadError
      ).failure;
    const archived = await failureOf('archived.tfstate');
    expect(archived).toMatchObject({
      code: 'InvalidObjectState',
      storageClass: 'DEEP_ARCHIVE',
      httpStatus: 403,
    });
    expect(classifyReadFailure(archived).kind).toBe('archived');
    expect((await failureOf('tiered.tfstate')).storageClass).toBe(
      'INTELLIGENT_TIERING (DEEP_ARCHIVE_ACCESS)',
    );
    const ssec = await failureOf('ssec.tfstate');
    expect(ssec).toMatchObject({ code: 'InvalidRequest', httpStatus: 400 });
    expect(ssec.storageClass).toBeUndefined();
    expect(classifyReadFailure(ssec).kind).toBe('customer-key');
  });

  it('a lock body longer than its Content-Length said is read no further than the limit', async () => {
    const { endless, pulled } = endlessBody();
    s3Mock.on(GetObjectCommand).resolves({ Body: endless as never });
    const error = await reader
      .readObject('tfstate', 'a.tflock', undefined, 64 * 1024)
      .catch((thrown) => thrown);
    expect(error).toBeInstanceOf(ObjectTooLargeError);
    expect(pulled()).toBeLessThan(10);
    expect(endless.destroyed).toBe(true);
  });

  it("scans a lock table for the bucket's items, page by page", async () => {
    dynamoMock
      .on(ScanCommand)
      .resolvesOnce({
        Items: [{ LockID: { S: 'tfstate/a.tfstate' }, Info: { S: '{"ID":"x"}' } }],
        LastEvaluatedKey: { LockID: { S: 'tfstate/a.tfstate' } },
      })
      .resolvesOnce({
        Items: [
          { LockID: { S: 'tfstate/a.tfstate-md5' }, Digest: { S: 'abc' } },
          // An Info that is not a string is named by its type, never dropped.
          { LockID: { S: 'tfstate/b.tfstate' }, Info: { N: '42' } },
        ],
      });
    expect(await reader.lockTableItems('tf-locks', 'tfstate')).toEqual([
      { lockId: 'tfstate/a.tfstate', info: '{"ID":"x"}' },
      { lockId: 'tfstate/a.tfstate-md5', digest: 'abc' },
      { lockId: 'tfstate/b.tfstate', infoType: 'N' },
    ]);
    expect(dynamoMock).toHaveReceivedCommandWith(ScanCommand, {
      TableName: 'tf-locks',
      ExpressionAttributeValues: { ':bucket': { S: 'tfstate/' } },
    });
    expect(dynamoMock).toHaveReceivedNthCommandWith(ScanCommand, 2, {
      ExclusiveStartKey: { LockID: { S: 'tfstate/a.tfstate' } },
    });
  });

  it('a missing lock table is a read failure with its code', async () => {
    dynamoMock
      .on(ScanCommand)
      .rejects(Object.assign(new Error('no table'), { name: 'ResourceNotFoundException' }));
    const error = (await reader
      .lockTableItems('nope', 'tfstate')
      .catch((caught) => caught)) as BackendReadError;
    expect(error.failure).toEqual({
      resource: 'dynamodb:nope',
      action: 'dynamodb:Scan',
      code: 'ResourceNotFoundException',
      message: 'no table',
      errorName: 'ResourceNotFoundException',
      endpoint: expect.any(String),
    });
  });

  it('error codes fall back to the HTTP status', () => {
    expect(errorCode({ name: 'Unknown', $metadata: { httpStatusCode: 404 } })).toBe('NotFound');
    expect(errorCode({ name: 'SlowDown' })).toBe('SlowDown');
  });
});

/** Errors as the SDK (v3.1169, Node 20) throws them; the shapes were printed from real failures. */
const sdkErrors = {
  refused: () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      errno: -111,
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '127.0.0.1',
      port: 1,
      $metadata: { attempts: 3, totalRetryDelay: 1200 },
    }),
  noDns: () =>
    Object.assign(new Error('getaddrinfo ENOTFOUND tfstate.s3.nowhere.invalid'), {
      errno: -3008,
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'tfstate.s3.nowhere.invalid',
      $metadata: { attempts: 3 },
    }),
  timeout: () =>
    Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError', $metadata: {} }),
  noCredentials: () =>
    Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
      tryNextLink: false,
    }),
  noRegion: () => new Error('Region is missing'),
  // S3 answers a request to the wrong region with 301 and names the bucket's region in a header.
  redirect: () =>
    Object.assign(s3ServiceError('PermanentRedirect', 301), {
      Endpoint: 'tfstate.s3.eu-central-1.amazonaws.com',
      $response: { statusCode: 301, headers: { 'x-amz-bucket-region': 'eu-central-1' } },
    }),
  // A HEAD-like answer has no body: only the status and the header say it.
  bareRedirect: () =>
    Object.assign(s3ServiceError('Unknown', 301), {
      $response: { statusCode: 301, headers: { 'x-amz-bucket-region': 'ap-southeast-2' } },
    }),
  // Signed for the wrong region: the body names the expected one.
  malformed: () =>
    Object.assign(
      s3ServiceError('AuthorizationHeaderMalformed', 400),
      {
        message:
          "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-west-1'",
      },
      { Region: 'eu-west-1' },
    ),
  denied: () => s3ServiceError('AccessDenied', 403),
  noSuchBucket: () => s3ServiceError('NoSuchBucket', 404),
  expired: () => s3ServiceError('ExpiredToken', 400),
};

describe('preflight: one cheap read whose failure says why', () => {
  const preflightFailure = async (error: Error) => {
    s3Mock.on(ListObjectsV2Command).rejects(error);
    const caught = await reader.preflight('tfstate', 'payments/').catch((thrown: unknown) => thrown);
    expect(caught).toBeInstanceOf(BackendReadError);
    return (caught as BackendReadError).failure;
  };

  it('lists one key under the prefix (the permission the checks need anyway)', async () => {
    s3Mock.on(ListObjectsV2Command).resolves({ Contents: [] });
    await reader.preflight('tfstate', '');
    await reader.preflight('tfstate', 'payments/');
    expect(s3Mock).toHaveReceivedNthCommandWith(ListObjectsV2Command, 1, {
      Bucket: 'tfstate',
      Prefix: undefined,
      MaxKeys: 1,
    });
    expect(s3Mock).toHaveReceivedNthCommandWith(ListObjectsV2Command, 2, { Prefix: 'payments/', MaxKeys: 1 });
  });

  it.each([
    [
      'refused',
      'unreachable',
      'connection refused to 127.0.0.1:1',
      { code: 'ECONNREFUSED', errorName: 'Error', endpoint: '127.0.0.1:1' },
    ],
    [
      'noDns',
      'unreachable',
      'cannot resolve the host of tfstate.s3.nowhere.invalid (ENOTFOUND)',
      { code: 'ENOTFOUND', endpoint: 'tfstate.s3.nowhere.invalid' },
    ],
    [
      'timeout',
      'unreachable',
      // A timeout has no address: the endpoint the SDK was configured with is named (no password).
      'no answer from http://127.0.0.1:4566 (timeout)',
      { errorName: 'TimeoutError', endpoint: 'http://127.0.0.1:4566' },
    ],
    [
      'noCredentials',
      'no-credentials',
      'no AWS credentials found (CredentialsProviderError)',
      { errorName: 'CredentialsProviderError' },
    ],
    ['noRegion', 'no-region', 'no AWS region configured (Region is missing)', { code: 'Error' }],
    [
      'redirect',
      'wrong-region',
      'the bucket is in eu-central-1, not the region configured (PermanentRedirect)',
      { bucketRegion: 'eu-central-1' },
    ],
    [
      'bareRedirect',
      'wrong-region',
      'the bucket is in ap-southeast-2, not the region configured (PermanentRedirect)',
      { code: 'PermanentRedirect' },
    ],
    [
      'malformed',
      'wrong-region',
      'the bucket is in eu-west-1, not the region configured (AuthorizationHeaderMalformed)',
      { bucketRegion: 'eu-west-1' },
    ],
    ['denied', 'access-denied', 'AccessDenied on s3:ListBucket', { action: 's3:ListBucket' }],
    ['noSuchBucket', 'no-such-bucket', 'the bucket does not exist (NoSuchBucket)', { code: 'NoSuchBucket' }],
    ['expired', 'rejected-credentials', 'credentials rejected (ExpiredToken)', { code: 'ExpiredToken' }],
  ] as const)('%s: classified as %s', async (shape, kind, summary, facts) => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://user:CANARYendpoint@127.0.0.1:4566/path');
    const failure = await preflightFailure(sdkErrors[shape]());
    vi.unstubAllEnvs();
    expect(JSON.stringify(failure)).not.toContain('CANARYendpoint');
    expect(failure).toMatchObject({ resource: 's3://tfstate/payments/', action: 's3:ListBucket', ...facts });
    expect(classifyReadFailure(failure)).toMatchObject({ kind, summary });
  });

  it('an answer with no S3 error in it (a proxy page) names its status and the endpoint; a bad region is named', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:4566');
    const proxyPage = await preflightFailure(
      Object.assign(s3ServiceError('Unknown', 500), { message: 'Unknown' }),
    );
    const notXml = await preflightFailure(
      Object.assign(new Error('@aws-sdk XML parse error: unexpected content'), {
        $metadata: { httpStatusCode: 200 },
      }),
    );
    const badRegion = await preflightFailure(
      new Error('Region not accepted: region="not a region" is not a valid hostname component.'),
    );
    vi.unstubAllEnvs();
    expect(classifyReadFailure(proxyPage).summary).toBe(
      'HTTP 500 from http://127.0.0.1:4566 on s3:ListBucket, not an answer S3 gives',
    );
    expect(classifyReadFailure(notXml).summary).toBe(
      'HTTP 200 from http://127.0.0.1:4566 on s3:ListBucket, not an answer S3 gives',
    );
    expect(classifyReadFailure(badRegion)).toMatchObject({
      kind: 'no-region',
      summary: 'the region configured is not an AWS region (Region not accepted)',
    });
  });

  it('a denied setting read names the SDK error and the action, and the advice the permission', async () => {
    s3Mock.on(GetBucketPolicyCommand).rejects(sdkErrors.denied());
    s3Mock.on(GetBucketVersioningCommand).resolves({ Status: 'Enabled' });
    const { policy } = await reader.bucketSettings('tfstate');
    if (policy.ok) throw new Error('the policy read should have failed');
    const cause = classifyReadFailure(policy.failure);
    expect(cause.summary).toBe('AccessDenied on s3:GetBucketPolicy');
    expect(cause.advice).toMatch(/^Allow s3:GetBucketPolicy on arn:aws:s3:::tfstate to the role/);
  });

  it('a bucket policy refused to a role of another account (405) names the owner account as the cause, not a permission', async () => {
    s3Mock.on(GetBucketPolicyCommand).rejects(s3ServiceError('MethodNotAllowed', 405));
    s3Mock.on(GetBucketVersioningCommand).resolves({ Status: 'Enabled' });
    const { policy } = await reader.bucketSettings('tfstate');
    if (policy.ok) throw new Error('the policy read should have failed');
    expect(policy.failure).toMatchObject({ code: 'MethodNotAllowed', httpStatus: 405 });
    expect(classifyReadFailure(policy.failure)).toMatchObject({
      kind: 'not-bucket-owner',
      summary: "MethodNotAllowed on s3:GetBucketPolicy: not the bucket owner's account",
    });
  });
});

/** A body that never ends (a server ignoring the Range, or lying about its length), counting the chunks read. */
function endlessBody(): { endless: Readable; pulled: () => number } {
  let pulled = 0;
  const endless = Readable.from(
    (function* () {
      for (;;) {
        pulled++;
        yield Buffer.alloc(16 * 1024, 0x20);
      }
    })(),
  );
  return { endless, pulled: () => pulled };
}
