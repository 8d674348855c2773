import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDigest } from '../../../cli/demo/chat-inbox.js';
import { renderFindings, renderTable } from '../../../cli/output.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import type { ChatbotNotification } from '../../../functions/core/notify/digest.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';

/** What the CLI prints from data a plan or a cluster wrote: nothing a terminal would act on. */
const ESCAPES = ['\u001b[31m', '\u001b]8;;http://x\u0007', '\u202e', '\r', '\u0007', '\u009b2J', '\u2066'];
const HOSTILE = `evil${ESCAPES.join('x')}end`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function hostileFinding(overrides: Partial<Finding> = {}): Finding {
  return {
    ...driftDraft({
      resource: { address: `aws_s3_bucket.${HOSTILE}`, type: 'aws_s3_bucket' },
      title: `title ${HOSTILE}`,
      drift: {
        action: 'update',
        changes: [{ path: `tags.${HOSTILE}`, before: HOSTILE, after: 'b', sensitive: false }],
      },
    }),
    id: 'f'.repeat(64),
    status: 'new',
    scanId: 'scan-1',
    firstSeenAt: '2026-11-29T02:10:00Z',
    lastSeenAt: '2026-11-29T02:10:00Z',
    ...overrides,
  };
}

function expectInert(output: string) {
  for (const sequence of ESCAPES) expect(output).not.toContain(sequence);
  expect(output.replaceAll('\n', '')).not.toMatch(ACTIVE);
}

describe('table output', () => {
  it('prints findings with hostile addresses, titles and values inert, the data still visible', () => {
    const findings = [hostileFinding(), hostileFinding({ drift: undefined, id: 'e'.repeat(64) })];
    const table = renderFindings(findings, 'table', new Date('2026-11-29T03:00:00Z'));
    expectInert(table);
    expect(table).toContain('aws_s3_bucket.evil');
    expect(table).toContain('title evil');
  });

  it('strips every cell of any table (routes, health), and aligns on what is printed', () => {
    const table = renderTable(
      ['SCOPE', 'OWNER'],
      [
        [`ws${HOSTILE}`, 'platform'],
        ['short', 'dba'],
      ],
    );
    expectInert(table);
    const [, first, second] = table.split('\n');
    expect(first!.indexOf('platform')).toBe(second!.indexOf('dba'));
  });
});

describe('JSON output', () => {
  it('holds the same data with every control escaped, C1 and bidi included', () => {
    const findings = [hostileFinding()];
    const text = renderFindings(findings, 'json');
    expectInert(text);
    expect((JSON.parse(text) as Finding[])[0]!.title).toBe(`title ${HOSTILE}`);
  });
});

describe('the driftwatch command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-output-safety-'));
  const storeDir = join(dir, 'store');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let id = '';
  beforeAll(async () => {
    const store = createFindingsStore(createFsObjectStore(storeDir));
    const now = new Date();
    const recorded = await store.recordWorkspace(
      { scanId: 'hostile-scan', startedAt: now, now },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft({ title: `title ${HOSTILE}`, resource: { address: `a.${HOSTILE}`, type: 'a' } })],
    );
    id = recorded.history[0]!.id;
  });

  it('lists stored findings inert, as a table and as JSON', async () => {
    const table = await runCli(['findings', '--store', storeDir]);
    expect(table.stdout).toContain('a.evil');
    expectInert(table.stdout);
    const json = await runCli(['findings', '--store', storeDir, '--format', 'json']);
    expect(json.stdout).toContain('\\u202e');
    expectInert(json.stdout);
  });

  it('confirms a suppression without replaying the title', async () => {
    const until = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const run = await runCli([
      'suppress',
      id,
      '--reason',
      'r',
      '--until',
      until,
      '--by',
      'b',
      '--store',
      storeDir,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('title evil');
    expectInert(run.stdout);
  });

  it('prints error messages inert', async () => {
    const run = await runCli([
      'suppress',
      `id${HOSTILE}`,
      '--reason',
      'r',
      '--until',
      '2099-01-01',
      '--by',
      'b',
    ]);
    // Not an id at all (nor a prefix of one): a usage error.
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('is not a finding id');
    expectInert(run.stderr);
  });
});

describe('the demo chat inbox', () => {
  it('shows a digest as a client would (entities decoded) with nothing a terminal acts on', () => {
    const message = {
      version: '1.0',
      source: 'custom',
      id: 'd',
      content: {
        textType: 'client-markdown',
        title: `:red_circle: title ${HOSTILE}`,
        description: `*New* (1)\n• \`&lt;!channel&gt;\` ${HOSTILE}`,
        nextSteps: [`step ${HOSTILE}`],
        keywords: [],
      },
      metadata: {
        threadId: `t${HOSTILE}`,
        summary: 's',
        eventType: 'DriftwatchDigest',
        relatedResources: [],
        additionalContext: {},
      },
    } satisfies ChatbotNotification;
    const shown = renderDigest(message, '#payments');
    expectInert(shown);
    expect(shown).toContain('`<!channel>`');
    expect(shown).toContain('🔴 title evil');
  });
});
