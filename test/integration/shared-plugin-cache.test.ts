import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stageWorkspace } from '../../cli/demo/provision.js';
import { createTerraformRunner } from '../../functions/adapters/terraform/runner.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import type { WorkspaceConfig } from '../../functions/core/registry/model.js';
import { REGION, REPO_ROOT, STATE_BUCKET, useMoto, useTempDir } from '../helpers/integration.js';

/**
 * Workspaces share one plugin cache, and an init whose lock file lacks a provider's `h1:` hash (no
 * lock file committed, as in examples/estate) reinstalls that provider into the cache: it removes
 * the cache entry, then links it anew. A plan or apply of another workspace starting its provider
 * inside that window failed with "Required plugins are not installed" (the demo, now and then).
 * The window is simulated here at its worst: the cache's packages are gone when the run goes on.
 */
useMoto();
const temp = useTempDir('driftwatch-shared-cache-');
const FIXTURE = join(REPO_ROOT, 'test/integration/terraform/minimal');

const cachedProviders = (cache: string) =>
  existsSync(join(cache, 'registry.terraform.io')) ? readdirSync(join(cache, 'registry.terraform.io')) : [];

describe('runs sharing the plugin cache', () => {
  it('premise: the fixture has no lock file, so each of its inits reinstalls the provider into the cache', () => {
    expect(existsSync(join(FIXTURE, '.terraform.lock.hcl'))).toBe(false);
  });

  it("a scan's plan does not depend on the cache entry another workspace's init replaces", async () => {
    const pluginCache = join(temp.path, 'scan-cache');
    const runner = createTerraformRunner({
      hashSensitive: createSensitiveHasher('integration-test-salt-0031'),
      registryDir: REPO_ROOT,
      workRoot: temp.path,
      pluginCacheDir: pluginCache,
    });
    const workspace: WorkspaceConfig = {
      id: 'shared-cache',
      owner: 'platform',
      environment: 'prod',
      source: { dir: FIXTURE },
      backend: { bucket: STATE_BUCKET, key: 'shared-cache/terraform.tfstate', region: REGION },
      routes: [],
      env: { TF_VAR_name: 'shared-cache-bucket' },
      varFiles: [],
    };
    const prepared = await runner.prepare(workspace, undefined);
    try {
      expect(cachedProviders(pluginCache)).toEqual(['hashicorp']);
      rmSync(join(pluginCache, 'registry.terraform.io'), { recursive: true, force: true });
      const run = await prepared.plan();
      expect(run.errorSummary).toBeUndefined();
      expect(run.plan.errored).toBe(false);
      expect(run.plan.drift).toEqual([]);
    } finally {
      await prepared.close();
    }
  });

  it("a staged workspace's apply does not depend on it either (the demo provisions in parallel)", async () => {
    const pluginCache = join(temp.path, 'stage-cache');
    const stage = await stageWorkspace({
      source: FIXTURE,
      backend: { bucket: STATE_BUCKET, key: 'staged/terraform.tfstate', region: REGION },
      env: { TF_VAR_name: 'staged-bucket' },
      baseEnv: { ...process.env, TF_PLUGIN_CACHE_DIR: pluginCache },
    });
    try {
      expect(cachedProviders(pluginCache)).toEqual(['hashicorp']);
      rmSync(join(pluginCache, 'registry.terraform.io'), { recursive: true, force: true });
      await stage.terraform(['validate']);
    } finally {
      await stage.dispose();
    }
  });
});
