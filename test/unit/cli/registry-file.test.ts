import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../../cli/context.js';
import { loadRegistryFile } from '../../../cli/registry-file.js';
import { loadRegistrySource } from '../../../functions/adapters/registry-source.js';
import { MAX_REGISTRY_BYTES } from '../../../functions/adapters/registry-text.js';

/** A --registry that cannot be a registry is one line saying why, before YAML ever sees it. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-registry-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reasonOf(path: string): string {
  try {
    loadRegistryFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as Error).message;
  }
  throw new Error('expected a CliError');
}

/** A pipe whose writer sends `bytes` spaces: its size is unknown until it is read (as /dev/zero's is). */
function endlessPipe(name: string, bytes: number): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  const writer = spawn('sh', ['-c', `head -c ${bytes} /dev/zero | tr '\\0' ' ' > "$0"`, path], {
    stdio: 'ignore',
  });
  writer.on('error', () => {});
  return path;
}

describe('loadRegistryFile', () => {
  it('names a missing file, a directory, a non-UTF-8 file and an oversized one', () => {
    // Where a newcomer starts (scan or routes with no driftwatch.yaml here): the command that writes one.
    expect(reasonOf(join(dir, 'missing.yaml'))).toBe(
      `cannot read registry ${join(dir, 'missing.yaml')}: no such file (pass --registry with the path of your registry, or write one from your state bucket: driftwatch init --bucket <your-state-bucket>)`,
    );
    mkdirSync(join(dir, 'folder'));
    expect(reasonOf(join(dir, 'folder'))).toMatch(/: it is a directory \(pass --registry/);
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from('version: 1\nowners: "café"\n', 'latin1'));
    expect(reasonOf(latin1)).toMatch(/latin1\.yaml is not UTF-8 text/);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
    expect(reasonOf(big)).toMatch(/big\.yaml is 17 MiB, over the 16 MiB limit of a registry/);
  });

  it('stops reading a pipe or device at the limit instead of holding all it sends (--registry /dev/zero)', () => {
    const pipe = endlessPipe('endless.yaml', 4 * MAX_REGISTRY_BYTES);
    expect(reasonOf(pipe)).toMatch(/endless\.yaml is more than 16 MiB, over the 16 MiB limit of a registry/);
  });
});

describe('loadRegistrySource (the Lambda handlers)', () => {
  const s3 = mockClient(S3Client);
  afterAll(() => s3.restore());
  const client = new S3Client({ region: 'eu-west-1' });

  it.each([
    {
      name: 'an S3 object over the limit, refused by its listed size before its body is read',
      location: 's3://config-bucket/driftwatch.yaml',
      object: { ContentLength: MAX_REGISTRY_BYTES + 1, Body: unreadBody() },
      reason: /^registry s3:\/\/config-bucket\/driftwatch\.yaml is 17 MiB, over the 16 MiB limit/,
    },
    {
      name: 'an S3 object that is not UTF-8',
      location: 's3://config-bucket/latin1.yaml',
      object: { ContentLength: 8, Body: bytesBody(Buffer.from('owners: "café"', 'latin1')) },
      reason: /^registry s3:\/\/config-bucket\/latin1\.yaml is not UTF-8 text/,
    },
  ])('$name', async ({ location, object, reason }) => {
    s3.on(GetObjectCommand).resolves(object as never);
    await expect(loadRegistrySource(location, client)).rejects.toThrow(reason);
  });

  it('a file path: the same limit, for a pipe too', async () => {
    const pipe = endlessPipe('endless-lambda.yaml', 4 * MAX_REGISTRY_BYTES);
    await expect(loadRegistrySource(pipe, client)).rejects.toThrow(
      /is more than 16 MiB, over the 16 MiB limit/,
    );
  });
});

function bytesBody(bytes: Uint8Array) {
  return {
    transformToByteArray: async () => bytes,
    transformToString: async () => Buffer.from(bytes).toString(),
  };
}

function unreadBody() {
  const fail = async () => {
    throw new Error('the body of an oversized registry was read');
  };
  return { transformToByteArray: fail, transformToString: fail, destroy: () => {} };
}
