import { beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { Finding, FindingDraft } from '../../../../functions/core/findings/model.js';
import { buildDigests, type Digest } from '../../../../functions/core/notify/digest.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { driftDraft } from '../../../helpers/findings.js';
import { runCli, useTempDir } from '../../../helpers/integration.js';

/**
 * The commands a digest prints run as printed: the "+N more" command against the store the scan
 * wrote lists exactly the findings the digest reported (listed and not), and each item's
 * `findings show` finds its finding. Real CLI (dist), real local store, two real scans.
 */
const temp = useTempDir('driftwatch-more-command-');
let digest: Digest;
let reported: Finding[];
let storeDir: string;

/** A printed command back into argv: words, or single-quoted words ('\'' inside), as a shell reads them. */
function argv(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g))
    words.push(match[1] !== undefined ? match[1].replaceAll("'\\''", "'") : match[2]!);
  return words;
}

const draft = (address: string, owner: string, value: string): FindingDraft =>
  driftDraft({
    owner,
    resource: { address, type: 'aws_s3_bucket' },
    drift: {
      action: 'update',
      changes: [{ path: 'tags.Owner', before: owner, after: value, sensitive: false }],
    },
  });

beforeAll(async () => {
  // A directory with a space: the printed command quotes it.
  storeDir = `${temp.path}/team store`;
  const store = createFindingsStore(createFsObjectStore(storeDir));
  const record = (scanId: string, now: Date, drafts: FindingDraft[]) =>
    store.recordWorkspace(
      { scanId, startedAt: now, now },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      drafts,
    );
  const first = new Date(Date.now() - 86_400_000);
  await record('scan-1', first, [
    draft('aws_s3_bucket.a', 'payments', 'x'),
    draft('aws_s3_bucket.b', 'payments', 'x'),
    draft('aws_s3_bucket.other', 'dba', 'x'),
  ]);
  // Night 2: a changed, b the same (ongoing: not news), c and d new; dba's finding the same.
  const second = await record('scan-2', new Date(), [
    draft('aws_s3_bucket.a', 'payments', 'y'),
    draft('aws_s3_bucket.b', 'payments', 'x'),
    draft('aws_s3_bucket.c', 'payments', 'x'),
    draft('aws_s3_bucket.d', 'payments', 'x'),
    draft('aws_s3_bucket.other', 'dba', 'x'),
  ]);
  const digests = buildDigests({
    scanId: 'scan-2',
    now: new Date(),
    findings: second.history,
    fallbackOwner: 'platform',
    settings: { ...DEFAULT_NOTIFICATION_SETTINGS, maxFindingsPerDigest: 1 },
    store: storeDir,
  });
  digest = digests.find((candidate) => candidate.owner === 'payments')!;
  reported = second.history.filter((finding) => finding.owner === 'payments' && finding.status !== 'ongoing');
});

describe('commands printed in a digest', () => {
  it('"+N more" lists exactly the N + listed findings the digest reported', async () => {
    expect(reported.map((finding) => finding.status).sort()).toEqual(['changed', 'new', 'new']);
    const more = digest.document!.more!;
    expect(more.count + digest.document!.items.length).toBe(3);
    expect(more.exact).toBe(true);
    const words = argv(more.command);
    expect(words.slice(0, 2)).toEqual(['driftwatch', 'findings']);
    expect(words).toContain(storeDir);
    // As printed (a table), then with --format json to compare ids.
    const printed = await runCli(words.slice(1));
    // Exit 2: open findings at or above low (docs/cli.md), i.e. it listed them.
    expect(printed.code, printed.stderr).toBe(2);
    for (const finding of reported) expect(printed.stdout).toContain(finding.id.slice(0, 12));
    const json = await runCli([...words.slice(1), '--format', 'json']);
    expect(json.code, json.stderr).toBe(2);
    const listed = (JSON.parse(json.stdout) as Finding[]).map((finding) => finding.id).sort();
    expect(listed).toEqual(reported.map((finding) => finding.id).sort());
    // The same line in the e-mail and the chat message.
    expect(digest.email!.text).toContain(`    ${more.command}\n`);
    expect(digest.message.content.description).toContain(`\`${more.command}\``);
  });

  it("each item's findings show command finds its finding", async () => {
    const [item] = digest.document!.items;
    const show = argv(item!.commands[0]!);
    expect(show.slice(0, 4)).toEqual(['driftwatch', 'findings', 'show', item!.shortId]);
    const run = await runCli([...show.slice(1), '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(item!.id);
  });

  it('a comma list of statuses that includes resolved is refused with the reason', async () => {
    const run = await runCli(['findings', '--store', storeDir, '--status', 'new,resolved']);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('--status resolved reads the scan history: list it on its own');
    const unknown = await runCli(['findings', '--store', storeDir, '--status', 'new,open']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('not open');
  });
});
