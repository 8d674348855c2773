import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type GetObjectCommandOutput, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';

/** Parses `s3://bucket/key`. */
export function parseS3Uri(uri: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) throw new Error(`not an s3://bucket/key URI: ${uri}`);
  return { bucket: match[1]!, key: match[2]! };
}

/** S3's answer for a key that does not exist (the SDK class, or its name across SDK copies). */
export function isNoSuchKey(error: unknown): boolean {
  return error instanceof NoSuchKey || (error as { name?: string } | undefined)?.name === 'NoSuchKey';
}

/**
 * Refuses an object by the size S3 lists for it, before its body is read: one string of a wrong
 * upload (a log, an archive, a huge state) would fill the memory or pass V8's longest string. The
 * body is let go (its connection closed) instead of drained. `tooLarge` makes the caller's error.
 */
export function refuseLargerThan(
  response: GetObjectCommandOutput,
  maxBytes: number,
  tooLarge: (length: number) => Error,
): void {
  const length = response.ContentLength ?? 0;
  if (length <= maxBytes) return;
  (response.Body as { destroy?: () => void } | undefined)?.destroy?.();
  throw tooLarge(length);
}

/** Streams an S3 object (a workspace's source bundle) to a local file without buffering it. */
export function createBundleDownloader(s3: S3Client) {
  return async (uri: string, destination: string): Promise<void> => {
    const { bucket, key } = parseS3Uri(uri);
    const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!response.Body) throw new Error(`${uri} is empty`);
    await pipeline(response.Body as Readable, createWriteStream(destination, { mode: 0o600 }));
  };
}
