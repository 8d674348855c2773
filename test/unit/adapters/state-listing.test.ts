import {
  GetBucketLocationCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  bucketRegion,
  listStateBucketKeys,
  listStateObjects,
} from '../../../functions/adapters/backend/state-listing.js';
import { BackendReadError } from '../../../functions/core/backend/ports.js';
import { s3ServiceError } from '../../helpers/backend.js';

const s3Mock = mockClient(S3Client);
const s3 = new S3Client({ region: 'eu-west-1' });
beforeEach(() => s3Mock.reset());
afterAll(() => s3Mock.restore());

describe('listStateBucketKeys', () => {
  it('follows every page of the whole bucket', async () => {
    s3Mock
      .on(ListObjectsV2Command)
      .resolvesOnce({ Contents: [{ Key: 'a.tfstate' }], IsTruncated: true, NextContinuationToken: 'p2' })
      .resolvesOnce({ Contents: [{ Key: 'b.tfstate' }, { Key: 'b.tfstate.tflock' }], IsTruncated: false });
    expect(await listStateBucketKeys(s3, 'tfstate')).toEqual(['a.tfstate', 'b.tfstate', 'b.tfstate.tflock']);
    const calls = s3Mock.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input);
    expect(calls).toEqual([
      { Bucket: 'tfstate', Prefix: undefined, ContinuationToken: undefined, EncodingType: 'url' },
      { Bucket: 'tfstate', Prefix: undefined, ContinuationToken: 'p2', EncodingType: 'url' },
    ]);
  });

  it('with a prefix, also lists env:/ where CLI workspaces keep their states', async () => {
    s3Mock
      .on(ListObjectsV2Command, { Prefix: 'team-a/' })
      .resolves({ Contents: [{ Key: 'team-a/app.tfstate' }] })
      .on(ListObjectsV2Command, { Prefix: 'env:/' })
      .resolves({ Contents: [{ Key: 'env:/dev/team-a/app.tfstate' }] });
    expect(await listStateBucketKeys(s3, 'tfstate', 'team-a/')).toEqual([
      'team-a/app.tfstate',
      'env:/dev/team-a/app.tfstate',
    ]);
  });

  it('keeps the states under the prefix when env:/ may not be listed (a role limited to its prefix), and says so', async () => {
    s3Mock
      .on(ListObjectsV2Command, { Prefix: 'team-a/' })
      .resolves({ Contents: [{ Key: 'team-a/app.tfstate' }] })
      .on(ListObjectsV2Command, { Prefix: 'env:/' })
      .rejects(s3ServiceError('AccessDenied', 403));
    expect(await listStateObjects(s3, 'tfstate', 'team-a/')).toEqual({
      keys: ['team-a/app.tfstate'],
      unlisted: ['env:/'],
    });
    // Only a denial is tolerated there: a listing that fails otherwise still fails init.
    s3Mock.on(ListObjectsV2Command, { Prefix: 'env:/' }).rejects(s3ServiceError('InternalError', 500));
    await expect(listStateObjects(s3, 'tfstate', 'team-a/')).rejects.toBeInstanceOf(BackendReadError);
    // And the prefix asked for is never tolerated.
    s3Mock.on(ListObjectsV2Command, { Prefix: 'team-a/' }).rejects(s3ServiceError('AccessDenied', 403));
    await expect(listStateObjects(s3, 'tfstate', 'team-a/')).rejects.toBeInstanceOf(BackendReadError);
  });

  it('throws a BackendReadError with the code and the IAM action when the bucket cannot be listed', async () => {
    s3Mock.on(ListObjectsV2Command).rejects(s3ServiceError('NoSuchBucket', 404));
    const error = await listStateBucketKeys(s3, 'missing').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BackendReadError);
    expect((error as BackendReadError).failure).toMatchObject({
      code: 'NoSuchBucket',
      action: 's3:ListBucket',
      resource: 's3://missing/',
    });
  });
});

describe('bucketRegion', () => {
  it.each([
    [undefined, 'us-east-1'],
    ['EU', 'eu-west-1'],
    ['ap-southeast-2', 'ap-southeast-2'],
  ])('LocationConstraint %s → %s', async (constraint, region) => {
    s3Mock.on(GetBucketLocationCommand).resolves({ LocationConstraint: constraint as never });
    expect(await bucketRegion(s3, 'tfstate')).toBe(region);
  });

  it('asks HeadBucket (allowed with s3:ListBucket) when GetBucketLocation is denied', async () => {
    s3Mock.on(GetBucketLocationCommand).rejects(s3ServiceError('AccessDenied', 403));
    s3Mock.on(HeadBucketCommand).resolves({ BucketRegion: 'us-east-2' });
    expect(await bucketRegion(s3, 'tfstate')).toBe('us-east-2');
  });

  it('is unknown (not an error) when both are denied', async () => {
    s3Mock.on(GetBucketLocationCommand).rejects(s3ServiceError('AccessDenied', 403));
    s3Mock.on(HeadBucketCommand).rejects(s3ServiceError('Forbidden', 403));
    expect(await bucketRegion(s3, 'tfstate')).toBeUndefined();
  });
});
