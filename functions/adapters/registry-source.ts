import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Registry } from '../core/registry/model.js';
import { parseRegistry } from '../core/registry/parse.js';
import { parseS3Uri } from './s3-bundle.js';

export interface LoadedRegistrySource {
  registry: Registry;
  /** Relative `source.dir` entries resolve against this (meaningless for S3 registries: use S3 bundles). */
  dir: string;
}

/** Reads the registry from `s3://bucket/key` (deployed) or a file path (local), and validates it. */
export async function loadRegistrySource(location: string, s3: S3Client): Promise<LoadedRegistrySource> {
  if (location.startsWith('s3://')) {
    const { bucket, key } = parseS3Uri(location);
    const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const text = (await response.Body?.transformToString('utf8')) ?? '';
    return { registry: parseRegistry(text, { fileName: location }), dir: process.cwd() };
  }
  const path = resolve(location);
  return {
    registry: parseRegistry(await readFile(path, 'utf8'), { fileName: location }),
    dir: dirname(path),
  };
}
