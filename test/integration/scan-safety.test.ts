import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CopyObjectCommand, HeadObjectCommand, PutBucketTaggingCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StagedWorkspace, stageWorkspace } from '../../cli/demo/provision.js';
import { runLocalScan } from '../../cli/local-runner.js';
import type { LoadedRegistry } from '../../cli/registry-file.js';
import { createLogger } from '../../functions/adapters/logger.js';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import { createScanPorts } from '../../functions/adapters/scan-ports.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import {
  DEFAULT_LOCK_SETTINGS,
  DEFAULT_NOTIFICATION_SETTINGS,
  DEFAULT_POLICIES,
  DEFAULT_SUPPRESSION_SETTINGS,
  type WorkspaceConfig,
} from '../../functions/core/registry/model.js';
import type { ScanPorts } from '../../functions/core/scan/ports.js';
import {
  bucketVersions,
  REGION,
  REPO_ROOT,
  STATE_BUCKET,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';
import { applyWaitingAtPrompt } from '../helpers/terraform-locks.js';

/**
 * The scan must never interfere with a real apply: it takes no lock, writes nothing to the state
 * bucket, and notices when state changes under it (rescan once, then report the workspace busy).
 */
const aws = useMoto();
const temp = useTempDir();
const STATE_KEY = 'safety/terraform.tfstate';
const hashSensitive = createSensitiveHasher('integration-test-salt-0002');
let staged: StagedWorkspace;

const workspace: WorkspaceConfig = {
  id: 'safety-prod',
  owner: 'platform',
  environment: 'prod',
  source: { dir: join(REPO_ROOT, 'test/integration/terraform/minimal') },
  backend: { bucket: STATE_BUCKET, key: STATE_KEY, region: REGION },
  routes: [],
  env: { TF_VAR_name: 'safety-bucket' },
  varFiles: [],
};
const loaded: LoadedRegistry = {
  registry: {
    version: 1,
    owners: {
      fallback: 'platform',
      teams: [{ id: 'platform', destinations: [{ type: 'email', address: 'team@example.com' }] }],
    },
    workspaces: [workspace],
    policies: DEFAULT_POLICIES,
    locks: DEFAULT_LOCK_SETTINGS,
    clusters: [],
    notifications: DEFAULT_NOTIFICATION_SETTINGS,
    suppressions: DEFAULT_SUPPRESSION_SETTINGS,
  },
  dir: REPO_ROOT,
  path: join(REPO_ROOT, 'driftwatch.yaml'),
};

beforeAll(async () => {
  staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/minimal'),
    backend: workspace.backend,
    env: workspace.env,
  });
  // Scanned straight after the apply, as drift-scenarios.test.ts scans its workspace: whatever noise
  // a refresh-only plan reports then, the scan removes it, so the tag below is the only finding.
  await staged.terraform(['apply', '-auto-approve', '-input=false']);
  // The drift every scan below must find.
  await aws.s3.send(
    new PutBucketTaggingCommand({
      Bucket: 'safety-bucket',
      Tagging: { TagSet: [{ Key: 'Owner', Value: 'intruder' }] },
    }),
  );
});

afterAll(async () => {
  await staged?.dispose();
});

function scan(name: string, ports?: (scanId: string) => ScanPorts, workRoot?: string) {
  return runLocalScan({
    loaded,
    store: createFsObjectStore(join(temp.path, name)),
    hashSensitive,
    logger: createLogger({ write: () => {} }),
    // The scan itself is under test here; state backends and locks have backend-locks.test.ts.
    backendChecks: false,
    ports,
    runner: workRoot ? { workRoot } : undefined,
  });
}

/** A concurrent writer: copies the state object onto itself, which makes a new version. */
async function writeState(): Promise<void> {
  await aws.s3.send(
    new CopyObjectCommand({
      Bucket: STATE_BUCKET,
      Key: STATE_KEY,
      CopySource: `${STATE_BUCKET}/${STATE_KEY}`,
      MetadataDirective: 'REPLACE',
      Metadata: { writer: `concurrent-${Date.now()}` },
    }),
  );
}

/** The real ports, with a state write injected after the given reads of the state version. */
function portsWritingStateAfterReads(writeAfterReads: number[]) {
  return (scanId: string): ScanPorts => {
    const real = createScanPorts({ scanId, registryDir: REPO_ROOT, hashSensitive });
    let reads = 0;
    return {
      ...real,
      async stateVersion(config, credentials) {
        reads++;
        if (writeAfterReads.includes(reads)) await writeState();
        return real.stateVersion(config, credentials);
      },
    };
  };
}

describe('scan safety with real terraform and moto', () => {
  it('a lock held by a waiting apply does not stop the scan, and the scan writes nothing', async () => {
    // The tag drift gives the apply something to revert, so it stops at its prompt holding the lock.
    const apply = await applyWaitingAtPrompt(staged, []);
    try {
      const lock = await aws.s3.send(
        new HeadObjectCommand({ Bucket: STATE_BUCKET, Key: `${STATE_KEY}.tflock` }),
      );
      expect(lock.ContentLength).toBeGreaterThan(0);
      const before = await bucketVersions(aws.s3, STATE_BUCKET);
      const workRoot = mkdtempSync(join(temp.path, 'work-'));
      const result = await scan('locked', undefined, workRoot);
      const after = await bucketVersions(aws.s3, STATE_BUCKET);
      expect(after).toEqual(before);
      // The working directory, the saved plan and its JSON (plaintext secrets) are gone.
      expect(readdirSync(workRoot)).toEqual([]);
      expect(result.findings).toEqual([
        expect.objectContaining({
          ruleId: 'drift.update',
          drift: expect.objectContaining({
            changes: [expect.objectContaining({ path: 'tags.Owner', after: 'intruder' })],
          }),
        }),
      ]);
    } finally {
      await apply.release();
    }
  });

  it('state written during the plan triggers one rescan, whose result is reported', async () => {
    const result = await scan('rescan', portsWritingStateAfterReads([2]));
    const outcome = result.outcomes[0]!;
    expect(outcome.result?.plansRun).toBe(2);
    expect(outcome.result?.status).toBe('ok');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]!.evidence).toMatchObject({ rescannedAfterStateChange: true });
  });

  it('state written during the rescan too: workspace-busy (info), no drift reported', async () => {
    const result = await scan('busy', portsWritingStateAfterReads([2, 4]));
    expect(result.outcomes[0]!.result?.status).toBe('busy');
    expect(result.findings).toEqual([expect.objectContaining({ kind: 'workspace-busy', severity: 'info' })]);
  });
});
