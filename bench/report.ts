/**
 * Benchmark: the HTML report's size and the time chromium takes to open it (navigation start to the
 * load event, which includes the inline script that fills in the filters), against a blank page
 * opened the same way in the same run.
 *
 * Reports measured: the demo's store when there is one (`--demo-store <dir>`, else `.driftwatch/demo`
 * if `npm start` left it), the test store of the report tests (35 nights, 4 owners), and 10,000 open
 * findings over 50 workspaces and 7 owners (7 nights of history: a finding's history in the report
 * is its first night, each change and the latest, so more nights add nothing to its size).
 *
 * Run: `node bin/run-ts.js bench/report.ts [--demo-store <dir>]` (needs /usr/bin/chromium). Prints
 * numbers and ratios; asserts nothing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createFsObjectStore } from '../functions/adapters/object-store/fs-object-store.js';
import { renderReport } from '../functions/core/report/render-report.js';
import { loadReportData } from '../functions/core/report/report-data.js';
import { launchOfflineChromium } from '../test/integration/report-chromium.js';
import { buildReportStore } from '../test/unit/core/report/report-store.js';

const OPENS = 7;

interface Measured {
  name: string;
  findings: number;
  bytes: number;
  gzipBytes: number;
  renderMs: number;
  path: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function reportOf(name: string, storeDir: string, work: string): Promise<Measured> {
  const started = performance.now();
  const data = await loadReportData(createFsObjectStore(storeDir), {});
  const html = renderReport(data);
  const renderMs = performance.now() - started;
  const path = join(work, `${name.replace(/\W+/g, '-')}.html`);
  writeFileSync(path, html);
  return {
    name,
    findings: data.findings.length,
    bytes: Buffer.byteLength(html),
    gzipBytes: gzipSync(html).length,
    renderMs,
    path,
  };
}

export async function run(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'driftwatch-bench-report-'));
  try {
    const demoFlag = argv.indexOf('--demo-store');
    const demoStore = demoFlag >= 0 ? resolve(argv[demoFlag + 1] ?? '') : resolve('.driftwatch/demo');
    const reports: Measured[] = [];
    if (existsSync(join(demoStore, 'current'))) reports.push(await reportOf('demo store', demoStore, work));
    else console.log(`(no demo store at ${demoStore}: run npm start first, or pass --demo-store <dir>)`);
    const fixture = await buildReportStore(join(work, 'fixture-store'));
    reports.push(await reportOf('test store (35 nights)', fixture.dir, work));
    const built = performance.now();
    const big = await buildReportStore(join(work, 'big-store'), {
      nights: 7,
      gaps: [],
      extraFindings: 10_000,
      extraWorkspaces: 50,
    });
    console.log(`(10,000-finding store written in ${((performance.now() - built) / 1000).toFixed(1)} s)`);
    reports.push(await reportOf('10,000 findings', big.dir, work));

    const blank = join(work, 'blank.html');
    writeFileSync(
      blank,
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>',
    );
    const browser = await launchOfflineChromium();
    try {
      const loadMs = async (path: string) => {
        const page = await browser.context.newPage();
        await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
        const ms = await page.evaluate<number>(
          "(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; })()",
        );
        await page.close();
        return ms;
      };
      // Warm the browser once, then alternate so both see the same machine load.
      await loadMs(blank);
      const times = new Map<string, number[]>([
        [blank, []],
        ...reports.map((report) => [report.path, []] as [string, number[]]),
      ]);
      for (let round = 0; round < OPENS; round++)
        for (const path of times.keys()) times.get(path)!.push(await loadMs(path));
      const baseline = median(times.get(blank)!);
      console.log(`\nblank page: ${baseline.toFixed(1)} ms to load (median of ${OPENS})`);
      console.log(
        'report                      findings      size    gzip  render (node)  open (chromium)  × blank',
      );
      for (const report of reports) {
        const open = median(times.get(report.path)!);
        console.log(
          `${report.name.padEnd(26)} ${String(report.findings).padStart(9)} ${kib(report.bytes).padStart(9)} ${kib(report.gzipBytes).padStart(7)} ${`${report.renderMs.toFixed(0)} ms`.padStart(14)} ${`${open.toFixed(0)} ms`.padStart(16)} ${(open / baseline).toFixed(1).padStart(8)}`,
        );
      }
      if (browser.blocked.length > 0)
        console.log(`network requests attempted (blocked): ${browser.blocked.join(', ')}`);
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${(bytes / 1024).toFixed(0)} KiB`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
