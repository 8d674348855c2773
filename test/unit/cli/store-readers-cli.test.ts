import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { driftDraft } from '../../helpers/findings.js';
import { allFileText, runCli } from '../../helpers/integration.js';

/**
 * The commands that read the findings store (`findings`, `findings show`, `report`) and those that
 * write into it or write a file by path (`suppress`, `report --out`, `init --out`): what a person
 * types is redacted, nothing but a regular file is replaced, a directory that is not a store is an
 * error, an expired suppression hides nothing, and `findings show` takes only its own formats.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-store-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DAY = 86_400_000;

/** A store with two open findings in one workspace, recorded a minute ago. */
async function buildStore(name: string): Promise<{ dir: string; ids: string[] }> {
  const storeDir = join(dir, name);
  const store = createFindingsStore(createFsObjectStore(storeDir));
  const at = new Date(Date.now() - 60_000);
  const recorded = await store.recordWorkspace(
    { scanId: 'scan-1', startedAt: at, now: at },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [
      driftDraft(),
      driftDraft({
        severity: 'high',
        resource: { address: 'aws_s3_bucket.audit', type: 'aws_s3_bucket' },
        title: 'aws_s3_bucket.audit changed outside Terraform: tags.Owner',
      }),
    ],
  );
  return { dir: storeDir, ids: recorded.current.findings.map((finding) => finding.id) };
}

let base: { dir: string; ids: string[] };
beforeAll(async () => {
  base = await buildStore('base');
});

/** Credential-shaped text, unique to this run: each value must appear in no stored object and no output. */
function canaries(): { reason: string; by: string; secrets: string[] } {
  const core = randomBytes(6).toString('hex');
  const upper = randomBytes(8).toString('hex').toUpperCase();
  const secrets = [
    `CANARYpw${core}`,
    `AKIA${upper}`,
    `ghp_${randomBytes(18).toString('hex')}`,
    `CANARYurl${core}`,
    `CANARYby${core}`,
  ];
  return {
    reason: `db password=${secrets[0]} key ${secrets[1]} token ${secrets[2]} see https://admin:${secrets[3]}@db.example.com/x`,
    by: `ops password=${secrets[4]}`,
    secrets,
  };
}

const leaked = (secrets: readonly string[], text: string) =>
  secrets.filter((secret) => text.includes(secret));

/** Every output of every command that shows a finding, in every format. */
async function everyOutput(storeDir: string, id: string): Promise<string> {
  const out = join(dir, `report-${randomBytes(4).toString('hex')}.html`);
  const runs = await Promise.all([
    ...['table', 'json', 'markdown', 'sarif'].map((format) =>
      runCli(['findings', '--store', storeDir, '--format', format]),
    ),
    ...['table', 'json'].map((format) =>
      runCli(['findings', 'show', id.slice(0, 12), '--store', storeDir, '--format', format]),
    ),
    runCli(['report', '--store', storeDir, '--out', out]),
  ]);
  for (const run of runs) expect(run.code, run.stderr).not.toBe(1);
  return [...runs.flatMap((run) => [run.stdout, run.stderr]), readFileSync(out, 'utf8')].join('\n');
}

describe('free text of suppress is redacted before it is stored or printed (D1)', () => {
  it('suppress --reason/--by: no canary in any stored object, its own output or any format', async () => {
    const store = await buildStore('d1-suppress');
    const { reason, by, secrets } = canaries();
    const until = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);
    const suppressed = await runCli([
      'suppress',
      store.ids[0]!.slice(0, 12),
      '--reason',
      reason,
      '--by',
      by,
      '--until',
      until,
      '--store',
      store.dir,
    ]);
    expect(suppressed.code, suppressed.stderr).toBe(0);
    expect(leaked(secrets, suppressed.stdout + suppressed.stderr)).toEqual([]);
    // What is left around the secrets is kept: the decision stays readable.
    expect(suppressed.stdout).toContain('password=(redacted)');
    expect(suppressed.stdout).toContain('@db.example.com/x');
    expect(leaked(secrets, allFileText(store.dir))).toEqual([]);
    const stored = JSON.parse(
      readFileSync(join(store.dir, 'suppressions', `${store.ids[0]}.json`), 'utf8'),
    ) as { suppression: { reason: string; by: string } };
    expect(stored.suppression.by).toBe('ops password=(redacted)');
    expect(leaked(secrets, await everyOutput(store.dir, store.ids[0]!))).toEqual([]);
  });

  it('a suppression stored with raw text (an older version, a hand edit) is redacted in every output', async () => {
    const store = await buildStore('d1-raw');
    const { reason, by, secrets } = canaries();
    const now = new Date();
    await createFindingsStore(createFsObjectStore(store.dir)).suppress(store.ids[0]!, {
      reason,
      by,
      until: new Date(now.getTime() + 30 * DAY).toISOString(),
      at: now.toISOString(),
    });
    expect(leaked(secrets, allFileText(store.dir))).toHaveLength(secrets.length);
    const output = await everyOutput(store.dir, store.ids[0]!);
    expect(leaked(secrets, output)).toEqual([]);
    expect(output).toContain('"justification"');
  });
});

