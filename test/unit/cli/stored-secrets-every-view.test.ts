import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderFindingDetail } from '../../../cli/finding-detail.js';
import { presentFinding } from '../../../cli/finding-view.js';
import { type ListingFormat, renderFindings } from '../../../cli/output.js';
import { PLAIN } from '../../../cli/terminal.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { FindingDraft } from '../../../functions/core/findings/model.js';
import { renderReport } from '../../../functions/core/report/render-report.js';
import { loadReportData } from '../../../functions/core/report/report-data.js';
import { newCore, VALUE_CATEGORIES } from '../../helpers/canary-generator.js';
import { driftDraft, scanSummary, storedFinding } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/**
 * A store written before a redaction rule existed (an older driftwatch), or by hand, holds
 * credentials in the clear. Every way driftwatch shows a stored finding (each listing format,
 * `findings show`, `remediate`, the HTML report) presents it as the findings API does: every text
 * through the credential rules once more. One canary per text field of a finding; a leak names the
 * field and the view.
 */

const CATEGORIES = Object.values(VALUE_CATEGORIES);

/** Where a finding holds text, each given a distinct credential-shaped canary. */
type Field =
  | 'title'
  | 'detail'
  | 'evidence'
  | 'evidence-nested'
  | 'evidence-key'
  | 'drift-path'
  | 'drift-before'
  | 'drift-after'
  | 'drift-object-value'
  | 'sensitive-change'
  | 'remediation-summary'
  | 'remediation-step'
  | 'address'
  | 'environment'
  | 'suppression-expired'
  /** Not a finding's: the reason a scan summary gives for a failed workspace. */
  | 'summary-reason';
const FIELDS: readonly Field[] = [
  'title',
  'detail',
  'evidence',
  'evidence-nested',
  'evidence-key',
  'drift-path',
  'drift-before',
  'drift-after',
  'drift-object-value',
  'sensitive-change',
  'remediation-summary',
  'remediation-step',
  'address',
  'environment',
  'suppression-expired',
];

/** Field → the core only its canary holds. */
const cores = new Map<Field, string>();
function plantedCore(field: Field): string {
  const core = newCore();
  cores.set(field, core);
  return core;
}
function planted(field: Field): string {
  const core = plantedCore(field);
  // A value rule recognises the text; the categories take turns (URL passwords, bearer, keys, JWTs…).
  if (field === 'sensitive-change') return `plain-${core}`; // no rule: only the change's flag says so
  return CATEGORIES[FIELDS.indexOf(field) % CATEGORIES.length]!(core);
}

/** A finding as an older version stored it: every text field holds a credential. */
function plantedDraft(): FindingDraft {
  return driftDraft({
    title: `aws_s3_bucket.ledger changed: ${planted('title')}`,
    detail: `The value is now ${planted('detail')}.`,
    environment: `prod ${planted('environment')}`,
    resource: {
      address: `aws_s3_bucket.ledger["${planted('address')}"]`,
      type: 'aws_s3_bucket',
      provider: 'registry.terraform.io/hashicorp/aws',
    },
    evidence: {
      terraformError: planted('evidence'),
      reads: [{ url: planted('evidence-nested') }],
      [`seen ${planted('evidence-key')}`]: true,
      suppressionExpired: {
        reason: `rotated ${planted('suppression-expired')}`,
        by: 'ops',
        until: '2026-01-01T00:00:00Z',
        at: '2025-12-01T00:00:00Z',
      },
    },
    drift: {
      action: 'update',
      changes: [
        {
          path: `tags.${planted('drift-path')}`,
          before: planted('drift-before'),
          after: planted('drift-after'),
          sensitive: false,
        },
        {
          path: 'environment',
          before: null,
          after: { variables: { NOTE: planted('drift-object-value') } },
          sensitive: false,
        },
        { path: 'master_password', before: planted('sensitive-change'), after: null, sensitive: true },
      ],
    },
    remediation: {
      summary: `Rotate ${planted('remediation-summary')}`,
      steps: [`run with ${planted('remediation-step')}`],
    },
  });
}

const leakedFields = (text: string) => [...cores.keys()].filter((field) => text.includes(cores.get(field)!));

