import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingsAction } from '../../../cli/commands/findings-action.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { Finding, FindingDraft } from '../../../functions/core/findings/model.js';
import { actionOutput } from '../../helpers/action-output.js';
import { driftDraft } from '../../helpers/findings.js';

/** `findings --status resolved` says what is resolved now, not what was resolved once. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-resolved-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DAY = 86_400_000;

const at = (address: string) =>
  driftDraft({
    resource: { address, type: 'aws_s3_bucket', provider: 'aws' },
    title: `${address} changed outside Terraform: tags.Owner`,
  });
const back = at('aws_s3_bucket.back');
const gone = at('aws_s3_bucket.gone');
const twice = at('aws_s3_bucket.twice');

beforeAll(async () => {
  const store = createFindingsStore(createFsObjectStore(dir));
  const nights: FindingDraft[][] = [
    [back, gone, twice],
    [twice], // back and gone resolved
    [back], // back regressed (open again), twice resolved
    [back, twice], // twice regressed
    [back], // twice resolved again
  ];
  for (const [index, drafts] of nights.entries()) {
    const night = new Date(Date.now() - (nights.length - index) * DAY);
    await store.recordWorkspace(
      { scanId: `n${index}`, startedAt: night, now: night },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      drafts,
    );
  }
});

async function listResolved(): Promise<{ code: number | undefined; findings: Finding[] }> {
  const { out, code } = await actionOutput((run) =>
    findingsAction(run, { store: dir, status: 'resolved', since: '10d', format: 'json' }),
  );
  return { code, findings: JSON.parse(out) as Finding[] };
}

describe('findings --status resolved', () => {
  it('leaves out a finding that came back after it was resolved, and lists one resolved twice once', async () => {
    const { findings } = await listResolved();
    expect(findings.map((finding) => [finding.title, finding.status]).sort()).toEqual([
      [gone.title, 'resolved'],
      [twice.title, 'resolved'],
    ]);
  });
});
