import { dirname, resolve } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Registry } from '../core/registry/model.js';
import { parseRegistry } from '../core/registry/parse.js';
import { MAX_REGISTRY_BYTES, readRegistryBytes, registryText, tooLarge } from './registry-text.js';
import { parseS3Uri, refuseLargerThan } from './s3-bundle.js';

export interface LoadedRegistrySource {
  registry: Registry;
  /** Relative `source.dir` entries resolve against this (meaningless for S3 registries: use S3 bundles). */
  dir: string;
}

/** Reads the registry from `s3://bucket/key` (deployed) or a file path (local), and validates it. */
export async function loadRegistrySource(location: string, s3: S3Client): Promise<LoadedRegistrySource> {
  if (location.startsWith('s3://')) {
    const { bucket, key } = parseS3Uri(location);
    const text = registryText(await readS3Bytes(s3, bucket, key, location), location);
    return { registry: parseRegistry(text, { fileName: location }), dir: process.cwd() };
  }
  const path = resolve(location);
  const text = registryText(readRegistryBytes(path, location), location);
  return { registry: parseRegistry(text, { fileName: location }), dir: dirname(path) };
}

/** An S3 registry's body, refused by its listed size before it is fetched when that is over the limit. */
async function readS3Bytes(s3: S3Client, bucket: string, key: string, name: string): Promise<Uint8Array> {
  const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  refuseLargerThan(response, MAX_REGISTRY_BYTES, (length) => tooLarge(name, length));
  return (await response.Body?.transformToByteArray()) ?? new Uint8Array();
}
