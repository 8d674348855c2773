import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, motoEnvironment, startMoto } from '../../cli/demo/moto.js';
import { runCli, useTempDir } from '../helpers/integration.js';

/**
 * The findings store in S3, against a real moto_server: a bucket that does not exist is an error with
 * the SDK's name, the endpoint and the fix (exit 1), never "No findings."; an existing empty one is
 * a store with no findings.
 */
let moto: MotoServer;
let env: Record<string, string>;
const temp = useTempDir('driftwatch-store-errors-');

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
  // A state bucket, as a newcomer passes it to --store: objects, none of them a findings store's.
  await s3.send(
    new CreateBucketCommand({
      Bucket: 'acme-tfstate',
      CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
    }),
  );
  await s3.send(new PutObjectCommand({ Bucket: 'acme-tfstate', Key: 'network/prod.tfstate', Body: '{}' }));
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

  it('a bucket holding objects no findings store writes (a state bucket) is an error, never "No findings."', async () => {
    const runs = await Promise.all(
      [
        ['findings'],
        ['findings', '--format', 'json'],
        ['findings', 'show', 'abcd'],
        ['report', '--out', join(temp.path, 'r.html')],
      ].map((args) => runCli([...args, '--store', 's3://acme-tfstate'], { env })),
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toBe(
        'driftwatch: no scan has been recorded in the findings store at s3://acme-tfstate/: it holds objects a findings store does not (network/prod.tfstate; a state bucket?): pass --store with the directory or s3://bucket a scan wrote to\n',
      );
      expect(run.stdout).not.toContain('No findings.');
      expect(run.stdout).not.toBe('[]\n');
    }
  });
});

describe('commands that record findings check the store before their real work', () => {
  it('scan and cluster-diff refuse a findings bucket that does not exist in one line, before terraform or the cluster', async () => {
    const registry = join(temp.path, 'driftwatch.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces:',
        '  - { id: app, owner: platform, environment: prod, source: { dir: app }, backend: { bucket: acme-tfstate, key: network/prod.tfstate, region: eu-west-1 } }',
        '',
      ].join('\n'),
    );
    const [scan, cluster] = await Promise.all([
      runCli(['scan', '--registry', registry, '--store', 's3://findings-missing'], { env }),
      runCli(
        ['cluster-diff', '--kustomize', temp.path, '--context', 'none', '--store', 's3://findings-missing'],
        {
          env: { ...env, KUBECONFIG: join(temp.path, 'no-kubeconfig') },
        },
      ),
    ]);
    expect(scan.code, scan.stderr).toBe(1);
    expect(scan.stderr).toBe(
      'driftwatch: the findings store s3://findings-missing does not exist (NoSuchBucket): pass --store with the bucket findings are recorded in (not a state bucket the registry names), or create it\n',
    );
    expect(cluster.code, cluster.stderr).toBe(1);
    expect(cluster.stderr).toBe(
      'driftwatch: the findings store s3://findings-missing does not exist (NoSuchBucket): pass --store with the bucket findings are recorded in, or create it\n',
    );
    for (const run of [scan, cluster]) expect(run.stdout).toBe('');
  });
});
