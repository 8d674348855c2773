import { join } from 'node:path';
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
  const staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/unreachable'),
    backend: { bucket: STATE_BUCKET, key: 'unreachable/terraform.tfstate', region: REGION },
    env: { TF_VAR_s3_endpoint: aws.moto.endpoint },
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
  await staged.dispose();
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
});
