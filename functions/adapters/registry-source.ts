import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Registry } from '../core/registry/model.js';
import { parseRegistry } from '../core/registry/parse.js';
import { parseS3Uri, readS3Text } from './s3-bundle.js';

export interface LoadedRegistrySource {
  registry: Registry;
  /** Relative `source.dir` entries resolve against this (meaningless for S3 registries: use S3 bundles). */
  dir: string;
}

/** Reads the registry from `s3://bucket/key` (deployed) or a file path (local), and validates it. */
export async function loadRegistrySource(location: string, s3: S3Client): Promise<LoadedRegistrySource> {
  if (location.startsWith('s3://')) {
    const { bucket, key } = parseS3Uri(location);
    const text = await readS3Text(s3, bucket, key);
    return { registry: parseRegistry(text, { fileName: location }), dir: process.cwd() };
  }
  const path = resolve(location);
  return {
    registry: parseRegistry(await readFile(path, 'utf8'), { fileName: location }),
    dir: dirname(path),
  };
}
