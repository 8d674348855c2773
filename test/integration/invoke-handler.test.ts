import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlerNames } from '../../cli/commands/invoke.js';
import { createStateBucket, type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { parseRegistry } from '../../functions/core/registry/parse.js';
import { REPO_ROOT, runCli, useMoto, useTempDir } from '../helpers/integration.js';

/**
 * Every handler has a sample event under events/, and `driftwatch invoke` runs it for real:
 * here the ScanTerraform handler scans the demo estate's staging workspace in moto.
 */
const aws = useMoto();
const temp = useTempDir();
const event = JSON.parse(readFileSync(join(REPO_ROOT, 'events/scan-terraform.json'), 'utf8'));
let staged: StagedWorkspace;

beforeAll(async () => {
  const registry = parseRegistry(readFileSync(join(REPO_ROOT, event.registry), 'utf8'));
  const workspace = registry.workspaces.find((entry) => entry.id === event.workspace)!;
  await createStateBucket(aws.s3, workspace.backend.bucket, workspace.backend.region);
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'examples/estate', 'dir' in workspace.source ? workspace.source.dir : ''),
    backend: workspace.backend,
    env: workspace.env,
  });
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
});

afterAll(async () => {
  await staged?.dispose();
});

describe('driftwatch invoke', () => {
  it('has a sample event for every handler', () => {
    for (const name of handlerNames()) {
      expect(() => readFileSync(join(REPO_ROOT, 'events', `${name}.json`), 'utf8'), name).not.toThrow();
    }
  });

  it('scans a workspace from an S3 source bundle, with the registry in S3 and findings in the findings bucket', async () => {
    const bundle = join(temp.path, 'estate.tgz');
    await tar.c({ gzip: true, file: bundle, cwd: join(REPO_ROOT, 'examples') }, ['estate']);
    for (const bucket of ['bundles', 'config', 'findings']) {
      await aws.s3.send(
        new CreateBucketCommand({
          Bucket: bucket,
          CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
        }),
      );
    }
    await aws.s3.send(
      new PutObjectCommand({ Bucket: 'bundles', Key: 'estate.tgz', Body: readFileSync(bundle) }),
    );
    const registry = readFileSync(join(REPO_ROOT, event.registry), 'utf8').replace(
      'source: { dir: payments }\n    backend: { bucket: driftwatch-demo-tfstate, key: payments/staging.tfstate',
      'source: { s3: "s3://bundles/estate.tgz", path: estate/payments }\n    backend: { bucket: driftwatch-demo-tfstate, key: payments/staging.tfstate',
    );
    expect(registry).toContain('s3://bundles/estate.tgz');
    await aws.s3.send(new PutObjectCommand({ Bucket: 'config', Key: 'driftwatch.yaml', Body: registry }));
    const eventFile = join(temp.path, 'event.json');
    writeFileSync(eventFile, JSON.stringify({ ...event, registry: 's3://config/driftwatch.yaml' }));

    const run = await runCli(['invoke', 'scan-terraform', '--event', eventFile], {
      env: { FINDINGS_BUCKET: 'findings', DRIFTWATCH_HASH_SALT: 'invoke-test-salt-00000001' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', workspace: event.workspace });
    const current = await aws.s3.send(
      new GetObjectCommand({ Bucket: 'findings', Key: `current/${event.workspace}.json` }),
    );
    expect(JSON.parse((await current.Body?.transformToString()) ?? '')).toMatchObject({
      lastScan: { scanId: event.scanId, status: 'ok' },
    });
  });

  it('runs scan-terraform with its sample event and records the scan in the store; record-findings summarises it with its timings', async () => {
    const store = join(temp.path, 'store');
    const run = await runCli(['invoke', 'scan-terraform', '--event', 'events/scan-terraform.json'], {
      env: { DRIFTWATCH_STORE: store, DRIFTWATCH_HASH_SALT: 'invoke-test-salt-00000001' },
    });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toEqual({
      scanId: event.scanId,
      workspace: event.workspace,
      status: 'ok',
      findingsKey: `scans/dt=2026-11-29/scan=${event.scanId}/${event.workspace}.jsonl`,
      findings: 0,
    });
    const current = JSON.parse(readFileSync(join(store, `current/${event.workspace}.json`), 'utf8'));
    expect(current.lastScan).toMatchObject({ scanId: event.scanId, status: 'ok' });
    // Logs are structured JSON lines on stderr.
    const logs = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logs).toContainEqual(
      expect.objectContaining({ message: 'workspace scanned', workspace: event.workspace }),
    );

    // Deployed, the summary is written by another Lambda: the scan's timings reach it through the
    // run record in the scan's scratch space.
    const recordRun = await runCli(['invoke', 'record-findings', '--event', 'events/record-findings.json'], {
      env: { DRIFTWATCH_STORE: store },
    });
    expect(recordRun.code, recordRun.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(store, JSON.parse(recordRun.stdout).summaryKey), 'utf8'));
    const timings = summary.durationsMs.workspaces[event.workspace];
    expect(timings.total).toBeGreaterThan(0);
    expect(timings.init).toBeGreaterThan(0);
    expect(timings.plans).toHaveLength(1);
    expect(timings.plans[0]).toBeGreaterThan(0);
    expect(timings.total).toBeGreaterThanOrEqual(timings.init + timings.plans[0]);
    expect(summary.workspaces).toMatchObject({ total: 3, scanned: 1, failed: 0, skipped: 2 });
  });
});
