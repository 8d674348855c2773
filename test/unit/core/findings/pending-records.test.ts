import { describe, expect, it } from 'vitest';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { ObjectStore } from '../../../../functions/core/findings/object-store.js';
import {
  applyPendingRecords,
  createDeferredFindingsStore,
  pendingRecordKey,
} from '../../../../functions/core/findings/pending-records.js';
import { memoryObjectStore } from '../../../helpers/backend.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const startedAt = new Date('2026-11-29T02:00:00Z');
const scan = { scanId: 'scan-2', startedAt };
const finished = new Date('2026-11-29T02:07:00Z');
const HISTORY = 'scans/dt=2026-11-29/scan=scan-2/payments-prod.jsonl';

/** An object store that records every key written, as IAM would see the scanner's requests. */
function recording(objects: ObjectStore & { objects: Map<string, string> }) {
  const written: string[] = [];
  const store: ObjectStore = {
    ...objects,
    location: objects.location,
    async put(key, body, options) {
      written.push(key);
      return objects.put(key, body, options);
    },
    async delete(key, options) {
      written.push(`delete:${key}`);
      return objects.delete(key, options);
    },
  };
  return { store, written };
}

describe('deferred recording (deployed scanners)', () => {
  it('writes only a pending record in the scan scratch space, never current/ or history', async () => {
    const objects = memoryObjectStore();
    // Last night's document: the scanner reads it for its provisional lifecycle.
    await createFindingsStore(objects).recordWorkspace(
      {
        scanId: 'scan-1',
        startedAt: new Date('2026-11-28T02:00:00Z'),
        now: new Date('2026-11-28T02:05:00Z'),
      },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    const { store, written } = recording(objects);
    const deferred = createDeferredFindingsStore(store);
    const recorded = await deferred.recordWorkspace(
      { ...scan, now: finished },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    expect(written).toEqual(['scratch/scan=scan-2/records/payments-prod@terraform.json']);
    expect(recorded.historyKey).toBe(HISTORY);
    expect(recorded.history.map((finding) => finding.status)).toEqual(['ongoing']);
    expect(objects.objects.has(HISTORY)).toBe(false);
  });

  it('RecordFindings applies the records: current/ and history as a direct recording would write them', async () => {
    const direct = memoryObjectStore();
    await createFindingsStore(direct).recordWorkspace(
      { ...scan, now: finished },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    const objects = memoryObjectStore();
    await createDeferredFindingsStore(objects).recordWorkspace(
      { ...scan, now: finished },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    expect(objects.objects.has('current/payments-prod.json')).toBe(false);
    const result = await applyPendingRecords(createFindingsStore(objects), objects, scan);
    expect(result).toEqual({ applied: 1, alreadyApplied: 0, corrupt: [] });
    expect(objects.objects.get('current/payments-prod.json')).toBe(
      direct.objects.get('current/payments-prod.json'),
    );
    expect(objects.objects.get(HISTORY)).toBe(direct.objects.get(HISTORY));
  });

  it('a retried RecordFindings applies nothing twice: this scan’s new findings stay new', async () => {
    const objects = memoryObjectStore();
    await createDeferredFindingsStore(objects).recordWorkspace(
      { ...scan, now: finished },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    const store = createFindingsStore(objects);
    await applyPendingRecords(store, objects, scan);
    const again = await applyPendingRecords(store, objects, scan);
    expect(again).toEqual({ applied: 0, alreadyApplied: 1, corrupt: [] });
    const history = objects.objects
      .get(HISTORY)!
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(history.map((finding: { status: string }) => finding.status)).toEqual(['new']);
  });

  it('a record that names another scope than its key is quarantined and its scope recorded as failed, nothing resolved', async () => {
    const objects = memoryObjectStore();
    const store = createFindingsStore(objects);
    await store.recordWorkspace(
      {
        scanId: 'scan-1',
        startedAt: new Date('2026-11-28T02:00:00Z'),
        now: new Date('2026-11-28T02:05:00Z'),
      },
      { workspace: 'orders-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft({ workspace: 'orders-prod' })],
    );
    // A run of payments-prod forges an empty, successful record under orders-prod's key.
    await objects.put(
      pendingRecordKey('scan-2', 'orders-prod', 'terraform'),
      JSON.stringify({
        scanId: 'scan-2',
        workspace: 'payments-prod',
        check: 'terraform',
        outcome: 'ok',
        now: finished.toISOString(),
        drafts: [],
      }),
    );
    const result = await applyPendingRecords(store, objects, scan);
    expect(result.applied).toBe(0);
    expect(result.corrupt).toEqual([
      expect.objectContaining({ key: 'scratch/scan=scan-2/records/orders-prod@terraform.json' }),
    ]);
    const current = JSON.parse(objects.objects.get('current/orders-prod.json')!);
    const statuses = Object.fromEntries(
      current.findings.map((finding: { ruleId: string; status: string }) => [finding.ruleId, finding.status]),
    );
    // Applied, the forged record would have resolved the drift (an ok run without it).
    expect(statuses).toEqual({ 'drift.update': 'new', 'store.corrupt-object': 'new' });
    expect(current.resolved).toEqual([]);
  });

  it('a truncated record is quarantined, and other keys under the prefix are left alone', async () => {
    const objects = memoryObjectStore();
    await objects.put(pendingRecordKey('scan-2', 'payments-prod', 'backend'), '{"scanId":"scan-2","work');
    await objects.put('scratch/scan=scan-2/records/README.txt', 'not a record');
    const result = await applyPendingRecords(createFindingsStore(objects), objects, scan);
    expect(result.corrupt.map((corrupt) => corrupt.what)).toEqual(['pending record']);
    expect(objects.objects.has('scans/dt=2026-11-29/scan=scan-2/payments-prod@backend.jsonl')).toBe(true);
    expect(objects.objects.get('scratch/scan=scan-2/records/README.txt')).toBe('not a record');
  });
});

describe('two executions recording the same scope (a re-scan overlapping the night)', () => {
  /** The night before, whose document holds the drift fixed tonight. */
  const lastNight = {
    scanId: 'night-1',
    startedAt: new Date('2026-11-28T02:00:00Z'),
    now: new Date('2026-11-28T02:05:00Z'),
  };
  const night = { scanId: 'night-2', startedAt: new Date('2026-11-29T02:00:00Z') };
  const rescan = { scanId: 'rescan-payments-prod-1', startedAt: new Date('2026-11-29T02:30:00Z') };
  const fixed = driftDraft(); // seen by the night at 02:05, fixed at 02:20
  const added = driftDraft({
    resource: { address: 'aws_s3_bucket.audit', type: 'aws_s3_bucket', provider: 'aws' },
    title: 'aws_s3_bucket.audit changed outside Terraform: tags.Owner',
  }); // made at 02:25, seen by the re-scan only
  const history = (objects: { objects: Map<string, string> }, scanRef: typeof night, check: string) => {
    const name = check === 'terraform' ? 'payments-prod' : `payments-prod@${check}`;
    const body = objects.objects.get(`scans/dt=2026-11-29/scan=${scanRef.scanId}/${name}.jsonl`) ?? '';
    return body
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { title: string; status: string; evidence: object });
  };

  for (const check of ['terraform', 'backend', 'locks', 'cluster'] as const) {
    it(`${check}: the night recorded after the re-scan changes nothing the re-scan found, and reports no news`, async () => {
      const objects = memoryObjectStore();
      const store = createFindingsStore(objects);
      const target = { workspace: 'payments-prod', check, outcome: 'ok' as const };
      // Last night's document holds the drift that is fixed tonight.
      await store.recordWorkspace(lastNight, target, [fixed]);
      const deferred = createDeferredFindingsStore(objects);
      await deferred.recordWorkspace({ ...night, now: new Date('2026-11-29T02:05:00Z') }, target, [fixed]);
      await deferred.recordWorkspace({ ...rescan, now: new Date('2026-11-29T02:35:00Z') }, target, [added]);
      // The re-scan's RecordFindings runs first; the night's, hours into its Map, after it.
      await applyPendingRecords(store, objects, rescan);
      await applyPendingRecords(store, objects, night);

      const current = (await store.readCurrent('payments-prod'))!.document;
      expect(current.findings.map((finding) => [finding.title, finding.status])).toEqual([
        [added.title, 'new'],
      ]);
      expect(current.checks[check]?.scanId).toBe(rescan.scanId);
      expect(history(objects, rescan, check).map((line) => [line.title, line.status])).toEqual([
        [added.title, 'new'],
        [fixed.title, 'resolved'],
      ]);
      // What the night saw is in its history, as no news: the re-scan already reported the changes.
      const lines = history(objects, night, check);
      expect(lines.map((line) => [line.title, line.status])).toEqual([[fixed.title, 'ongoing']]);
      expect(lines[0]!.evidence).toMatchObject({ supersededBy: { scanId: rescan.scanId } });
    });
  }

  it('a re-scan that failed does not overtake the night: its drift is recorded as news, its failure stays open', async () => {
    const objects = memoryObjectStore();
    const store = createFindingsStore(objects);
    const target = { workspace: 'payments-prod', check: 'terraform' as const, outcome: 'ok' as const };
    await store.recordWorkspace(lastNight, target, [fixed]);
    const deferred = createDeferredFindingsStore(objects);
    // The night sees the old drift fixed and new drift; the re-scan, finishing later, fails (credentials).
    await deferred.recordWorkspace({ ...night, now: new Date('2026-11-29T02:25:00Z') }, target, [added]);
    await deferred.recordWorkspace(
      { ...rescan, now: new Date('2026-11-29T02:35:00Z') },
      { ...target, outcome: 'failed' },
      [scanFailedDraft()],
    );
    await applyPendingRecords(store, objects, rescan);
    await applyPendingRecords(store, objects, night);

    const current = (await store.readCurrent('payments-prod'))!.document;
    expect(current.findings.map((finding) => [finding.title, finding.status]).sort()).toEqual(
      [
        [added.title, 'new'],
        [scanFailedDraft().title, 'new'],
      ].sort(),
    );
    expect(history(objects, night, 'terraform').map((line) => [line.title, line.status])).toEqual([
      [added.title, 'new'],
      [fixed.title, 'resolved'],
    ]);
    // A retried RecordFindings of the night applies nothing twice.
    await applyPendingRecords(store, objects, night);
    expect(history(objects, night, 'terraform').map((line) => line.status)).toEqual(['new', 'resolved']);
  });

  it('a retried RecordFindings of the night, after the re-scan was recorded, keeps the history it wrote', async () => {
    const objects = memoryObjectStore();
    const store = createFindingsStore(objects);
    const target = { workspace: 'payments-prod', check: 'terraform' as const, outcome: 'ok' as const };
    const deferred = createDeferredFindingsStore(objects);
    await deferred.recordWorkspace({ ...night, now: new Date('2026-11-29T02:05:00Z') }, target, [fixed]);
    await applyPendingRecords(store, objects, night);
    const recorded = history(objects, night, 'terraform');
    expect(recorded.map((line) => line.status)).toEqual(['new']);
    await deferred.recordWorkspace({ ...rescan, now: new Date('2026-11-29T02:35:00Z') }, target, [added]);
    await applyPendingRecords(store, objects, rescan);
    // The night's RecordFindings answered, but the answer was lost: Step Functions runs it again.
    await applyPendingRecords(store, objects, night);
    expect(history(objects, night, 'terraform')).toEqual(recorded);
    const current = (await store.readCurrent('payments-prod'))!.document;
    expect(current.checks.terraform?.scanId).toBe(rescan.scanId);
    expect(current.findings.map((finding) => [finding.title, finding.status])).toEqual([
      [added.title, 'new'],
    ]);
  });
});

describe('a read-only reader of history (NotifyOwners, deployed)', () => {
  it('uses the replacement of a corrupt history file without writing it (its role may not write history)', async () => {
    const objects = memoryObjectStore();
    await objects.put(HISTORY, '{"id":"trunc');
    const { store, written } = recording(objects);
    const files = await createFindingsStore(store, { readOnly: true }).scanHistoryFiles(scan);
    expect(files).toEqual([
      expect.objectContaining({
        scope: 'payments-prod',
        findings: [expect.objectContaining({ ruleId: 'store.corrupt-object' })],
      }),
    ]);
    expect(written).toEqual([]);
    expect(objects.objects.get(HISTORY)).toBe('{"id":"trunc');
  });
});
