// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's Locator.innerText (the text a person sees, hidden parts left out), not the DOM property.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import { type Finding, SEVERITIES } from '../../functions/core/findings/model.js';
import { canary, REPO_ROOT, runCli, useTempDir } from '../helpers/integration.js';
import { type BuiltReportStore, buildReportStore, HOSTILE } from '../unit/core/report/report-store.js';
import { launchOfflineChromium, type OfflineBrowser } from './report-chromium.js';

/**
 * The report as a person opens it: written by the built CLI from a store with 35 nights of history
 * and four owners, opened from file:// in Debian's chromium with the network cut off. A real browser
 * because what matters here (no request, no console error, filters, keyboard, the dialog, hostile
 * text staying text) only exists in one. In the integration project: it starts an external program
 * per file like the Terraform tests, and keeps the unit project's feedback fast.
 */
const temp = useTempDir('driftwatch-report-browser-');
const ARTEFACTS = join(REPO_ROOT, 'test-artifacts');
const secrets = [canary('report-browser')];
let built: BuiltReportStore;
let reportPath: string;
let browser: OfflineBrowser;
/** What the report should show, read from the store independently of the report code. */
let expected: { shown: Finding[]; open: Finding[]; tonight: Finding[] };
const problems: string[] = [];

beforeAll(async () => {
  built = await buildReportStore(join(temp.path, 'store'), { hostile: true, canaries: secrets });
  reportPath = join(temp.path, 'report.html');
  const run = await runCli(['report', '--store', built.dir, '--out', reportPath]);
  expect(run.stderr).toContain('wrote');
  expect(run.code).toBe(0);
  const store = createFindingsStore(createFsObjectStore(built.dir), { readOnly: true });
  const open = await store.openFindings();
  const tonight = await store.scanHistory({
    scanId: built.latestScanId,
    startedAt: new Date(built.latestStartedAt),
  });
  const resolved = tonight.filter((finding) => finding.status === 'resolved');
  expected = { shown: [...open, ...resolved], open, tonight };
  browser = await launchOfflineChromium();
});

afterAll(async () => {
  await browser?.close();
});

