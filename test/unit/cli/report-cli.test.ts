import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/integration.js';
import { type BuiltReportStore, buildReportStore } from '../core/report/report-store.js';

/** `driftwatch report` through the built CLI: the file, its atomic write, and the errors. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-report-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let built: BuiltReportStore;

beforeAll(async () => {
  built = await buildReportStore(join(dir, 'store'), { nights: 6, gaps: [] });
});

describe('driftwatch report', () => {
  it('writes one HTML file whole, says where, leaves no temporary file, exits 0', async () => {
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const out = join(outDir, 'report.html');
    const run = await runCli(['report', '--store', built.dir, '--out', out]);
    expect(run.stderr).toContain(`wrote ${out}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(readdirSync(outDir)).toEqual(['report.html']);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain(`As of the scan ${built.latestScanId}`);
    // Same store, same bytes.
    const again = join(outDir, 'again.html');
    expect((await runCli(['report', '--store', built.dir, '--out', again])).code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(page);
  });

  it('names a file whose name holds an escape sequence as it is, escaped, not as another name', async () => {
    const out = join(dir, 'odd\u001b[31m.html');
    const run = await runCli(['report', '--store', built.dir, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    // Stripped, the line named odd.html, a file that does not exist.
    expect(run.stderr).toContain(`wrote "${join(dir, 'odd')}\\u001b[31m.html" (`);
    expect(existsSync(out)).toBe(true);
  });

  it("--owner writes that owner's report; an owner nobody has is a warning naming the owners", async () => {
    const out = join(dir, 'payments.html');
    const run = await runCli(['report', '--store', built.dir, '--owner', 'payments', '--out', out]);
    expect(run.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('Drift report: owner payments');
    const typo = await runCli(['report', '--store', built.dir, '--owner', 'paymnets', '--out', out]);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toContain("no finding in the last 30 nights belongs to owner 'paymnets'");
    expect(typo.stderr).toContain('data, payments, platform');
  });

  it('usage errors exit 64: no --out, a bad --nights', async () => {
    const noOut = await runCli(['report', '--store', built.dir]);
    expect(noOut.code).toBe(64);
    expect(noOut.stderr).toContain("required option '--out <file>' not specified");
    const nights = await runCli([
      'report',
      '--store',
      built.dir,
      '--out',
      join(dir, 'x.html'),
      '--nights',
      'ten',
    ]);
    expect(nights.code).toBe(64);
    expect(nights.stderr).toContain('--nights takes a whole number of nights from 1 to 400');
    // '-' reads as standard output; the report was written to a file named '-' in the current directory.
    const dash = await runCli(['report', '--store', built.dir, '--out', '-'], { cwd: dir });
    expect(dash.code).toBe(64);
    expect(dash.stderr).toContain(
      "the command writes a file, not standard output: pass a file name (a file named '-' is ./-)",
    );
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it('an error exits 1 with one line and leaves the previous report as it was', async () => {
    const out = join(dir, 'kept.html');
    writeFileSync(out, 'previous report');
    const empty = join(dir, 'empty-store');
    mkdirSync(empty);
    const none = await runCli(['report', '--store', empty, '--out', out]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^driftwatch: no scan has been recorded in the findings store at .*: run driftwatch scan/,
    );
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    // Scans were recorded but the only current document is truncated: that is what it says, not "no scan".
    const corrupt = join(dir, 'corrupt-store');
    mkdirSync(join(corrupt, 'current'), { recursive: true });
    writeFileSync(join(corrupt, 'current', 'payments-prod.json'), '{"workspace":"payments-prod","find');
    const truncated = await runCli(['report', '--store', corrupt, '--out', out]);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toMatch(
      /^driftwatch: no current document in the findings store at .* can be read: current\/payments-prod\.json is not a valid .*\(not JSON .*\); restore a good version/,
    );
    expect(truncated.stderr.trim().split('\n')).toHaveLength(1);
    const missing = await runCli(['report', '--store', join(dir, 'nope'), '--out', out]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no findings store at');
    const noDir = await runCli(['report', '--store', built.dir, '--out', join(dir, 'no-such-dir', 'r.html')]);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr).toContain('does not exist');
    const isDir = await runCli(['report', '--store', built.dir, '--out', dir]);
    expect(isDir.code).toBe(1);
    expect(isDir.stderr).toContain('it is a directory');
    expect(readFileSync(out, 'utf8')).toBe('previous report');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
