import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRegistry } from '../../functions/core/registry/parse.js';
import { stateObjectKey } from '../../functions/core/registry/state-key.js';
import { mapConcurrently } from '../../functions/core/scan/map-concurrently.js';
import { bucketVersions, REGION, runCli, STATE_BUCKET, useMoto, useTempDir } from '../helpers/integration.js';

/**
 * From a state bucket to a registry `routes --check` accepts, against a real moto_server: init
 * lists the bucket (and writes nothing to it), the TODOs are replaced, the check passes.
 */
const aws = useMoto();
const temp = useTempDir('driftwatch-init-');

beforeAll(async () => {
  for (const key of [
    'payments/prod.tfstate',
    'payments/prod.tfstate.tflock',
    'env:/staging/payments/prod.tfstate',
    'platform/terraform.tfstate',
    'platform/terraform.tfstate.backup',
  ])
    await aws.s3.send(new PutObjectCommand({ Bucket: STATE_BUCKET, Key: key, Body: '{}' }));
});

describe('driftwatch init against moto', () => {
  it('writes a starter from the bucket; once its TODOs are filled, routes --check passes', async () => {
    const before = await bucketVersions(aws.s3, STATE_BUCKET);
    const run = await runCli(['init', '--bucket', STATE_BUCKET], { cwd: temp.path });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(
      `Wrote driftwatch.yaml: 3 workspaces from s3://${STATE_BUCKET} (${REGION}), 1 locking with use_lockfile.`,
    );
    expect(await bucketVersions(aws.s3, STATE_BUCKET)).toEqual(before);

    const path = join(temp.path, 'driftwatch.yaml');
    const starter = readFileSync(path, 'utf8');
    expect(
      parseRegistry(starter).workspaces.map((workspace) => [workspace.id, workspace.environment]),
    ).toEqual([
      ['payments-prod-staging', 'staging'],
      ['payments-prod', 'prod'],
      ['platform', 'TODO-environment'],
    ]);
    const check = await runCli(['routes', '--check'], { cwd: temp.path });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('placeholder at workspaces[2].environment (TODO-environment)');

    // What the getting-started page asks a newcomer to do by hand.
    writeFileSync(
      path,
      starter
        .replaceAll('todo-team@example.com', 'platform-oncall@example.com')
        .replaceAll('todo-team', 'platform')
        .replaceAll('TODO-environment', 'prod')
        .replaceAll('TODO-path-to-the-terraform-root', '.'),
    );
    const filled = await runCli(['routes', '--check'], { cwd: temp.path });
    expect(filled.code, filled.stdout + filled.stderr).toBe(0);
    expect(filled.stdout).toBe('Every workspace, bucket and finding kind reaches a destination.\n');
  });

  it('a bucket that does not exist: one line with the fix, exit 1', async () => {
    const run = await runCli(['init', '--bucket', 'no-such-state-bucket', '--out', 'other.yaml'], {
      cwd: temp.path,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^driftwatch: cannot list s3:\/\/no-such-state-bucket: the bucket does not exist \(NoSuchBucket\): check the name given to --bucket[^\n]*\n$/,
    );
  });

  it('lists past the first page, keeps odd keys as the same objects, leaves out what a registry cannot name', async () => {
    const bucket = 'many-states';
    await aws.s3.send(
      new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: REGION } }),
    );
    // More than one ListObjectsV2 page (1,000 keys), with the keys people and tools really write.
    const odd = ['team a/prod.tfstate', 'ünï/cødé.tfstate', 'a/../b.tfstate', 'env:/default/app.tfstate'];
    const paged = Array.from(
      { length: 1_010 },
      (_, index) => `svc/${String(index).padStart(4, '0')}.tfstate`,
    );
    const keys = [...odd, ...paged, '/lead.tfstate'];
    await mapConcurrently(keys, 16, (key) =>
      aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: '{}' })),
    );
    const run = await runCli(['init', '--bucket', bucket, '--out', 'many.yaml'], { cwd: temp.path });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `Wrote many.yaml: ${odd.length + paged.length} workspaces from s3://${bucket}`,
    );
    expect(run.stdout).toContain(
      "Note: 1 state object left out: a registry cannot name a key that starts with '/'",
    );
    const { workspaces } = parseRegistry(readFileSync(join(temp.path, 'many.yaml'), 'utf8'));
    expect(workspaces.map((workspace) => stateObjectKey(workspace)).sort()).toEqual(
      [...odd, ...paged].sort(),
    );
    expect(new Set(workspaces.map((workspace) => workspace.id)).size).toBe(workspaces.length);
  });
});