async function openReport(): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`a script opened a ${dialog.type()} dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });
  await page.waitForSelector('html[data-ready="true"]');
  return page;
}

/** docs/images/report.png, on request: the report of a store without the hostile finding. */
async function screenshotForDocs(): Promise<void> {
  const clean = await buildReportStore(join(temp.path, 'clean-store'));
  const out = join(temp.path, 'clean.html');
  expect((await runCli(['report', '--store', clean.dir, '--out', out])).code).toBe(0);
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 1500 });
  await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
  await page.waitForSelector('html[data-ready="true"]');
  mkdirSync(join(REPO_ROOT, 'docs', 'images'), { recursive: true });
  await page.screenshot({ path: join(REPO_ROOT, 'docs', 'images', 'report.png') });
  await page.close();
}

const visibleIds = (page: Page) =>
  page.$$eval('#findings tbody tr:not([hidden]) code.id', (cells) =>
    cells.map((cell) => cell.textContent ?? ''),
  );
const idsOf = (findings: readonly Finding[]) => findings.map((finding) => finding.id.slice(0, 12)).sort();

describe('the report in chromium', () => {
  it('loads from file:// with no request, no console error, no executed data; the file holds no secret', async () => {
    const page = await openReport();
    expect(await page.title()).toMatch(/^driftwatch report: everybody, /);
    // The hostile finding is shown as text: no element came out of it, nothing ran.
    expect(await page.$$eval('img', (images) => images.length)).toBe(0);
    const hostileRow = page.locator('#findings tbody tr', { hasText: 'aws_instance.x' });
    expect(await hostileRow.innerText()).toContain(HOSTILE.script);
    expect(await hostileRow.innerText()).toContain('{{constructor.constructor(');
    // The summary writes the bidi override out (visibleValue), so it is seen and does nothing.
    expect(await hostileRow.innerText()).toContain('"admin\\u202egnp.exe');
    await hostileRow.click();
    const changes = await page.locator('#detail').innerText();
    expect(changes).toContain(`tags.${HOSTILE.mustache}`);
    expect(changes).toContain(HOSTILE.comment);
    // A value that differs only by a trailing space is shown quoted, not as a second "private".
    expect(changes).toMatch(/\bprivate\s+"private "/);
    await page.keyboard.press('Escape');
    await page.close();
    expect(browser.blocked).toEqual([]);
    expect(problems).toEqual([]);
    const file = readFileSync(reportPath, 'utf8');
    for (const secret of secrets) expect(file).not.toContain(secret);
  });

  it('shows the headline numbers of the store', async () => {
    const page = await openReport();
    const metric = (name: string) => page.locator(`[data-metric="${name}"]`).innerText();
    const open = expected.open.filter((finding) => finding.status !== 'suppressed');
    for (const severity of SEVERITIES)
      expect(await metric(`open-${severity}`), severity).toBe(
        String(open.filter((finding) => finding.severity === severity).length),
      );
    expect(await metric('open-total')).toBe(String(open.length));
    expect(await metric('new-tonight')).toBe(
      String(
        expected.tonight.filter((finding) => finding.status === 'new' || finding.status === 'regressed')
          .length,
      ),
    );
    expect(await metric('resolved-tonight')).toBe(
      String(expected.tonight.filter((finding) => finding.status === 'resolved').length),
    );
    const failing = new Set(
      open.filter((finding) => finding.kind === 'scan-failed').map((finding) => finding.workspace),
    );
    expect(await metric('scan-failures')).toBe(String(failing.size));
    expect(await page.locator('#failures').innerText()).toContain('AccessDenied');
    expect(await page.locator('#health').innerText()).toContain('Stale lock on platform/terraform.tfstate');
    await page.close();
  });

  it('each filter and the search narrow the table to the right rows', async () => {
    const page = await openReport();
    expect((await visibleIds(page)).sort()).toEqual(idsOf(expected.shown));
    const fields = ['owner', 'environment', 'severity', 'status', 'kind'] as const;
    for (const field of fields) {
      const values = await page.$$eval(`#filter-${field} option`, (options) =>
        options
          .map((option) => (option as unknown as { value: string }).value)
          .filter((value) => value !== ''),
      );
      expect(values.length, field).toBeGreaterThan(
        field === 'kind' || field === 'owner' || field === 'status' ? 2 : 1,
      );
      for (const value of values) {
        await page.selectOption(`#filter-${field}`, value);
        const want = expected.shown.filter((finding) => (finding[field] ?? '(none)') === value);
        expect((await visibleIds(page)).sort(), `${field}=${value}`).toEqual(idsOf(want));
        expect(await page.locator('#shown-count').innerText()).toBe(
          `${want.length} of ${expected.shown.length} findings shown`,
        );
      }
      await page.selectOption(`#filter-${field}`, '');
    }
    // Two filters at once: all must match.
    await page.selectOption('#filter-owner', 'platform');
    await page.selectOption('#filter-severity', 'high');
    expect((await visibleIds(page)).sort()).toEqual(
      idsOf(expected.shown.filter((finding) => finding.owner === 'platform' && finding.severity === 'high')),
    );
    await page.click('#clear-filters');
    const searches: Array<[string, (finding: Finding) => boolean]> = [
      ['aws_security_group', (finding) => finding.title.includes('aws_security_group')],
      ['TFSTATE-PROD', (finding) => finding.workspace === 's3.tfstate-prod'],
      [expected.open[0]!.id.slice(0, 12), (finding) => finding.id === expected.open[0]!.id],
      ['</script>', (finding) => finding.title.includes('</script>')],
    ];
    for (const [query, matches] of searches) {
      await page.fill('#search', query);
      expect((await visibleIds(page)).sort(), query).toEqual(idsOf(expected.shown.filter(matches)));
    }
    await page.fill('#search', 'no finding has this text');
    expect(await visibleIds(page)).toEqual([]);
    await page.close();
  });

  it('the detail view shows changes, evidence, history, remediation and the commands', async () => {
    const page = await openReport();
    const lock = expected.open.find((finding) => finding.kind === 'stale-lock')!;
    await page.fill('#search', lock.id.slice(0, 12));
    await page.locator('#findings tbody tr:not([hidden])').click();
    const dialog = page.locator('#detail');
    expect(await dialog.isVisible()).toBe(true);
    const text = await dialog.innerText();
    expect(text).toContain('Remediation');
    expect(text).toContain(lock.remediation.summary);
    // On its own line, as the step holds it (a step's snippet is not run together with its prose).
    expect(text).toContain('in the workspace root:\nterraform force-unlock f2b0c9a4-lock');
    expect(text).toContain('"who": "ci@runner-7"');
    expect(text).toContain(`driftwatch findings show ${lock.id.slice(0, 12)} --store ${built.dir}`);
    // remediate prepares no fix for a lock (a person force-unlocks it): the command is not offered.
    expect(text).not.toContain('driftwatch remediate');
    expect(text).toMatch(/History \(last 30 nights\)[\s\S]*new[\s\S]*ongoing/);
    await page.click('#detail .close');
    expect(await dialog.isVisible()).toBe(false);
    const drift = expected.open.find((finding) => finding.title.includes('aws_security_group.api'))!;
    await page.fill('#search', drift.id.slice(0, 12));
    await page.locator('#findings tbody tr:not([hidden])').click();
    const driftText = await dialog.innerText();
    expect(driftText).toContain('ingress[0].cidr_blocks[0]');
    expect(driftText).toContain('0.0.0.0/0');
    expect(driftText).toContain(
      `driftwatch remediate ${drift.id.slice(0, 12)} --revert --store ${built.dir}`,
    );
    expect(driftText).toContain(`driftwatch remediate ${drift.id.slice(0, 12)} --adopt --store ${built.dir}`);
    // Printed with a finding open: the finding, not the page behind it.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('main').isVisible()).toBe(false);
    expect(await dialog.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.locator('main').isVisible()).toBe(true);
    expect(await page.locator('.filters').isVisible()).toBe(false);
    await page.close();
  });

  it('lists a long table 200 rows at a time, and filters all of it', async () => {
    const many = await buildReportStore(join(temp.path, 'many-store'), {
      nights: 3,
      gaps: [],
      extraFindings: 450,
    });
    const out = join(temp.path, 'many.html');
    expect((await runCli(['report', '--store', many.dir, '--out', out])).code).toBe(0);
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
    await page.waitForSelector('html[data-ready="true"]');
    const total = Number(/ of (\d+) findings/.exec(await page.locator('#shown-count').innerText())?.[1]);
    expect(total).toBeGreaterThan(450);
    expect(await page.locator('#findings tbody tr').count()).toBe(200);
    expect(await page.locator('#shown-count').innerText()).toBe(
      `${total} of ${total} findings match; the first 200 are listed`,
    );
    await page.click('#show-more');
    expect(await page.locator('#findings tbody tr').count()).toBe(400);
    await page.click('#show-more');
    expect(await page.locator('#findings tbody tr').count()).toBe(total);
    expect(await page.locator('#show-more').isVisible()).toBe(false);
    // A filter looks at every finding, not only the listed ones; the listing starts over.
    await page.selectOption('#filter-owner', 'team-3');
    const owned = Number(/^(\d+) of/.exec(await page.locator('#shown-count').innerText())?.[1]);
    expect(owned).toBeGreaterThan(50);
    expect(await page.locator('#findings tbody tr').count()).toBe(Math.min(200, owned));
    await page.close();
  });

  it('works from the keyboard: Tab to the search, type, Tab to a row, Enter opens, Escape closes', async () => {
    const page = await openReport();
    // Expressions evaluated in the page (this file is compiled without the DOM's types).
    const focused = () =>
      page.evaluate<string>(
        "document.activeElement?.id || document.activeElement?.tagName.toLowerCase() || ''",
      );
    const focusedRow = () => page.evaluate<string | undefined>('document.activeElement?.dataset.i');
    // The search is the second stop: after the trend chart's "as a table" disclosure.
    const stops: string[] = [];
    while ((await focused()) !== 'search' && stops.length < 3) {
      await page.keyboard.press('Tab');
      stops.push(await focused());
    }
    expect(stops).toEqual(['summary', 'search']);
    await page.keyboard.type('ledger');
    let tabs = 0;
    while ((await focused()) !== 'tr' && tabs++ < 10) await page.keyboard.press('Tab');
    expect(await focused()).toBe('tr');
    expect(await page.evaluate<string>("document.activeElement?.textContent ?? ''")).toContain(
      'aws_s3_bucket.ledger',
    );
    await page.keyboard.press('Enter');
    const dialog = page.locator('#detail');
    expect(await dialog.isVisible()).toBe(true);
    expect(await page.locator('#detail-title').innerText()).toContain('aws_s3_bucket.ledger');
    await page.keyboard.press('Escape');
    expect(await dialog.isVisible()).toBe(false);
    expect(await focused()).toBe('tr');
    // Arrow keys move between the visible rows.
    await page.fill('#search', '');
    await page.locator('#findings tbody tr').first().focus();
    await page.keyboard.press('ArrowDown');
    expect(await focusedRow()).toBe('1');
    await page.keyboard.press('End');
    expect(await focusedRow()).toBe(String(expected.shown.length - 1));
    mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTEFACTS, 'report.png'), fullPage: true });
    await page.close();
    if (process.env.DRIFTWATCH_REPORT_SCREENSHOT) await screenshotForDocs();
    expect(problems).toEqual([]);
  });
});
