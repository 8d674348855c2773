import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import { escapeHtml, Html, html, scriptJson } from '../../../../functions/core/report/html.js';
import {
  renderReport,
  reportOwners,
  unpackReportJson,
} from '../../../../functions/core/report/render-report.js';
import { PAGE_COLOURS, SEVERITY_COLOURS } from '../../../../functions/core/report/report-assets.js';
import { loadReportData, type ReportData } from '../../../../functions/core/report/report-data.js';
import { evaluatePlan } from '../../../../functions/core/terraform/evaluate.js';
import { canary } from '../../../helpers/integration.js';
import {
  context,
  entry,
  hashSensitive,
  plan,
  ssmMask,
  ssmParameterValues,
} from '../../../helpers/plan-builders.js';
import { type BuiltReportStore, buildReportStore, HOSTILE } from './report-store.js';

const root = mkdtempSync(join(tmpdir(), 'driftwatch-render-report-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const secrets = [canary('report-a'), canary('report-b')];
let built: BuiltReportStore;
let data: ReportData;
let page: string;

beforeAll(async () => {
  built = await buildReportStore(join(root, 'store'), { hostile: true, canaries: secrets });
  data = await loadReportData(createFsObjectStore(built.dir), {});
  page = renderReport(data);
});

/** The JSON block of the page, parsed as the page's script parses it. */
function embedded(html: string): { findings: Array<Record<string, unknown>>; meta: Record<string, unknown> } {
  const match = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error('no data block');
  const packed = JSON.parse(match[1]!);
  return { findings: unpackReportJson(packed), meta: packed.meta };
}

describe('html template helper', () => {
  it('escapes every interpolated value; only html`` results pass as markup', () => {
    const title = '<b onclick="x">&\'</b>';
    expect(html`<td title="${title}">${title}</td>`.toString()).toBe(
      '<td title="&lt;b onclick=&quot;x&quot;&gt;&amp;&#39;&lt;/b&gt;">&lt;b onclick=&quot;x&quot;&gt;&amp;&#39;&lt;/b&gt;</td>',
    );
    expect(html`<ul>${['<a>', html`<li>${'<c>'}</li>`]}</ul>`.toString()).toBe(
      '<ul>&lt;a&gt;<li>&lt;c&gt;</li></ul>',
    );
    expect(html`${undefined}${null}${false}${0}`.toString()).toBe('0');
    // Markup cannot be made from outside: the constructor needs the module's own key.
    expect(() => new Html(Symbol('html'), '<script>')).toThrow(TypeError);
  });

  it('shows bidi and control characters as U+FFFD, never raw', () => {
    expect(escapeHtml(HOSTILE.bidi)).toBe('admin\uFFFDgnp.exe\uFFFDx\uFFFD');
    expect(escapeHtml('a\u0007b\u0085c')).toBe('a\uFFFDb\uFFFDc');
  });

  it('JSON for a script element cannot end it, open a comment, or break a line', () => {
    const value = { a: HOSTILE.script, b: HOSTILE.comment, c: HOSTILE.lineSeparator, d: '&amp;' };
    const text = scriptJson(value).toString();
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    // Unicode line breaks become plain line feeds (shown in the detail's preformatted values).
    expect(JSON.parse(text)).toEqual({ ...value, c: 'line\nbreak\nend' });
  });
});

describe('renderReport', () => {
  it('is deterministic: the same data gives the same bytes', async () => {
    expect(renderReport(data)).toBe(page);
    expect(renderReport(await loadReportData(createFsObjectStore(built.dir), {}))).toBe(page);
  });

  it('is self-contained: no URL it would fetch, a CSP that allows nothing else', () => {
    // No element of ours (real tags: data text has &lt; instead of <) points anywhere.
    expect(page).not.toMatch(/<[a-z][^>]*\s(?:src|href|action|srcset|poster|data)=/i);
    expect(page).not.toMatch(/@import|url\(/i);
    expect(page).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(page).toContain('default-src &#39;none&#39;'); // an attribute value: quotes escaped
    expect(page.match(/<script/g)).toHaveLength(2);
  });

  it('renders the headline numbers of the data', () => {
    const metric = (name: string) => new RegExp(`data-metric="${name}">([^<]*)<`).exec(page)?.[1];
    expect(metric('open-total')).toBe('9');
    expect(metric('open-high')).toBe('5');
    expect(metric('new-tonight')).toBe('2');
    expect(metric('resolved-tonight')).toBe('1');
    expect(metric('scan-failures')).toBe('1');
    expect(metric('oldest-days')).toBe(`${built.nights - 3} d`);
  });

  it('shows hostile finding text inert: escaped in markup, escaped in the JSON block, bidi replaced', () => {
    // Outside the two script elements there is no element or attribute but ours.
    const markup = page.replace(/<script[\s\S]*?<\/script>/g, '');
    expect(markup).not.toMatch(/<img|<!--|<\/?script/i);
    // No event-handler attribute on any tag (quoted values removed: data inside them is escaped).
    const tags = markup.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((tag) => /\son[a-z]+=/i.test(tag.replace(/"[^"]*"/g, '""')))).toEqual([]);
    expect(markup).toContain(
      '<option value="prod&quot;&gt;&lt;svg onload=&quot;document.title=&#39;pwned&#39;&quot;&gt;">prod&quot;&gt;&lt;svg onload=&quot;document.title=&#39;pwned&#39;&quot;&gt;</option>',
    );
    expect(page).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    // The JSON block holds the same text, as data.
    const hostile = embedded(page).findings.find((finding) =>
      String(finding.resource).startsWith('aws_instance.x'),
    );
    if (!hostile) throw new Error('the hostile finding is not in the report');
    expect(hostile.resource).toBe(`aws_instance.x["${HOSTILE.script}"]`);
    const changes = (hostile.drift as { changes: Array<{ path: string; after: unknown }> }).changes;
    expect(changes[0]).toMatchObject({ path: `tags.${HOSTILE.mustache}`, after: HOSTILE.script });
    expect(JSON.stringify(hostile)).toContain('admin\uFFFDgnp.exe');
  });

  it('never contains the secrets planted in the store', () => {
    for (const secret of secrets) expect(page).not.toContain(secret);
  });

  it("an owner's report holds only that owner's findings", async () => {
    const owned = renderReport(await loadReportData(createFsObjectStore(built.dir), { owner: 'data' }));
    const findings = embedded(owned).findings;
    expect(findings.map((finding) => finding.owner)).toEqual(['data']);
    expect(owned).not.toContain('aws_security_group.api');
    expect(owned).toContain('Drift report: owner data');
    expect(reportOwners(data)).toEqual(['data', 'payments', 'platform']);
  });

  it('shows short ids (12 characters) and the remediation of each finding in its data', () => {
    const first = data.findings[0]!;
    const block = embedded(page);
    expect(block.meta.idLength).toBe(12);
    expect(block.findings[0]?.id).toBe(first.id);
    const remediation = block.findings[0]?.remediation as { summary: string; steps: string[] };
    expect(remediation.summary).toBe(first.remediation.summary);
    expect(remediation.steps).toEqual(first.remediation.steps);
  });
});

describe('the JSON block', () => {
  it('packs every finding so that it unpacks to what the data says (inert text aside)', async () => {
    const plain = await loadReportData(
      createFsObjectStore((await buildReportStore(join(root, 'plain'))).dir),
      {},
    );
    const unpacked = embedded(renderReport(plain)).findings;
    expect(unpacked).toHaveLength(plain.findings.length);
    plain.findings.forEach((finding, index) => {
      const { id, kind, ruleId, severity, status, workspace, owner, environment, title, detail } = finding;
      expect(unpacked[index]).toMatchObject({ id, kind, ruleId, severity, status, workspace, title, detail });
      expect(unpacked[index]?.owner).toBe(owner);
      expect(unpacked[index]?.environment).toBe(environment);
      expect(unpacked[index]?.remediation).toEqual(finding.remediation);
      expect(unpacked[index]?.drift).toEqual(finding.drift);
      expect(unpacked[index]?.evidence).toEqual(finding.evidence);
      expect(unpacked[index]?.history).toEqual(plain.history[finding.id] ?? []);
      expect(unpacked[index]?.ageDays).toBe(finding.ageDays);
    });
  });
});

describe('secrets', () => {
  it('a report of findings the real evaluator made from a plan with planted secrets shows hashes only', async () => {
    const planted = [canary('ssm-before'), canary('ssm-after'), canary('db-password')];
    const raw = plan({
      drift: [
        entry('aws_ssm_parameter.db_password', {
          before: ssmParameterValues(planted[0]!),
          after: ssmParameterValues(planted[1]!),
          beforeSensitive: ssmMask,
          afterSensitive: ssmMask,
        }),
        entry('aws_db_instance.main', {
          before: { identifier: 'main', password: 'configured-one', allocated_storage: 20 },
          after: { identifier: 'main', password: planted[2], allocated_storage: 50 },
          beforeSensitive: { password: true },
          afterSensitive: { password: true },
        }),
      ],
    });
    const drafts = evaluatePlan(raw, { ...context(), hashSensitive }).findings;
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    const dir = join(root, 'secrets');
    const now = new Date('2026-11-30T02:00:00Z');
    await createFindingsStore(createFsObjectStore(dir)).recordWorkspace(
      { scanId: 'secret-scan', startedAt: now, now },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      drafts,
    );
    const report = renderReport(await loadReportData(createFsObjectStore(dir), {}));
    for (const secret of planted) expect(report).not.toContain(secret);
    const changes = embedded(report).findings.flatMap(
      (finding) =>
        (finding.drift as { changes: Array<{ path: string; after: unknown }> } | undefined)?.changes ?? [],
    );
    expect(changes.find((change) => change.path === 'password')?.after).toMatch(
      /^\(sensitive:[0-9a-f]{8}\)$/,
    );
  });
});

describe('colours', () => {
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((at) => {
      const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const contrast = (a: string, b: string) => {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light! + 0.05) / (dark! + 0.05);
  };

  it('meet WCAG AA: badge text 4.5:1, chart colours 3:1 on the page, text 4.5:1', () => {
    for (const colour of Object.values(SEVERITY_COLOURS)) {
      expect(contrast('#ffffff', colour)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(PAGE_COLOURS.background, colour)).toBeGreaterThanOrEqual(3);
      expect(contrast(PAGE_COLOURS.panel, colour)).toBeGreaterThanOrEqual(3);
    }
    for (const text of [PAGE_COLOURS.text, PAGE_COLOURS.muted, PAGE_COLOURS.link])
      for (const background of [PAGE_COLOURS.background, PAGE_COLOURS.panel])
        expect(contrast(text, background)).toBeGreaterThanOrEqual(4.5);
  });
});
