import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '../../../functions/adapters/object-store/s3-object-store.js';
import { PreconditionFailedError } from '../../../functions/core/findings/object-store.js';

const s3Mock = mockClient(S3Client);
const store = createS3ObjectStore(new S3Client({ region: 'eu-west-1' }), 'findings');

beforeEach(() => s3Mock.reset());

/** The part of the SDK's streaming body the store uses. */
const body = (text: string) => ({ transformToString: async () => text }) as never;

describe('S3 object store', () => {
  it('reads an object with its ETag, and a missing key as undefined', async () => {
    s3Mock.on(GetObjectCommand, { Key: 'current/a.json' }).resolves({ Body: body('{"x":1}'), ETag: '"e1"' });
    s3Mock
      .on(GetObjectCommand, { Key: 'current/missing.json' })
      .rejects(new NoSuchKey({ message: 'no', $metadata: {} }));
    expect(await store.get('current/a.json')).toEqual({ body: '{"x":1}', etag: '"e1"' });
    expect(await store.get('current/missing.json')).toBeUndefined();
  });

  it('passes conditions through and turns 412 into PreconditionFailedError', async () => {
    s3Mock
      .on(PutObjectCommand)
      .resolvesOnce({ ETag: '"e2"' })
      .rejectsOnce(
        new S3ServiceException({
          name: 'PreconditionFailed',
          $fault: 'client',
          $metadata: { httpStatusCode: 412 },
        }),
      );
    expect(await store.put('current/a.json', '{}', { ifMatch: '"e1"' })).toEqual({ etag: '"e2"' });
    expect(s3Mock).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: 'findings',
      Key: 'current/a.json',
      IfMatch: '"e1"',
      ContentType: 'application/json',
    });
    await expect(store.put('current/a.json', '{}', { ifNoneMatch: '*' })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
  });

  it('lists every page of a prefix', async () => {
    s3Mock
      .on(ListObjectsV2Command)
      .resolvesOnce({
        Contents: [{ Key: 'current/a.json', Size: 1 }],
        IsTruncated: true,
        NextContinuationToken: 't1',
      })
      .resolvesOnce({ Contents: [{ Key: 'current/b.json', Size: 2 }], IsTruncated: false });
    const keys: string[] = [];
    for await (const object of store.list('current/')) keys.push(object.key);
    expect(keys).toEqual(['current/a.json', 'current/b.json']);
    expect(s3Mock).toHaveReceivedNthCommandWith(ListObjectsV2Command, 2, {
      ContinuationToken: 't1',
      Prefix: 'current/',
    });
  });
});
