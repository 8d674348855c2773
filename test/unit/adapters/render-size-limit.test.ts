import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { createManifestReader } from '../../../functions/adapters/manifest-source.js';

/**
 * kustomize's and helm's output is cut at 64 MiB; a render CI put in S3, or a directory of plain
 * manifests, was read whole whatever its size: a wrong upload (a log, an archive) became one string
 * that ran out of memory or past V8's longest string ("RangeError"). The same limit holds for every
 * source, checked by size before anything is read.
 */
const LIMIT = 64 * 1024 * 1024;
const s3 = mockClient(S3Client);
const dir = mkdtempSync(join(tmpdir(), 'render-size-'));
afterAll(() => {
  s3.restore();
  rmSync(dir, { recursive: true, force: true });
});

const CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shop}\n';
const reader = createManifestReader({ registryDir: dir, s3: () => new S3Client({ region: 'eu-west-1' }) });

function unreadBody() {
  const fail = async () => {
    throw new Error('the body of an oversized render was read');
  };
  return { transformToString: fail, transformToByteArray: fail, destroy: () => {} };
}

describe('a render over 64 MiB is refused by its size, from every source', () => {
  it('an S3 render, by its listed size, before its body is read', async () => {
    s3.on(GetObjectCommand).resolves({ ContentLength: LIMIT + 1, Body: unreadBody() } as never);
    await expect(reader({ s3: 's3://renders/shop/prod.yaml' })).rejects.toThrow(
      's3://renders/shop/prod.yaml is 65 MiB, over the 64 MiB limit of a render: is it the right render?',
    );
  });

  it('a directory whose files add up to more, before any is read', async () => {
    const manifests = join(dir, 'manifests');
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'a.yaml'), CONFIG_MAP);
    // Sparse: the size is listed, no disk is used.
    writeFileSync(join(manifests, 'b.yaml'), '');
    truncateSync(join(manifests, 'b.yaml'), LIMIT);
    await expect(reader({ directory: 'manifests' })).rejects.toThrow(
      `the manifests directory ${manifests} is 65 MiB, over the 64 MiB limit of a render`,
    );
  });

  it('under the limit, both are read as before', async () => {
    s3.on(GetObjectCommand).resolves({
      ContentLength: CONFIG_MAP.length,
      Body: { transformToString: async () => CONFIG_MAP },
    } as never);
    expect((await reader({ s3: 's3://renders/shop/prod.yaml' })).text).toBe(CONFIG_MAP);
    const small = join(dir, 'small');
    mkdirSync(small);
    writeFileSync(join(small, 'a.yaml'), CONFIG_MAP);
    expect((await reader({ directory: 'small' })).text).toContain('name: a');
  });
});