describe('presentFinding: every text field of a stored finding is redacted', () => {
  const finding = storedFinding({}, plantedDraft());
  const now = new Date('2026-12-01T00:00:00Z');

  it('the raw finding holds every canary (the test plants what it checks)', () => {
    expect(FIELDS.filter((field) => !JSON.stringify(finding).includes(cores.get(field)!))).toEqual([]);
  });

  const views: ReadonlyArray<readonly [string, () => string]> = [
    ...(['table', 'json', 'markdown', 'sarif'] as ListingFormat[]).map(
      (format) =>
        [`findings --format ${format}`, () => renderFindings([finding], format, now, PLAIN)] as const,
    ),
    ['findings show', () => renderFindingDetail(presentFinding(finding, now), [], now, PLAIN)],
    ['findings show --format json', () => JSON.stringify(presentFinding(finding, now))],
  ];
  it.each(views)('%s shows no canary of any field', (_view, render) => {
    const shown = render();
    expect(leakedFields(shown)).toEqual([]);
    // Only the credentials went: the finding still reads as itself.
    expect(shown).toMatch(/aws_s3_bucket\.ledger|ledger/);
  });

  it('a change marked sensitive shows no value that is not a hash; nulls and hashes stay', () => {
    const shown = presentFinding(
      storedFinding(
        {},
        driftDraft({
          drift: {
            action: 'update',
            changes: [
              { path: 'a', before: 'hunter2', after: '(sensitive:0123abcd)', sensitive: true },
              { path: 'b', before: { x: 1 }, after: null, sensitive: true },
              { path: 'c', before: 'plain', after: 'value', sensitive: false },
              // What the scanners write stays: a cluster block keeps its shape with its secret
              // hashed inside, and a value Terraform does not know yet.
              {
                path: 'spec.env[0]',
                before: { name: 'DB_PASSWORD', value: '(sensitive:0123abcd)' },
                after: [{ name: 'DB_PASSWORD', value: '(sensitive:89abcdef)' }],
                sensitive: true,
              },
              { path: 'd', before: '(sensitive:0123abcd)', after: '(known after apply)', sensitive: true },
              { path: 'e', before: ['plain'], after: { nested: { x: 'y' } }, sensitive: true },
            ],
          },
        }),
      ),
      now,
    );
    expect(shown.drift?.changes.map((change) => [change.before, change.after])).toEqual([
      ['(redacted)', '(sensitive:0123abcd)'],
      ['(redacted)', null],
      ['plain', 'value'],
      [
        { name: 'DB_PASSWORD', value: '(sensitive:0123abcd)' },
        [{ name: 'DB_PASSWORD', value: '(sensitive:89abcdef)' }],
      ],
      ['(sensitive:0123abcd)', '(known after apply)'],
      ['(redacted)', '(redacted)'],
    ]);
  });
});

describe('every command that shows a stored finding: no canary of any field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-stored-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const store = join(dir, 'store');
  let id = '';

  beforeAll(async () => {
    const at = new Date(Date.now() - 60_000);
    const findings = createFindingsStore(createFsObjectStore(store));
    await findings.writeSummary(
      { scanId: 'scan-1', startedAt: at },
      scanSummary('scan-1', at, {
        workspaces: { total: 2, scanned: 1, failed: 1, busy: 0, skipped: 0 },
        findings: { total: 1, bySeverity: {}, byKind: {} },
        failures: [
          {
            workspace: 'orders-prod',
            reason: `init failed: ${CATEGORIES[0]!(plantedCore('summary-reason'))}`,
          },
        ],
      }),
    );
    const recorded = await findings.recordWorkspace(
      { scanId: 'scan-1', startedAt: at, now: at },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [plantedDraft()],
    );
    id = recorded.current.findings[0]!.id;
  });

  const commands: ReadonlyArray<readonly [string, (out: string) => string[]]> = [
    ...['table', 'json', 'markdown', 'sarif'].map(
      (format) =>
        [`findings --format ${format}`, () => ['findings', '--store', store, '--format', format]] as const,
    ),
    ...['table', 'json'].map(
      (format) =>
        [
          `findings show --format ${format}`,
          () => ['findings', 'show', id.slice(0, 12), '--store', store, '--format', format],
        ] as const,
    ),
    ...['--revert', '--adopt'].flatMap((mode) =>
      ['table', 'json'].map(
        (format) =>
          [
            `remediate ${mode} --format ${format}`,
            () => ['remediate', id.slice(0, 12), mode, '--store', store, '--format', format],
          ] as const,
      ),
    ),
    ['report', (out) => ['report', '--store', store, '--out', out]],
    ...['table', 'json'].map(
      (format) =>
        [
          `findings --health --format ${format}`,
          () => ['findings', '--health', '--store', store, '--format', format],
        ] as const,
    ),
  ];
  it.each(commands)('%s', async (_command, args) => {
    const out = join(dir, `${_command.replace(/\W+/g, '-')}.html`);
    const run = await runCli(args(out));
    // Shown (remediate may stop for want of a registry; what it prints still counts).
    expect(run.stderr).not.toMatch(/unexpected error/);
    const file = _command === 'report' ? readFileSync(out, 'utf8') : '';
    expect(run.stdout.length + file.length).toBeGreaterThan(0);
    expect(leakedFields(run.stdout + run.stderr + file)).toEqual([]);
  });

  it('suppress prints the title it suppressed without the canary (last: it changes the store)', async () => {
    const until = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const run = await runCli([
      ...['suppress', id.slice(0, 12), '--reason', 'accepted', '--by', 'ops', '--until', until],
      ...['--store', store],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^suppressed .*aws_s3_bucket\.ledger changed: /);
    expect(leakedFields(run.stdout + run.stderr)).toEqual([]);
  });

  it('the report written in process (the nightly WriteReports data) shows none either', async () => {
    const data = await loadReportData(createFsObjectStore(store), {});
    expect(leakedFields(renderReport(data))).toEqual([]);
  });
});
