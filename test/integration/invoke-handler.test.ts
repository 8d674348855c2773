import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('runs scan-terraform with its sample event and records the scan in the store', async () => {
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
  });
});
