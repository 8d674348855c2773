import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { ObjectStore } from '../../../../functions/core/findings/object-store.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempStore(): { dir: string; objects: ObjectStore } {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-store-'));
  dirs.push(dir);
  return { dir, objects: createFsObjectStore(dir) };
}

const startedAt = new Date('2026-11-29T02:00:00Z');

describe('findings store', () => {
  it('writes the DESIGN.md layout: history as JSON Lines, current document, summary', async () => {
    const { dir, objects } = tempStore();
    const store = createFindingsStore(objects);
    const recorded = await store.recordWorkspace(
      { scanId: 'scan-1', startedAt, now: startedAt },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    expect(recorded.historyKey).toBe('scans/dt=2026-11-29/scan=scan-1/payments-prod.jsonl');
    const backend = await store.recordWorkspace(
      { scanId: 'scan-1', startedAt, now: startedAt },
      { workspace: 'payments-prod', check: 'backend', outcome: 'ok' },
      [],
    );
    expect(backend.historyKey).toBe('scans/dt=2026-11-29/scan=scan-1/payments-prod@backend.jsonl');
    const lines = readFileSync(join(dir, recorded.historyKey), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).ruleId)).toEqual(['drift.update']);
    const current = JSON.parse(readFileSync(join(dir, 'current/payments-prod.json'), 'utf8'));
    expect(current.findings).toHaveLength(1);
    const summaryKey = await store.writeSummary({ scanId: 'scan-1', startedAt }, {
      scanId: 'scan-1',
    } as never);
    expect(summaryKey).toBe('scans/dt=2026-11-29/scan=scan-1/summary.json');
    expect(await store.openFindings()).toHaveLength(1);
  });

  it('loses no update when writers of the same workspace race (compare-and-swap on the ETag)', async () => {
    const { objects } = tempStore();
    // Interleave: every writer reads before any of them writes, so all but one hit a stale ETag.
    let gate: () => void = () => {};
    const allRead = new Promise<void>((resolve) => {
      gate = resolve;
    });
    let reads = 0;
    const racing: ObjectStore = {
      ...objects,
      async get(key) {
        const value = await objects.get(key);
        if (key.startsWith('current/') && ++reads === 5) gate();
        if (key.startsWith('current/') && reads <= 5) await allRead;
        return value;
      },
    };
    const store = createFindingsStore(racing);
    const addresses = ['a', 'b', 'c', 'd', 'e'].map((name) => `aws_s3_bucket.${name}`);
    // A failed scan carries earlier findings over, so each writer adds one and keeps the others.
    await Promise.all(
      addresses.map((address, index) =>
        store.recordWorkspace(
          { scanId: `scan-${index + 1}`, startedAt, now: startedAt },
          { workspace: 'payments-prod', check: 'terraform', outcome: 'failed' },
          [driftDraft({ resource: { address, type: 'aws_s3_bucket' } })],
        ),
      ),
    );
    const current = await store.readCurrent('payments-prod');
    expect(
      current?.document.findings.map((finding) => (finding.resource as { address: string }).address).sort(),
    ).toEqual(addresses);
  });

  it('a run recorded twice in one scan (a retried RecordScanFailure) keeps the first record: its news stays news', async () => {
    const { dir, objects } = tempStore();
    const store = createFindingsStore(objects);
    const target = { workspace: 'payments-prod', check: 'terraform' as const, outcome: 'ok' as const };
    await store.recordWorkspace({ scanId: 'night-1', startedAt, now: startedAt }, target, [driftDraft()]);
    const night2 = { scanId: 'night-2', startedAt, now: new Date('2026-11-30T02:00:00Z') };
    const failure = scanFailedDraft();
    const first = await store.recordWorkspace(night2, { ...target, outcome: 'failed' }, [failure]);
    const again = await store.recordWorkspace(
      { ...night2, now: new Date('2026-11-30T02:01:00Z') },
      { ...target, outcome: 'failed' },
      [failure],
    );
    expect(first.history.map((line) => [line.ruleId, line.status])).toEqual([['scan.plan-errored', 'new']]);
    expect(again.history).toEqual(first.history);
    const lines = readFileSync(join(dir, first.historyKey), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).status)).toEqual(['new']);
    const current = (await store.readCurrent('payments-prod'))!.document;
    expect(current.findings.map((finding) => [finding.ruleId, finding.status]).sort()).toEqual([
      ['drift.update', 'new'],
      ['scan.plan-errored', 'new'],
    ]);
  });

  it('refuses workspace ids that are unsafe as key parts', async () => {
    const { objects } = tempStore();
    const store = createFindingsStore(objects);
    await expect(
      store.recordWorkspace(
        { scanId: 'scan-1', startedAt, now: startedAt },
        { workspace: '../etc', check: 'terraform', outcome: 'ok' },
        [],
      ),
    ).rejects.toThrow(/invalid workspace id/);
  });
});
