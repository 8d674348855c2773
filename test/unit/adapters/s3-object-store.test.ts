import {
  DeleteObjectCommand,
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
import {
  createS3ObjectStore,
  StoreConflictError,
} from '../../../functions/adapters/object-store/s3-object-store.js';
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

  describe('409 ConditionalRequestConflict', () => {
    const conflict = () =>
      new S3ServiceException({
        name: 'ConditionalRequestConflict',
        $fault: 'client',
        $metadata: { httpStatusCode: 409 },
      });
    /** A store whose pauses are recorded, not waited, with the jitter fixed at `jitter`. */
    const retrying = (jitter: number) => {
      const slept: number[] = [];
      const retryStore = createS3ObjectStore(new S3Client({ region: 'eu-west-1' }), 'findings', {
        conflicts: { baseMs: 100, capMs: 1_000, totalMs: 3_000 },
        sleep: async (ms) => {
          slept.push(ms);
        },
        random: () => jitter,
      });
      return { retryStore, slept };
    };

    it('retries the same conditional write with full-jitter exponential backoff until it goes through', async () => {
      s3Mock.on(PutObjectCommand).rejectsOnce(conflict()).rejectsOnce(conflict()).resolves({ ETag: '"e3"' });
      const { retryStore, slept } = retrying(0.5);
      expect(await retryStore.put('current/a.json', '{}', { ifMatch: '"e1"' })).toEqual({ etag: '"e3"' });
      expect(slept).toEqual([50, 100]);
      expect(s3Mock).toHaveReceivedCommandTimes(PutObjectCommand, 3);
      expect(s3Mock).toHaveReceivedNthCommandWith(PutObjectCommand, 3, { IfMatch: '"e1"' });
    });

    it('gives up after the total delay with an error naming the key', async () => {
      s3Mock.on(PutObjectCommand).rejects(conflict());
      const { retryStore, slept } = retrying(0.999);
      const failure = retryStore.put('current/a.json', '{}', { ifNoneMatch: '*' });
      await expect(failure).rejects.toBeInstanceOf(StoreConflictError);
      await expect(failure).rejects.toThrow(
        /s3:\/\/findings\/current\/a\.json: .*409 ConditionalRequestConflict/,
      );
      expect(slept.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(3_000);
      expect(Math.max(...slept)).toBeLessThanOrEqual(1_000);
    });

    it("a 412 on a retry is the caller's signal to re-read, not another retry", async () => {
      s3Mock
        .on(PutObjectCommand)
        .rejectsOnce(conflict())
        .rejectsOnce(
          new S3ServiceException({
            name: 'PreconditionFailed',
            $fault: 'client',
            $metadata: { httpStatusCode: 412 },
          }),
        );
      const { retryStore } = retrying(0.5);
      await expect(retryStore.put('current/a.json', '{}', { ifMatch: '"e1"' })).rejects.toBeInstanceOf(
        PreconditionFailedError,
      );
      expect(s3Mock).toHaveReceivedCommandTimes(PutObjectCommand, 2);
    });
  });

  it('deletes conditionally: If-Match is sent, 412 is PreconditionFailedError, a missing key is fine', async () => {
    s3Mock
      .on(DeleteObjectCommand)
      .resolvesOnce({})
      .rejectsOnce(
        new S3ServiceException({
          name: 'PreconditionFailed',
          $fault: 'client',
          $metadata: { httpStatusCode: 412 },
        }),
      )
      .rejectsOnce(new NoSuchKey({ message: 'gone', $metadata: { httpStatusCode: 404 } }));
    await store.delete('quarantine/x.json', { ifMatch: '"e1"' });
    expect(s3Mock).toHaveReceivedCommandWith(DeleteObjectCommand, {
      Key: 'quarantine/x.json',
      IfMatch: '"e1"',
    });
    await expect(store.delete('current/a.json', { ifMatch: '"e1"' })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(store.delete('current/a.json', { ifMatch: '"e1"' })).resolves.toBeUndefined();
  });
});