describe('--out replaces nothing but a regular file (D2)', () => {
  const specialFiles = () => {
    const where = mkdtempSync(join(dir, 'out-'));
    const fifo = join(where, 'pipe.html');
    execFileSync('mkfifo', [fifo]);
    const target = join(where, 'target.html');
    writeFileSync(target, 'the target');
    const link = join(where, 'link.html');
    symlinkSync(target, link);
    return { where, fifo, link, target };
  };
  const unchanged = (files: ReturnType<typeof specialFiles>) => {
    expect(lstatSync(files.fifo).isFIFO()).toBe(true);
    expect(lstatSync(files.link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(files.link)).toBe(files.target);
    expect(readFileSync(files.target, 'utf8')).toBe('the target');
    // Nothing written beside them either (no temporary file left).
    expect(readdirSync(files.where).sort()).toEqual(['link.html', 'pipe.html', 'target.html']);
  };

  it('report --out a FIFO or a symlink: one line with cause and fix, exit 1, nothing written', async () => {
    const files = specialFiles();
    for (const [path, kind] of [
      [files.fifo, 'FIFO'],
      [files.link, 'symbolic link'],
    ] as const) {
      const run = await runCli(['report', '--store', base.dir, '--out', path]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          `^driftwatch: cannot write ${path}: it is a ${kind}.*not a regular file.*pass --out .*\\n$`,
        ),
      );
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    unchanged(files);
  });

  it('init --out a FIFO or a symlink, with or without --force: the same, before any AWS call', async () => {
    const files = specialFiles();
    for (const path of [files.fifo, files.link])
      for (const force of [[], ['--force']]) {
        const run = await runCli(
          ['init', '--bucket', 'tfstate', '--region', 'eu-west-1', '--out', path, ...force],
          {
            // Nothing may be asked of AWS: an endpoint that answers nothing would fail differently.
            env: {
              AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
              AWS_ACCESS_KEY_ID: 'x',
              AWS_SECRET_ACCESS_KEY: 'x',
            },
          },
        );
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /^driftwatch: cannot write .*: it is a (FIFO|symbolic link).*not a regular file/,
        );
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
      }
    unchanged(files);
  });
});

