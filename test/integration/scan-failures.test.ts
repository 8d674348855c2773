import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageWorkspace } from '../../cli/demo/provision.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  allFileText,
  canary,
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  useMoto,
  useTempDir,
  writeRegistry,
} from '../helpers/integration.js';

/**
 * A scan that cannot see the truth must say so (scan-failed) and report nothing else: no
 * phantom deletions from an unreachable endpoint, no secrets from Terraform's error output.
 */
const aws = useMoto();
const temp = useTempDir();
const stderrCanary = canary('stderr');

beforeAll(async () => {
  // The state an apply of test/integration/terraform/unreachable leaves, written instead of applied:
  // its scan never reaches an endpoint, and an apply costs two provider starts.
  await aws.s3.send(
    new PutObjectCommand({
      Bucket: STATE_BUCKET,
      Key: 'unreachable/terraform.tfstate',
      Body: appliedState([
        awsResource('aws_s3_bucket', 'archive', {
          id: 'unreachable-archive',
          bucket: 'unreachable-archive',
        }),
        awsResource('aws_s3_bucket_versioning', 'archive', {
          id: 'unreachable-archive',
          bucket: 'unreachable-archive',
          versioning_configuration: [{ status: 'Enabled', mfa_delete: '' }],
        }),
      ]),
    }),
  );
});

describe('failed scans with real terraform and moto', () => {
  it("premise: Terraform's own stderr for the broken workspace carries the secret", async () => {
    const staged = await stageWorkspace({
      source: join(REPO_ROOT, 'test/integration/terraform/broken'),
      backend: { bucket: STATE_BUCKET, key: 'premise/terraform.tfstate', region: REGION },
      env: { TF_VAR_bundle_path: stderrCanary },
    });
    try {
      const raw = await runProcess('terraform', ['plan', '-no-color', '-input=false', '-lock=false'], {
        cwd: staged.dir,
        env: staged.env,
        timeoutMs: 120_000,
      });
      expect(raw.stderr).toContain(stderrCanary);
    } finally {
      await staged.dispose();
    }
  });

  it('an unreachable endpoint gives one scan-failed finding and no phantom deletions; each failing workspace fails on its own', async () => {
    const storeDir = join(temp.path, 'unreachable-store');
    const path = writeRegistry(join(temp.path, 'driftwatch.yaml'), [
      {
        id: 'unreachable',
        dir: 'unreachable',
        env: { TF_VAR_s3_endpoint: 'http://127.0.0.1:1', TF_VAR_max_retries: '1' },
      },
      { id: 'broken', dir: 'broken', env: { TF_VAR_bundle_path: stderrCanary } },
      {
        id: 'pinned',
        dir: 'minimal',
        env: { TF_VAR_name: 'pinned' },
        extra: ['    terraformVersion: 0.12.31'],
      },
    ]);
    const run = await runCli(['scan', '--registry', path, '--store', storeDir, '--format', 'json'], {
      env: {
        DRIFTWATCH_HASH_SALT: 'integration-test-salt-0003',
        // 0.12.31 is not on this machine: with the releases unreachable (offline, as in CI) the pin fails at init.
        DRIFTWATCH_TERRAFORM_RELEASES: 'http://127.0.0.1:1/terraform',
        DRIFTWATCH_BINARY_CACHE: join(temp.path, 'binaries'),
      },
    });
    expect(run.code).toBe(1);
    const findings = JSON.parse(run.stdout) as Finding[];

    const unreachable = findings.filter((finding) => finding.workspace === 'unreachable');
    expect(unreachable).toHaveLength(1);
    expect(unreachable[0]).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.plan-errored' });
    expect(unreachable[0]!.detail).toMatch(/127\.0\.0\.1:1|connection refused/);

    // The broken workspace failed too, with Terraform's reason and without the secret it printed.
    const broken = findings.filter((finding) => finding.workspace === 'broken');
    expect(broken).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.plan-errored' })]);
    expect(broken[0]!.detail).toContain('Invalid function argument');
    // A workspace pinned to a Terraform version this machine lacks fails clearly before init.
    const pinned = findings.filter((finding) => finding.workspace === 'pinned');
    expect(pinned).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.init-failed' })]);
    expect(pinned[0]!.detail).toContain('pins terraform 0.12.31: could not download');

    const everything = [run.stdout, run.stderr, allFileText(storeDir)].join('\n');
    expect(everything).not.toContain(stderrCanary);
  });

  it('a deletion the provider could not read (its API answered 403) is a failed scan naming the call, not drift', async () => {
    // An S3 API that refuses everything: the AWS provider takes HeadBucket's 403 for "not found" and
    // the refresh-only plan reports the bucket deleted outside Terraform, with no error at all.
    const refusing = createServer((request, response) => {
      request.resume();
      response
        .writeHead(403, { 'content-type': 'application/xml' })
        .end(request.method === 'HEAD' ? undefined : '<Error><Code>AccessDenied</Code></Error>');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      // The state as an apply leaves it, written instead of applied (an apply costs a provider start).
      await aws.s3.send(
        new PutObjectCommand({
          Bucket: STATE_BUCKET,
          Key: 'denied/terraform.tfstate',
          Body: readDeniedState(),
        }),
      );
      const storeDir = join(temp.path, 'denied-store');
      const path = writeRegistry(join(temp.path, 'denied.yaml'), [
        {
          id: 'denied',
          dir: 'read-denied',
          env: { TF_VAR_s3_endpoint: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}` },
        },
      ]);
      const run = await runCli(['scan', '--registry', path, '--store', storeDir, '--format', 'json'], {
        env: { DRIFTWATCH_HASH_SALT: 'integration-test-salt-0003' },
      });
      expect(run.code).toBe(1);
      const findings = (JSON.parse(run.stdout) as Finding[]).filter(
        (finding) => finding.workspace === 'denied',
      );
      expect(findings).toEqual([
        expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.read-failed' }),
      ]);
      expect(findings[0]!.title).toContain(
        'aws_s3_bucket.data reported deleted without proof: S3/HeadBucket: HTTP 403',
      );
      expect(findings[0]!.detail).toContain('s3:ListBucket');
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});

/** The state of test/integration/terraform/read-denied after an apply: one bucket, two terraform_data. */
function readDeniedState(): string {
  const pad = (id: string, index: number) => ({
    index_key: index,
    schema_version: 0,
    attributes: { id, input: null, output: null, triggers_replace: null },
  });
  return appliedState([
    awsResource('aws_s3_bucket', 'data', { id: 'read-denied-data', bucket: 'read-denied-data' }),
    {
      mode: 'managed',
      type: 'terraform_data',
      name: 'pad',
      provider: 'provider["terraform.io/builtin/terraform"]',
      instances: [pad('a', 0), pad('b', 1)],
    },
  ]);
}

/** One AWS resource of a state, with the attributes its refresh needs (the provider fills the rest). */
function awsResource(type: string, name: string, attributes: Record<string, unknown>) {
  return {
    mode: 'managed',
    type,
    name,
    provider: 'provider["registry.terraform.io/hashicorp/aws"]',
    instances: [{ schema_version: 0, attributes }],
  };
}

/** A state file (format 4) as Terraform 1.11 writes it after an apply of these resources. */
function appliedState(resources: unknown[]): string {
  return JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial: 1,
    lineage: randomUUID(),
    outputs: {},
    resources,
    check_results: null,
  });
}
