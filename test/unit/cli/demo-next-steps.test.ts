import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoNextSteps } from '../../../cli/demo/next-steps.js';
import { ESTATE_DIR } from '../../../cli/demo/run-demo.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { REPO_ROOT, runCli } from '../../helpers/integration.js';

/**
 * The remediate command the demo ends with, run as printed (npm start runs in the repository): it
 * named only the store, so its revert said "The root module directory is not known" and left out the
 * workspace's `terraform init`. It names the demo's registry, and the revert says where to run.
 */
const store = mkdtempSync(join(tmpdir(), 'driftwatch-demo-next-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));
let id = '';

beforeAll(async () => {
  const now = new Date();
  const recorded = await createFindingsStore(createFsObjectStore(store)).recordWorkspace(
    { scanId: 'demo', startedAt: now, now },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [driftDraft()],
  );
  id = recorded.current.findings[0]!.id;
});

describe('the demo next steps', () => {
  const lines = demoNextSteps({
    storeDir: store,
    everyoneReport: 'reports/scan=s/everyone.html',
    registryFile: join(ESTATE_DIR, 'driftwatch.yaml'),
    cwd: REPO_ROOT,
  });
  const remediate = lines.find((line) => line.startsWith('Prepare a reviewed fix: '))!;

  it('names the registry relative to where npm start runs', () => {
    expect(remediate).toBe(
      `Prepare a reviewed fix: npx driftwatch remediate <id> --revert (or --adopt) --store ${store} --registry examples/estate/driftwatch.yaml`,
    );
  });

  it('is a command that tells where to run the revert', async () => {
    const words = remediate
      .replace(/^Prepare a reviewed fix: npx driftwatch /, '')
      .replace(' (or --adopt)', '')
      .replace('<id>', id.slice(0, 12))
      .split(' ');
    const run = await runCli(words, { cwd: REPO_ROOT });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `Run through the team's pipeline, in examples/estate/payments (from registry ${join(ESTATE_DIR, 'driftwatch.yaml')}):\n  terraform init -input=false -backend-config=bucket=driftwatch-demo-tfstate -backend-config=key=payments/prod.tfstate`,
    );
    expect(run.stdout).not.toContain('The root module directory is not known');
  });
});