describe('a directory that is not a findings store is an error, never "No findings." (D4)', () => {
  const notStores = () => {
    const empty = join(dir, 'd4-empty');
    mkdirSync(empty, { recursive: true });
    const other = join(dir, 'd4-other');
    mkdirSync(join(other, 'docs'), { recursive: true });
    writeFileSync(join(other, 'docs', 'cli.md'), '# not a store\n');
    const currentIsFile = join(dir, 'd4-current-file');
    mkdirSync(currentIsFile, { recursive: true });
    writeFileSync(join(currentIsFile, 'current'), 'not a folder');
    const documentIsDir = join(dir, 'd4-document-dir');
    mkdirSync(join(documentIsDir, 'current', 'x.json'), { recursive: true });
    return { empty, other, currentIsFile, documentIsDir };
  };

  it('in every format: one line with the cause, exit 1, nothing on stdout', async () => {
    const stores = notStores();
    const expected: Record<keyof typeof stores, RegExp> = {
      empty: /no scan has been recorded in the findings store at .*d4-empty: run driftwatch scan/,
      other: /no scan has been recorded in the findings store at .*d4-other/,
      currentIsFile:
        /current in the findings store .*d4-current-file is a file where the folder of current documents belongs/,
      documentIsDir:
        /current\/x\.json in the findings store .*d4-document-dir is a directory where a current document belongs/,
    };
    const runs = await Promise.all(
      Object.entries(stores).flatMap(([name, storeDir]) =>
        ['table', 'json', 'markdown', 'sarif'].map(async (format) => ({
          name: name as keyof typeof stores,
          format,
          run: await runCli(['findings', '--store', storeDir, '--format', format]),
        })),
      ),
    );
    for (const { name, format, run } of runs) {
      expect(run.code, `${name} ${format}`).toBe(1);
      expect(run.stdout, `${name} ${format}`).toBe('');
      expect(run.stderr, `${name} ${format}`).toMatch(expected[name]);
      expect(run.stderr.trim().split('\n'), `${name} ${format}`).toHaveLength(1);
    }
    // findings show says the same instead of "no finding <id>"; report names the entry too.
    const show = await runCli(['findings', 'show', 'abcd1234', '--store', stores.documentIsDir]);
    expect(show.code).toBe(1);
    expect(show.stderr).toMatch(expected.documentIsDir);
    const report = await runCli(['report', '--store', stores.documentIsDir, '--out', join(dir, 'd4.html')]);
    expect(report.code).toBe(1);
    expect(report.stderr).toMatch(expected.documentIsDir);
  });

  it('an entry of the wrong kind beside readable documents: the findings listed, a line naming the key, exit 1', async () => {
    const storeDir = join(dir, 'd4-mixed');
    cpSync(base.dir, storeDir, { recursive: true });
    mkdirSync(join(storeDir, 'current', 'x.json'));
    const run = await runCli(['findings', '--store', storeDir, '--format', 'json']);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as Finding[]).map((finding) => finding.id).sort()).toEqual(
      [...base.ids].sort(),
    );
    expect(run.stderr).toMatch(/^driftwatch: current\/x\.json in the findings store .* is a directory/);
  });

  it('a real store whose scans found nothing still says "No findings." (exit 0)', async () => {
    const storeDir = join(dir, 'd4-quiet');
    const at = new Date(Date.now() - 60_000);
    await createFindingsStore(createFsObjectStore(storeDir)).recordWorkspace(
      { scanId: 'scan-quiet', startedAt: at, now: at },
      { workspace: 'quiet-prod', check: 'terraform', outcome: 'ok' },
      [],
    );
    const table = await runCli(['findings', '--store', storeDir]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toBe('No findings.\n');
    const json = await runCli(['findings', '--store', storeDir, '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });
});

describe('an expired suppression no longer hides its finding (D5)', () => {
  let store: { dir: string; ids: string[] };
  let expiredId: string;
  let activeId: string;
  beforeAll(async () => {
    store = await buildStore('d5');
    [expiredId, activeId] = store.ids as [string, string];
    const findings = createFindingsStore(createFsObjectStore(store.dir));
    // Suppressed in the past until a date that has passed since; no scan ran after it.
    await findings.suppress(expiredId, {
      reason: 'accepted for the migration',
      by: 'alice',
      until: '2020-01-01T00:00:00.000Z',
      at: '2019-12-01T00:00:00.000Z',
    });
    await findings.suppress(activeId, {
      reason: 'still accepted',
      by: 'bob',
      until: new Date(Date.now() + 30 * DAY).toISOString(),
      at: new Date().toISOString(),
    });
  });

  it('findings: shown open (new) with the expiry, not suppressed; --status filters as shown', async () => {
    const json = await runCli(['findings', '--store', store.dir, '--format', 'json']);
    const byId = new Map((JSON.parse(json.stdout) as Finding[]).map((finding) => [finding.id, finding]));
    const expired = byId.get(expiredId)!;
    expect(expired.status).toBe('new');
    expect(expired.suppression).toBeUndefined();
    expect(expired.evidence.suppressionExpired).toMatchObject({
      until: '2020-01-01T00:00:00.000Z',
      by: 'alice',
    });
    expect(byId.get(activeId)!.status).toBe('suppressed');

    const suppressed = await runCli([
      'findings',
      '--store',
      store.dir,
      '--status',
      'suppressed',
      '--format',
      'json',
    ]);
    expect((JSON.parse(suppressed.stdout) as Finding[]).map((finding) => finding.id)).toEqual([activeId]);
    const reopened = await runCli(['findings', '--store', store.dir, '--status', 'new', '--format', 'json']);
    expect((JSON.parse(reopened.stdout) as Finding[]).map((finding) => finding.id)).toEqual([expiredId]);

    const table = await runCli(['findings', '--store', store.dir]);
    expect(table.stdout).toMatch(new RegExp(`${expiredId.slice(0, 12)}\\s+MEDIUM\\s+new\\s`));
    expect(table.stdout).toMatch(
      new RegExp(
        `${expiredId.slice(0, 12)}: its suppression by alice expired on 2020-01-01 \\(accepted for the migration\\)`,
      ),
    );
  });

  it('SARIF carries no accepted suppression for it; findings show says it expired', async () => {
    const sarif = await runCli(['findings', '--store', store.dir, '--format', 'sarif']);
    const results = (
      JSON.parse(sarif.stdout) as {
        runs: Array<{ results: Array<{ properties: { findingId: string }; suppressions?: unknown[] }> }>;
      }
    ).runs[0]!.results;
    const resultOf = (id: string) => results.find((result) => JSON.stringify(result).includes(id))!;
    expect(resultOf(expiredId).suppressions).toBeUndefined();
    expect(resultOf(activeId).suppressions).toEqual([expect.objectContaining({ status: 'accepted' })]);

    const show = await runCli(['findings', 'show', expiredId.slice(0, 12), '--store', store.dir]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(
      /status\s+new \(open again: the suppression by alice expired on 2020-01-01: accepted for the migration\)/,
    );
    const showJson = await runCli([
      'findings',
      'show',
      expiredId.slice(0, 12),
      '--store',
      store.dir,
      '--format',
      'json',
    ]);
    expect(JSON.parse(showJson.stdout)).toMatchObject({
      status: 'new',
      evidence: { suppressionExpired: { by: 'alice' } },
    });
  });
});

describe('findings show takes --format table or json only (D9)', () => {
  it('markdown and sarif: exit 64 with the usage, nothing on stdout', async () => {
    for (const format of ['markdown', 'sarif']) {
      const run = await runCli([
        'findings',
        'show',
        base.ids[0]!.slice(0, 12),
        '--store',
        base.dir,
        '--format',
        format,
      ]);
      expect(run.code).toBe(64);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(`^driftwatch: findings show takes --format table or json, not ${format}`),
      );
    }
  });
});
