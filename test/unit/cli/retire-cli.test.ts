import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retireAction } from '../../../cli/commands/retire-action.js';
import { CliError, UsageError } from '../../../cli/usage.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { bucketScope } from '../../../functions/core/routing/scopes.js';
import { actionOutput } from '../../helpers/action-output.js';
import { driftDraft } from '../../helpers/findings.js';
import { HEADER, WORKSPACE, yaml } from '../core/registry/helpers.js';

/**
 * A workspace removed from (or renamed in) the registry kept its open findings for ever: no scan
 * records its scope again, so listings, the API, the report and Athena counted them as open drift.
 * `driftwatch retire <scope>` resolves them as a scan that found nothing would, with history lines,
 * and refuses a scope the registry still scans (its findings would come back `regressed`).
 */
let dir: string;
let storeDir: string;
let registryFile: string;
const night = new Date('2026-12-01T02:00:00Z');

async function recordNight(scope: string, addresses: string[], check: 'terraform' | 'backend' = 'terraform') {
  const store = createFindingsStore(createFsObjectStore(storeDir));
  await store.recordWorkspace(
    { scanId: 'night-1', startedAt: night, now: night },
    { workspace: scope, check, outcome: 'ok' },
    addresses.map((address) =>
      driftDraft({ workspace: scope, resource: { address, type: 'aws_s3_bucket' } }),
    ),
  );
}

function retire(scope: string, options: { dryRun?: boolean } = {}) {
  return actionOutput((run) =>
    retireAction(run, scope, { registry: registryFile, store: storeDir, ...options }),
  );
}

const openOf = async (scope: string) =>
  (await createFindingsStore(createFsObjectStore(storeDir)).openFindings()).filter(
    (finding) => finding.workspace === scope,
  );

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftwatch-retire-'));
  storeDir = join(dir, 'store');
  registryFile = join(dir, 'driftwatch.yaml');
  // payments-prod (state in tfstate-prod) is registered; old-payments was removed from the registry.
  writeFileSync(registryFile, yaml(...HEADER, 'workspaces:', ...WORKSPACE));
  await recordNight('old-payments', ['aws_s3_bucket.ledger', 'aws_s3_bucket.audit']);
  await recordNight('old-payments', ['aws_s3_bucket.ledger'], 'backend');
  await recordNight('payments-prod', ['aws_s3_bucket.ledger']);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('driftwatch retire', () => {
  it('lists with --dry-run what it would resolve and changes nothing', async () => {
    const { out, code } = await retire('old-payments', { dryRun: true });
    expect(code).toBe(0);
    // The summary, then one line per finding.
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('would resolve 3 open finding(s) of old-payments (nothing changed: --dry-run)');
    expect(lines.slice(1)).toHaveLength(3);
    expect(
      lines.slice(1).every((line) => /^ {2}[0-9a-f]{12} {2}aws_s3_bucket\.\w+ {2}drift\.update$/.test(line)),
    ).toBe(true);
    expect(await openOf('old-payments')).toHaveLength(3);
  });

  it('resolves every open finding of a scope the registry no longer has, each check, with history', async () => {
    const { out, code } = await retire('old-payments');
    expect(code).toBe(0);
    expect(out).toMatch(/^retired old-payments: resolved 3 open finding\(s\) \(run retire-/);
    expect(await openOf('old-payments')).toEqual([]);
    // Another scope is untouched.
    expect(await openOf('payments-prod')).toHaveLength(1);
    // The resolutions are history, as a scan's are (the report, Athena and findings --status resolved read it).
    const store = createFindingsStore(createFsObjectStore(storeDir));
    const history = await store.recentHistory(new Date(), 30, 'old-payments');
    const resolved = history.filter((finding) => finding.status === 'resolved');
    expect(resolved).toHaveLength(3);
    expect(new Set(resolved.map((finding) => finding.scanId)).size).toBe(1);
    expect(resolved[0]!.scanId).toMatch(/^retire-/);
    // Again: nothing left to retire, said so, nothing written.
    const again = await retire('old-payments');
    expect(again.code).toBe(0);
    expect(again.out).toContain('old-payments has no open finding');
  });

  it('refuses a scope the registry still scans, a workspace or its state bucket, and changes nothing', async () => {
    for (const scope of ['payments-prod', bucketScope('tfstate-prod')]) {
      const refused = await retire(scope).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toContain(`${scope} is still in ${registryFile}`);
    }
    expect(await openOf('payments-prod')).toHaveLength(1);
  });

  it('refuses what cannot be a scope before reading anything, and says when only the case is wrong', async () => {
    const refused = await retire('../current/x').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toContain('is not a scope');
    const upper = await retire('OLD-PAYMENTS').catch((error: unknown) => error);
    expect((upper as Error).message).toContain('(ids are lower case: old-payments)');
  });

  it('takes s3.<bucket> as typed for a bucket whose scope is shortened', async () => {
    const bucket = `tfstate-${'long-'.repeat(9)}archive01`; // 62 characters: s3.<bucket> is 65
    await recordNight(bucketScope(bucket), ['aws_s3_bucket.state'], 'backend');
    expect(bucketScope(bucket)).not.toBe(`s3.${bucket}`);
    const { out, code } = await retire(`s3.${bucket}`);
    expect(code).toBe(0);
    expect(out).toContain(`retired ${bucketScope(bucket)}: resolved 1 open finding(s)`);
  });

  it('says so, exit 1, when a finding cannot be resolved (stored without the check that made it)', async () => {
    const path = join(storeDir, 'current', 'old-payments.json');
    const document = JSON.parse(readFileSync(path, 'utf8')) as { findings: Record<string, unknown>[] };
    delete document.findings[0]!.check;
    writeFileSync(path, JSON.stringify(document));
    const failure = await retire('old-payments').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as Error).message).toMatch(/^1 open finding\(s\) of old-payments have no recorded check/);
  });

  it('names the scopes it knows when the one given holds nothing', async () => {
    const missing = await retire('old-paymnts').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CliError);
    expect(missing).not.toBeInstanceOf(UsageError);
    expect((missing as Error).message).toContain(
      'holds no findings of old-paymnts (did you mean old-payments?)',
    );
  });
});
