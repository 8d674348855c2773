import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAwsBackendReader } from '../../../functions/adapters/backend/aws-backend-reader.js';
import { listStateBucketKeys } from '../../../functions/adapters/backend/state-listing.js';
import { createS3ObjectStore } from '../../../functions/adapters/object-store/s3-object-store.js';
import { listedKey } from '../../../functions/adapters/s3-list-encoding.js';

const s3Mock = mockClient(S3Client);
const s3 = new S3Client({ region: 'eu-west-1' });

beforeEach(() => s3Mock.reset());

/**
 * Keys as S3 stores them, and as it writes them under encoding-type=url (measured against real S3:
 * a space is `+`, a `+` is %2B, `%` is %25, UTF-8 bytes and control characters percent-encoded).
 */
const KEYS: Array<[stored: string, encoded: string]> = [
  ['env/a b/terraform.tfstate', 'env/a+b/terraform.tfstate'],
  ['env/a+b/terraform.tfstate', 'env/a%2Bb/terraform.tfstate'],
  ['env/100%/terraform.tfstate', 'env/100%25/terraform.tfstate'],
  ['env/한글/terraform.tfstate', 'env/%ED%95%9C%EA%B8%80/terraform.tfstate'],
  ['env/bell\u0007/terraform.tfstate', 'env/bell%07/terraform.tfstate'],
];

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('url-encoded listings', () => {
  it('decodes what S3 encoded, and leaves keys alone when the answer is not encoded', () => {
    for (const [stored, encoded] of KEYS) expect(listedKey(encoded, 'url')).toBe(stored);
    // A server that ignored encoding-type answers raw keys and no EncodingType: `+` stays `+`.
    expect(listedKey('env/a+b/terraform.tfstate', undefined)).toBe('env/a+b/terraform.tfstate');
    // Not percent-encoding at all: no key rather than a wrong one.
    expect(listedKey('env/%E0%A4%A/x', 'url')).toBeUndefined();
  });

  it('every ListObjectsV2 and ListObjectVersions the product sends asks for url encoding', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });
    const calls = ['functions', 'cli'].flatMap(files).flatMap((path) => {
      const text = readFileSync(path, 'utf8');
      return [
        ...text.matchAll(/new (ListObjectsV2Command|ListObjectVersionsCommand|ListObjectsCommand)\(/g),
      ].map((match) => {
        // The command's argument: up to the closing `})`.
        const argument = text.slice(match.index, text.indexOf('})', match.index));
        return { where: `${path}: ${match[1]}`, encoded: argument.includes('URL_ENCODED_LISTING') };
      });
    });
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expect(calls.filter((call) => !call.encoded).map((call) => call.where)).toEqual([]);
  });

  it('the backend reader lists and compares decoded keys', async () => {
    s3Mock.on(ListObjectsV2Command).resolves({
      EncodingType: 'url',
      Contents: KEYS.map(([, encoded]) => ({ Key: encoded, Size: 1 })),
    });
    const reader = createAwsBackendReader({ s3, dynamodb: new DynamoDBClient({ region: 'eu-west-1' }) });
    expect((await collect(reader.listObjects('tfstate', 'env/'))).map((object) => object.key)).toEqual(
      KEYS.map(([stored]) => stored),
    );
    expect(s3Mock).toHaveReceivedCommandWith(ListObjectsV2Command, { EncodingType: 'url' });

    s3Mock.on(ListObjectVersionsCommand).resolves({
      EncodingType: 'url',
      Versions: [
        { Key: 'env/a+b/terraform.tfstate', VersionId: 'v2', IsLatest: true },
        // `a+b` stored: another key, whose versions are not this state's.
        { Key: 'env/a%2Bb/terraform.tfstate', VersionId: 'x1' },
      ],
    });
    const versions = await reader.recentVersions('tfstate', 'env/a b/terraform.tfstate', 5);
    expect(versions.map((version) => version.versionId)).toEqual(['v2']);
    expect(s3Mock).toHaveReceivedCommandWith(ListObjectVersionsCommand, { EncodingType: 'url' });
  });

  it('init and the findings store list decoded keys', async () => {
    s3Mock.on(ListObjectsV2Command).resolves({
      EncodingType: 'url',
      Contents: KEYS.map(([, encoded]) => ({ Key: encoded, Size: 1 })),
    });
    expect((await listStateBucketKeys(s3, 'tfstate')).sort()).toEqual(KEYS.map(([stored]) => stored).sort());
    const store = createS3ObjectStore(s3, 'findings');
    expect((await collect(store.list('env/'))).map((object) => object.key)).toEqual(
      KEYS.map(([stored]) => stored),
    );
    for (const call of s3Mock.commandCalls(ListObjectsV2Command))
      expect(call.args[0].input.EncodingType).toBe('url');
  });
});
