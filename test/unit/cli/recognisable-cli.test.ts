import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderFindingDetail } from '../../../cli/finding-detail.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { compactPlan, evaluateCompactPlan } from '../../../functions/core/terraform/index.js';
import { leakedCanaries, plantPlan } from '../../helpers/canary-generator.js';
import { driftDraft, storedFinding } from '../../helpers/findings.js';
import { REPO_ROOT, runCli } from '../../helpers/integration.js';
import { context, hashSensitive } from '../../helpers/plan-builders.js';

/**
 * Issue 12 §3 through the built binary: --version, colour and width by environment, short ids and
 * id prefixes, `findings show`. Spawns are few (each costs ~0.5 s): one run checks several things.
 */

const dir = mkdtempSync(join(tmpdir(), 'driftwatch-recognisable-'));
const storeDir = join(dir, 'store');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ESC = '\u001b';
/** Our colour codes, to compare what a reader sees. */
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
/** Neither inherited colour nor width settings: each run states its own. */
const CLEAN = { FORCE_COLOR: undefined, NO_COLOR: undefined, COLUMNS: undefined };
const planted = plantPlan();
let canaryFinding: Finding;

beforeAll(async () => {
  const store = createFindingsStore(createFsObjectStore(storeDir));
  // Findings from a plan with canary secrets in every category, through the real redaction.
  const evaluation = evaluateCompactPlan(
    compactPlan(structuredClone(planted.plan), { hashSensitive }),
    context(),
  );
  const startedAt = new Date(Date.now() - 2 * 86_400_000);
  await store.recordWorkspace(
    { scanId: 'scan-a', startedAt, now: startedAt },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    evaluation.findings,
  );
  const again = new Date(Date.now() - 86_400_000);
  const recorded = await store.recordWorkspace(
    { scanId: 'scan-b', startedAt: again, now: again },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    evaluation.findings,
  );
  canaryFinding = recorded.current.findings.find((finding) => (finding.drift?.changes.length ?? 0) > 1)!;
  // Two findings sharing a prefix (real fingerprints share 4 characters only by chance).
  const crafted = (id: string) =>
    storedFinding(
      { id: id.padEnd(64, '0'), workspace: 'crafted' },
      driftDraft({ workspace: 'crafted', severity: 'high' }),
    );
  const findings = [crafted('abcd1234abcd1'), crafted('abcd1234abcd2')];
  await createFsObjectStore(storeDir).put(
    'current/crafted.json',
    JSON.stringify({
      workspace: 'crafted',
      updatedAt: findings[0]!.lastSeenAt,
      lastScan: { scanId: 'scan-1', status: 'ok', at: findings[0]!.lastSeenAt },
      checks: { terraform: { scanId: 'scan-1', status: 'ok', at: findings[0]!.lastSeenAt } },
      findings,
      resolved: [],
    }),
  );
});

const findings = (env: NodeJS.ProcessEnv) =>
  runCli(['findings', '--store', storeDir], { env: { ...CLEAN, ...env } });
const lines = (text: string) => text.trimEnd().split('\n');

describe('driftwatch --version', () => {
  it('prints the version in package.json alone, exit 0, for --version and -V', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const [long, short] = await Promise.all([runCli(['--version']), runCli(['-V'])]);
    for (const run of [long, short]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });
});

describe('driftwatch findings tables', () => {
  it('are coloured by severity with FORCE_COLOR=1 and fit COLUMNS=80 with ellipses, short ids whole', async () => {
    const run = await findings({ FORCE_COLOR: '1', COLUMNS: '80' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toContain(`${ESC}[31mHIGH${ESC}[0m`);
    const visible = lines(run.stdout.replace(SGR, ''));
    for (const line of visible) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(run.stdout).toContain('…');
    expect(visible[0]).toMatch(/^ID +SEVERITY/);
    expect(run.stdout).toContain(canaryFinding.id.slice(0, 12));
    // The crafted pair share 12 characters: the column grows until they differ (git does the same).
    expect(visible.join('\n')).toContain('abcd1234abcd1  HIGH');
  });

  it('have no colour and no width limit in a pipe by default, nor with NO_COLOR=1', async () => {
    const [plain, noColour] = await Promise.all([findings({}), findings({ NO_COLOR: '1', COLUMNS: '80' })]);
    expect(plain.stdout).not.toContain(ESC);
    expect(Math.max(...lines(plain.stdout).map((line) => line.length))).toBeGreaterThan(80);
    expect(noColour.stdout).not.toContain(ESC);
    expect(noColour.stdout).toContain('…');
  });
});

describe('finding ids by prefix', () => {
  it('findings show: a unique prefix shows the finding with its changes, remediation and no secret', async () => {
    const run = await runCli(['findings', 'show', canaryFinding.id.slice(0, 7), '--store', storeDir], {
      env: CLEAN,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(canaryFinding.id);
    expect(run.stdout).toContain(canaryFinding.remediation.summary.split('\n')[0]);
    expect(run.stdout).toMatch(/^Changes \(/m);
    for (const change of canaryFinding.drift!.changes) expect(run.stdout).toContain(`  ${change.path}`);
    // Seen by both scans: new, then ongoing.
    expect(run.stdout).toMatch(/History\n +\S+ +new\n +\S+ +ongoing/);
    expect(leakedCanaries(planted.canaries, run.stdout)).toEqual([]);
    expect(run.stdout).not.toContain(ESC);
  });

  it('no canary in the detail of any finding of the planted plan', async () => {
    const store = createFindingsStore(createFsObjectStore(storeDir), { readOnly: true });
    const open = await store.openFindings();
    const text = open.map((finding) => renderFindingDetail(finding, [], new Date())).join('\n');
    expect(open.length).toBeGreaterThan(3);
    expect(leakedCanaries(planted.canaries, text)).toEqual([]);
  });

  it('an ambiguous prefix lists the candidates in one line (exit 1); an unknown one is one line (exit 1)', async () => {
    const [ambiguous, unknown, malformed] = await Promise.all([
      runCli(['findings', 'show', 'abcd', '--store', storeDir], { env: CLEAN }),
      runCli(['findings', 'show', 'ffff0000', '--store', storeDir], { env: CLEAN }),
      runCli(['findings', 'show', 'abc', '--store', storeDir], { env: CLEAN }),
    ]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toBe(
      'driftwatch: abcd matches 2 findings: abcd1234abcd1 (open), abcd1234abcd2 (open) (give more characters of the id)\n',
    );
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toEqual([expect.stringMatching(/^driftwatch: no finding ffff0000 in /)]);
    expect(malformed.code).toBe(64);
    expect(malformed.stderr).toContain('give at least 4 characters');
  });

  it('suppress takes a unique prefix', async () => {
    const until = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const prefix = 'abcd1234abcd1';
    const run = await runCli(
      ['suppress', prefix, '--reason', 'migration', '--until', until, '--by', 'alice', '--store', storeDir],
      { env: CLEAN },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('suppressed abcd1234abcd');
    const store = createFindingsStore(createFsObjectStore(storeDir), { readOnly: true });
    const suppressed = (await store.openFindings()).filter((finding) => finding.status === 'suppressed');
    expect(suppressed.map((finding) => finding.id)).toEqual(['abcd1234abcd1'.padEnd(64, '0')]);
  });
});
