import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { driftDraft, scanFailedDraft, scanSummary } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/** `findings`, `suppress` and `routes` against a store and registries built here. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-findings-cli-'));
const storeDir = join(dir, 'store');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DAY = 86_400_000;
const now = Date.now();

beforeAll(async () => {
  const store = createFindingsStore(createFsObjectStore(storeDir));
  const old = new Date(now - 10 * DAY);
  await store.recordWorkspace(
    { scanId: 'old-scan', startedAt: old, now: old },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [driftDraft()],
  );
  const recent = new Date(now - 60_000);
  await store.recordWorkspace(
    { scanId: 'recent-scan', startedAt: recent, now: recent },
    { workspace: 'platform-prod', check: 'terraform', outcome: 'failed' },
    [scanFailedDraft({ workspace: 'platform-prod', owner: 'platform' })],
  );
  await store.writeSummary(
    { scanId: 'recent-scan', startedAt: recent },
    scanSummary('recent-scan', recent, {
      workspaces: { total: 2, scanned: 1, failed: 1, busy: 0, skipped: 0 },
      findings: { total: 2, bySeverity: {}, byKind: {} },
    }),
  );
});

const json = async (args: string[]) => {
  const run = await runCli([...args, '--store', storeDir, '--format', 'json']);
  return { ...run, findings: run.stdout ? (JSON.parse(run.stdout) as Finding[]) : [] };
};

describe('driftwatch findings', () => {
  it('lists open findings with their age, filtered by owner, workspace, kind, status and since', async () => {
    const table = await runCli(['findings', '--store', storeDir]);
    expect(table.code).toBe(1); // a scan-failed finding is open
    expect(table.stdout).toMatch(/AGE/);
    expect(table.stdout).toMatch(/aws_s3_bucket\.ledger.*10d/);
    expect((await json(['findings', '--owner', 'payments'])).findings.map((f) => f.workspace)).toEqual([
      'payments-prod',
    ]);
    expect((await json(['findings', '--workspace', 'platform-prod'])).findings.map((f) => f.kind)).toEqual([
      'scan-failed',
    ]);
    expect((await json(['findings', '--kind', 'terraform-drift'])).code).toBe(2);
    expect((await json(['findings', '--since', '1d'])).findings.map((f) => f.workspace)).toEqual([
      'platform-prod',
    ]);
    expect((await json(['findings', '--status', 'ongoing'])).findings).toEqual([]);
  });

  it('a --workspace no scan recorded is an error naming the closest, not "No findings."; a quiet one lists nothing', async () => {
    const typo = await runCli(['findings', '--store', storeDir, '--workspace', 'platform-prd']);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(
      /^driftwatch: no workspace platform-prd in the findings store .* \(did you mean platform-prod\?\): pass --workspace/,
    );
    // A recorded workspace whose filter leaves nothing is an ordinary empty listing.
    const none = await runCli([
      'findings',
      '--store',
      storeDir,
      '--workspace',
      'platform-prod',
      '--kind',
      'stale-lock',
    ]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('No findings.\n');
  });

  it('an --owner nothing belongs to is said on stderr (an error when --registry has no such team), not a bare "No findings."', async () => {
    const registry = join(dir, 'owners.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners:',
        '  fallback: platform',
        '  teams:',
        '    - { id: platform, destinations: [{ type: email, address: p@example.com }] }',
        '    - { id: payments, destinations: [{ type: email, address: pay@example.com }] }',
        '    - { id: search, destinations: [{ type: email, address: s@example.com }] }',
        'workspaces: []',
        '',
      ].join('\n'),
    );
    const cases = [
      // [args, exit code, stdout, stderr]
      [
        ['--owner', 'paymnts'],
        0,
        'No findings.\n',
        'driftwatch: no finding of the last 30 days belongs to owner paymnts (did you mean payments?) (owners in the store: payments, platform): check the spelling; with --registry, an owner it has no team for is an error\n',
      ],
      [
        ['--owner', 'paymnts', '--format', 'json'],
        0,
        '[]\n',
        'driftwatch: no finding of the last 30 days belongs to owner paymnts (did you mean payments?) (owners in the store: payments, platform): check the spelling; with --registry, an owner it has no team for is an error\n',
      ],
      [
        ['--owner', 'paymnts', '--registry', registry],
        1,
        '',
        `driftwatch: no team paymnts in ${registry} (did you mean payments?): pass --owner with one of its teams (platform, payments, search)\n`,
      ],
      // A team of the registry with nothing open, or an owner with findings filtered out: a quiet listing.
      [['--owner', 'search', '--registry', registry], 0, 'No findings.\n', ''],
      [['--owner', 'payments', '--kind', 'stale-lock'], 0, 'No findings.\n', ''],
    ] as const;
    for (const [args, code, stdout, stderr] of cases) {
      const run = await runCli(['findings', '--store', storeDir, ...args]);
      expect({ args, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        args,
        code,
        stdout,
        stderr,
      });
    }
  });

  it('rejects an unknown kind or status', async () => {
    const run = await runCli(['findings', '--store', storeDir, '--kind', 'nonsense']);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('--kind must be one of');
  });

  it('--health shows the last scans, and a missing scan with exit 1', async () => {
    const ok = await runCli(['findings', '--health', '--store', storeDir]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/recent-scan/);
    expect(ok.stdout).toContain('OK: a scan completed within the last 26h');
    mkdirSync(join(dir, 'empty'));
    const empty = await runCli(['findings', '--health', '--store', join(dir, 'empty')]);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain('SCAN MISSING');
  });

  it('a corrupt current document is one stderr line and exit 1, never "No findings.", on every listing', async () => {
    // A listing reads only: the object stays for the next scan to quarantine and report.
    const corruptDir = join(dir, 'corrupt');
    mkdirSync(join(corruptDir, 'current'), { recursive: true });
    writeFileSync(join(corruptDir, 'current', 'payments-prod.json'), '{"findings": [');
    for (const run of [
      await runCli(['findings', '--store', corruptDir]),
      await runCli(['findings', '--store', corruptDir]),
    ]) {
      expect(run.code).toBe(1);
      expect(run.stdout).not.toContain('No findings.');
      expect(run.stderr).toMatch(
        /^driftwatch: current\/payments-prod\.json in the findings store is not a valid current document \(not JSON [^\n]*\), left in place: [^\n]*\n$/,
      );
    }
    expect(readFileSync(join(corruptDir, 'current', 'payments-prod.json'), 'utf8')).toBe('{"findings": [');
  });
});

describe('driftwatch suppress', () => {
  const day = (days: number) => new Date(now + days * DAY).toISOString().slice(0, 10);

  it('suppresses an open finding with reason, expiry and author, and refuses an expiry beyond the cap', async () => {
    const [ledger] = (await json(['findings', '--owner', 'payments'])).findings;
    const tooFar = await runCli([
      'suppress',
      ledger!.id,
      '--reason',
      'r',
      '--until',
      day(120),
      '--by',
      'alice',
      '--store',
      storeDir,
    ]);
    expect(tooFar.code).toBe(64);
    expect(tooFar.stderr).toMatch(/at most 90 days/);
    const past = await runCli([
      'suppress',
      ledger!.id,
      '--reason',
      'r',
      '--until',
      day(-1),
      '--by',
      'alice',
      '--store',
      storeDir,
    ]);
    expect(past.stderr).toContain('not in the future');
    const missing = await runCli([
      'suppress',
      ledger!.id,
      '--until',
      day(10),
      '--by',
      'alice',
      '--store',
      storeDir,
    ]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("required option '--reason <text>'");

    const ok = await runCli([
      'suppress',
      ledger!.id,
      '--reason',
      'bucket migration',
      '--until',
      day(10),
      '--by',
      'alice',
      '--store',
      storeDir,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('bucket migration');
    const [suppressed] = (await json(['findings', '--status', 'suppressed'])).findings;
    expect(suppressed).toMatchObject({
      id: ledger!.id,
      suppression: { reason: 'bucket migration', by: 'alice' },
    });
  });

  it('refuses a reason or an author with a line break, control or bidi character (64, option and position named), and stores nothing', async () => {
    const [failed] = (await json(['findings', '--workspace', 'platform-prod'])).findings;
    const suppress = (reason: string, by: string) =>
      runCli([
        'suppress',
        failed!.id,
        '--reason',
        reason,
        '--until',
        day(10),
        '--by',
        by,
        '--store',
        storeDir,
      ]);
    const refused: Array<[string, string, string]> = [
      ['first line\nsecond line', 'bob', '--reason has a line break (U+000A) at character 11'],
      ['looks fine', 'bob\u202egnp.exe', '--by has a bidi control (U+202E) at character 4'],
      ['colour \u001b[31mred', 'bob', '--reason has a control character (U+001B) at character 8'],
    ];
    for (const [reason, by, message] of refused) {
      const run = await suppress(reason, by);
      expect(run.code, run.stderr).toBe(64);
      expect(run.stderr.trim().split('\n')).toEqual([
        `driftwatch: ${message}: give it as one line of plain text`,
      ]);
    }
    const suppressionFile = join(storeDir, 'suppressions', `${failed!.id}.json`);
    expect(() => readFileSync(suppressionFile)).toThrow();
    expect((await json(['findings', '--workspace', 'platform-prod'])).findings[0]?.status).not.toBe(
      'suppressed',
    );

    // Any script is plain text, and the whitespace around it is trimmed: stored as typed.
    const ok = await suppress('移行中 🚧 — Zoë’s call\n', ' bob ');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(suppressionFile, 'utf8'))).toMatchObject({
      id: failed!.id,
      suppression: { reason: '移行中 🚧 — Zoë’s call', by: 'bob' },
    });
  });

  it('says so for an id that is not an open finding', async () => {
    const run = await runCli([
      'suppress',
      'a'.repeat(64),
      '--reason',
      'r',
      '--until',
      day(5),
      '--by',
      'b',
      '--store',
      storeDir,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no open finding');
  });
});

describe('driftwatch routes', () => {
  const registry = (paymentsDestinations: string) => {
    const path = join(dir, `registry-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      path,
      [
        'version: 1',
        'owners:',
        '  fallback: platform',
        '  teams:',
        '    - { id: platform, destinations: [{ type: email, address: p@example.com }] }',
        `    - { id: payments, destinations: ${paymentsDestinations} }`,
        'workspaces:',
        '  - { id: pay-staging, owner: payments, environment: staging, source: { dir: . }, backend: { bucket: tfstate, key: a, region: eu-west-1 } }',
        '',
      ].join('\n'),
    );
    return path;
  };

  it('--check lists what reaches no destination and exits 1', async () => {
    const run = await runCli([
      'routes',
      '--check',
      '--registry',
      registry('[{ type: email, address: q@example.com, environments: [prod] }]'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('pay-staging');
    expect(run.stdout).toContain('payments has no destination for environment staging');
  });

  it('--check passes when everything is routable, and the table shows who gets what', async () => {
    const path = registry('[{ type: email, address: q@example.com }]');
    const check = await runCli(['routes', '--check', '--registry', path]);
    expect(check.code).toBe(0);
    const table = await runCli(['routes', '--registry', path]);
    expect(table.stdout).toMatch(/pay-staging\s+staging\s+payments\s+\(workspace\)\s+email:q@example.com/);
  });
});
