import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, motoEnvironment, startMoto } from '../../cli/demo/moto.js';
import { runCli } from '../helpers/integration.js';

/**
 * The findings store in S3, against a real moto_server: a bucket that does not exist is an error with
 * the SDK's name, the endpoint and the fix (exit 1), never "No findings."; an existing empty one is
 * a store with no findings.
 */
let moto: MotoServer;
let env: Record<string, string>;

beforeAll(async () => {
  moto = await startMoto();
  env = { ...motoEnvironment(moto.endpoint), DRIFTWATCH_HASH_SALT: 'cli-store-errors-salt-01' };
  const s3 = new S3Client({
    endpoint: moto.endpoint,
    region: 'eu-west-1',
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  await s3.send(
    new CreateBucketCommand({
      Bucket: 'findings-empty',
      CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
    }),
  );
});
afterAll(async () => {
  await moto?.stop();
});

describe('findings and suppress with an S3 store', () => {
  it('a missing bucket is one line naming NoSuchBucket and the endpoint; an empty one has no findings', async () => {
    const id = 'a'.repeat(64);
    const [findings, health, suppress, empty] = await Promise.all([
      runCli(['findings', '--store', 's3://findings-missing'], { env }),
      runCli(['findings', '--health', '--store', 's3://findings-missing'], { env }),
      runCli(
        [
          'suppress',
          id,
          '--reason',
          'r',
          '--until',
          new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10),
          '--by',
          'b',
          '--store',
          's3://findings-missing',
        ],
        { env },
      ),
      runCli(['findings', '--store', 's3://findings-empty'], { env }),
    ]);
    const line = `driftwatch: the bucket does not exist (NoSuchBucket) (HTTP 404 from ${moto.endpoint}): check the bucket name (--store, DRIFTWATCH_STORE, --bucket or the registry), the account the credentials belong to, and AWS_ENDPOINT_URL\n`;
    for (const run of [findings, health, suppress]) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toBe(line);
      expect(run.stdout).not.toContain('No findings.');
    }
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe('No findings.\n');
  });
});
