import { describe, expect, it } from 'vitest';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import { recordWorkspaceScan } from '../../../../functions/core/findings/lifecycle.js';
import type { Finding, FindingDraft } from '../../../../functions/core/findings/model.js';
import type { ObjectStore } from '../../../../functions/core/findings/object-store.js';
import { quarantineObject } from '../../../../functions/core/findings/quarantine.js';
import { STORED } from '../../../../functions/core/findings/stored-schemas.js';
import { memoryObjectStore } from '../../../helpers/backend.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const startedAt = new Date('2026-11-29T02:00:00Z');
const scan = { scanId: 'scan-1', startedAt, now: startedAt };
const TRUNCATED = '{"workspace":"payments-prod","updatedAt":"2026-11-28T02:00:00Z","findings":[{"id":"ab';

/** A store with two recorded scopes, `payments-prod` and `orders-prod`. */
async function twoScopes() {
  const objects = memoryObjectStore();
  const store = createFindingsStore(objects);
  for (const workspace of ['payments-prod', 'orders-prod']) {
    await store.recordWorkspace(scan, { workspace, check: 'terraform', outcome: 'ok' }, [
      driftDraft({ workspace }),
    ]);
  }
  return { objects, store };
}

const corruptFindings = (findings: readonly Finding[]) =>
  findings.filter((finding) => finding.ruleId === 'store.corrupt-object');

describe('stored object schemas', () => {
  it('accept every finding and document the product writes, and unknown extra fields', () => {
    const drafts: FindingDraft[] = [
      driftDraft(),
      driftDraft({
        drift: {
          action: 'replace',
          changes: [{ path: 'ingress[0].cidr_blocks[1]', before: null, after: ['a', 1], sensitive: false }],
        },
      }),
      scanFailedDraft(),
      {
        ...scanFailedDraft(),
        kind: 'stale-lock',
        ruleId: 'lock.stale',
        resource: { bucket: 'tfstate', key: 'a/terraform.tfstate', lockTable: 'locks', lockId: 'x-1' },
        evidence: { ageMs: 7_200_000, holder: { who: 'ci@runner' } },
      },
      {
        ...driftDraft(),
        kind: 'cluster-drift',
        ruleId: 'cluster.out-of-sync',
        resource: { app: 'shop', group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' },
      },
    ];
    const first = recordWorkspaceScan(undefined, drafts, {
      workspace: 'payments-prod',
      scanId: 'scan-1',
      now: startedAt,
      outcome: 'ok',
      check: 'terraform',
    });
    const suppressed = {
      ...first.current,
      findings: first.current.findings.map((finding, index) =>
        index === 0
          ? {
              ...finding,
              status: 'suppressed' as const,
              suppression: {
                reason: 'r',
                by: 'me',
                until: '2027-01-01T00:00:00Z',
                at: '2026-11-29T00:00:00Z',
              },
            }
          : finding,
      ),
    };
    const next = recordWorkspaceScan(suppressed, [drafts[0]!], {
      workspace: 'payments-prod',
      scanId: 'scan-2',
      now: new Date('2026-11-30T02:00:00Z'),
      outcome: 'ok',
      check: 'terraform',
    });
    for (const document of [first.current, suppressed, next.current]) {
      expect(STORED.current.parse(JSON.stringify(document))).toMatchObject({ ok: true });
    }
    const history = [...first.history, ...next.history];
    expect(history.some((finding) => finding.status === 'resolved')).toBe(true);
    const lines = `${history.map((finding) => JSON.stringify(finding)).join('\n')}\n`;
    expect(STORED.history.parse(lines)).toMatchObject({ ok: true });
    const newer = {
      ...first.current,
      writtenBy: 'driftwatch 9',
      findings: [{ ...history[0], addedLater: { x: 1 } }],
    };
    expect(STORED.current.parse(JSON.stringify(newer))).toMatchObject({ ok: true });
  });

  it('reject truncated JSON, wrong types and a missing id or kind, saying where', () => {
    const [finding] = recordWorkspaceScan(undefined, [driftDraft()], {
      workspace: 'payments-prod',
      scanId: 'scan-1',
      now: startedAt,
      outcome: 'ok',
      check: 'terraform',
    }).history;
    const { id: _id, ...withoutId } = finding!;
    const { kind: _kind, ...withoutKind } = finding!;
    const cases: Array<[string, string]> = [
      [JSON.stringify(finding).slice(0, 40), 'line 1 is not JSON'],
      [JSON.stringify({ ...finding, severity: 7 }), 'line 1: severity'],
      [JSON.stringify(withoutId), 'line 1: id'],
      [JSON.stringify(withoutKind), 'line 1: kind'],
      [`${JSON.stringify(finding)}\n${JSON.stringify({ ...finding, evidence: 'x' })}`, 'line 2: evidence'],
      // An id that is no fingerprint: `ac0e` is also a prefix of real ids, so it could never be named
      // alone (`findings show ac0e` would always be ambiguous), nor be the key of its suppression.
      ...['ac0e', finding!.id.toUpperCase(), `${finding!.id}0`, ' '].map((id): [string, string] => [
        JSON.stringify({ ...finding, id }),
        'line 1: id: not a finding id',
      ]),
    ];
    for (const [body, reason] of cases) {
      const parsed = STORED.history.parse(body);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? '' : parsed.reason).toContain(reason);
    }
    expect(STORED.current.parse(TRUNCATED)).toMatchObject({ ok: false });
    const document = recordWorkspaceScan(undefined, [driftDraft()], {
      workspace: 'payments-prod',
      scanId: 'scan-1',
      now: startedAt,
      outcome: 'ok',
      check: 'terraform',
    }).current;
    const shortResolved = {
      ...document,
      resolved: [
        {
          id: 'ac0e',
          check: 'terraform',
          resolvedAt: startedAt.toISOString(),
          firstSeenAt: startedAt.toISOString(),
        },
      ],
    };
    expect(STORED.current.parse(JSON.stringify(shortResolved))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^resolved\[0\]\.id: not a finding id/),
    });
    // The reason names what JSON.parse found, never an excerpt of the object (it may hold a secret).
    for (const body of ['password=hunter2hunter2', '{"a": ghp_abcdefghijklmnopqrstuvwxyz0123456789}', 'ab']) {
      const parsed = STORED.current.parse(body);
      const reason = parsed.ok ? '' : parsed.reason;
      expect(reason).toMatch(/^not JSON \(Unexpected token '.'\)$/);
      expect(STORED.history.parse(body)).toMatchObject({ ok: false, reason: `line 1 is ${reason}` });
    }
    // A time that is no time is a wrong type: ages, nights and expiries are computed from it.
    const suppression = { reason: 'r', by: 'b', until: '2026-12-01T00:00:00Z', at: '2026-11-01T00:00:00Z' };
    for (const bad of ['yesterday', '', 'NaN', '2026-13-45'])
      for (const [changed, path] of [
        [{ firstSeenAt: bad }, 'firstSeenAt'],
        [{ lastSeenAt: bad }, 'lastSeenAt'],
        [{ resolvedAt: bad }, 'resolvedAt'],
        [{ suppression: { ...suppression, until: bad } }, 'suppression.until'],
        [{ suppression: { ...suppression, at: bad } }, 'suppression.at'],
      ] as const) {
        const parsed = STORED.history.parse(JSON.stringify({ ...finding, ...changed }));
        expect(parsed.ok ? `${bad} accepted` : parsed.reason).toBe(`line 1: ${path}: not a date and time`);
      }
    expect(STORED.summary.parse('{"scanId":"s"}')).toMatchObject({ ok: false });
    expect(STORED.run.parse('{"durationMs":"12","plansMs":[],"noiseRemoved":{}}')).toMatchObject({
      ok: false,
    });
  });
});

describe('corrupt objects in the findings store', () => {
  it('a corrupt current document is quarantined, its scope recorded afresh with a finding, the other scope untouched', async () => {
    const { objects, store } = await twoScopes();
    objects.objects.set('current/payments-prod.json', TRUNCATED);
    const later = { scanId: 'scan-2', startedAt, now: new Date('2026-11-30T02:00:00Z') };

    const payments = await store.recordWorkspace(
      later,
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    const orders = await store.recordWorkspace(
      later,
      { workspace: 'orders-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft({ workspace: 'orders-prod' })],
    );

    expect(objects.objects.get('quarantine/current/payments-prod.json')).toBe(TRUNCATED);
    const reason = JSON.parse(objects.objects.get('quarantine/current/payments-prod.json.reason.json')!);
    expect(reason).toMatchObject({ key: 'current/payments-prod.json', what: 'current document' });
    const [corrupt] = corruptFindings(payments.history);
    expect(corrupt).toMatchObject({
      kind: 'scan-failed',
      severity: 'high',
      workspace: 'payments-prod',
      status: 'new',
      evidence: { key: 'current/payments-prod.json', quarantinedAs: 'quarantine/current/payments-prod.json' },
    });
    expect(corrupt!.owner).toBeUndefined();
    // Recorded in the scope's current document too, next to what this run saw.
    const current = JSON.parse(objects.objects.get('current/payments-prod.json')!);
    expect(current.findings.map((finding: Finding) => finding.ruleId).sort()).toEqual([
      'drift.update',
      'store.corrupt-object',
    ]);
    expect(orders.history.map((finding) => [finding.ruleId, finding.status])).toEqual([
      ['drift.update', 'ongoing'],
    ]);
  });

  it('a read-only store (listings, the query API) lists a corrupt object and leaves it for the next scan to report', async () => {
    const { objects } = await twoScopes();
    objects.objects.set('current/payments-prod.json', TRUNCATED);
    const reader = createFindingsStore(objects, { readOnly: true });
    for (let listing = 0; listing < 2; listing++) {
      expect((await reader.openFindings()).map((finding) => finding.workspace)).toEqual(['orders-prod']);
      expect(reader.takeCorruptions()).toEqual([
        expect.objectContaining({
          key: 'current/payments-prod.json',
          what: 'current document',
          removed: false,
        }),
      ]);
    }
    expect(objects.objects.get('current/payments-prod.json')).toBe(TRUNCATED);
    expect([...objects.objects.keys()].some((key) => key.startsWith('quarantine/'))).toBe(false);
    // The nightly scan then quarantines it and records why.
    const recorded = await createFindingsStore(objects).recordWorkspace(
      { scanId: 'scan-2', startedAt, now: startedAt },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [],
    );
    expect(corruptFindings(recorded.history)).toHaveLength(1);
  });

  it("a corrupt current document found by a plain read is reported by that scope's next record", async () => {
    const { objects, store } = await twoScopes();
    objects.objects.set('current/payments-prod.json', TRUNCATED);
    // A cluster scan reads its previous document before it records.
    expect(await store.readCurrent('payments-prod')).toBeUndefined();
    expect(objects.objects.has('current/payments-prod.json')).toBe(false);
    const recorded = await store.recordWorkspace(
      { scanId: 'scan-2', startedAt, now: startedAt },
      { workspace: 'payments-prod', check: 'cluster', outcome: 'ok' },
      [],
    );
    expect(corruptFindings(recorded.history)).toHaveLength(1);
  });

  it('open findings and suppression skip (and quarantine) a current document of the wrong shape', async () => {
    const { objects, store } = await twoScopes();
    const good = JSON.parse(objects.objects.get('current/orders-prod.json')!);
    const bad = JSON.parse(objects.objects.get('current/payments-prod.json')!);
    bad.findings[0].kind = 'something-else';
    objects.objects.set('current/payments-prod.json', JSON.stringify(bad));

    const open = await store.openFindings();
    expect(open.map((finding) => finding.workspace)).toEqual(['orders-prod']);
    expect(objects.objects.has('current/payments-prod.json')).toBe(false);
    expect(store.takeCorruptions()).toEqual([
      expect.objectContaining({
        key: 'current/payments-prod.json',
        reason: expect.stringContaining('findings[0].kind'),
        quarantinedAs: 'quarantine/current/payments-prod.json',
      }),
    ]);
    const suppressed = await store.suppress(good.findings[0].id, {
      reason: 'known',
      by: 'me',
      until: '2027-01-01T00:00:00Z',
      at: '2026-11-29T03:00:00Z',
    });
    expect(suppressed?.status).toBe('suppressed');
  });

  it('a corrupt history file is replaced by the finding that says so; the other scopes are still read', async () => {
    const { objects, store } = await twoScopes();
    const key = 'scans/dt=2026-11-29/scan=scan-1/payments-prod.jsonl';
    const original = objects.objects.get(key)!;
    objects.objects.set(key, original.slice(0, original.length / 2));

    const files = await store.scanHistoryFiles(scan);
    expect(files.map((file) => [file.scope, file.findings.map((finding) => finding.ruleId)])).toEqual([
      ['orders-prod', ['drift.update']],
      ['payments-prod', ['store.corrupt-object']],
    ]);
    expect(objects.objects.get(`quarantine/${key}`)).toBe(original.slice(0, original.length / 2));
    // NotifyOwners reads the same file later: it sees the replacement, not the corrupt bytes.
    const again = createFindingsStore(objects);
    expect(corruptFindings(await again.scanHistory(scan))).toHaveLength(1);
    expect(again.takeCorruptions()).toEqual([]);
  });

  it('corrupt history lines, run records and summaries are quarantined and skipped', async () => {
    const { objects, store } = await twoScopes();
    await store.recordRun(scan, 'orders-prod', { durationMs: 5, plansMs: [4], noiseRemoved: {} });
    objects.objects.set('scratch/scan=scan-1/runs/payments-prod.json', '{"durationMs":');
    await store.writeSummary(
      { scanId: 'scan-0', startedAt: new Date('2026-11-28T02:00:00Z') },
      {
        scanId: 'scan-0',
        startedAt: '2026-11-28T02:00:00Z',
        finishedAt: '2026-11-28T02:05:00Z',
        workspaces: { total: 1, scanned: 1, failed: 0, busy: 0, skipped: 0 },
        durationsMs: { total: 1, workspaces: {} },
        findings: { total: 0, bySeverity: {}, byKind: {} },
        noiseRemoved: {},
        failures: [],
      },
    );
    objects.objects.set('scans/dt=2026-11-29/scan=scan-1/summary.json', '{"scanId":"scan-1","startedAt":3}');
    objects.objects.set('scans/dt=2026-11-29/scan=scan-1/orders-prod@cluster.jsonl', '{"id":');

    expect([...(await store.scanRuns(scan)).keys()]).toEqual(['orders-prod']);
    expect((await store.recentSummaries(startedAt, 3)).map((summary) => summary.scanId)).toEqual(['scan-0']);
    expect((await store.recentHistory(startedAt, 1)).map((finding) => finding.workspace).sort()).toEqual([
      'orders-prod',
      'payments-prod',
    ]);
    expect(store.takeCorruptions().map((corrupt) => [corrupt.key, corrupt.what])).toEqual([
      ['scratch/scan=scan-1/runs/payments-prod.json', 'run record'],
      ['scans/dt=2026-11-29/scan=scan-1/summary.json', 'scan summary'],
      ['scans/dt=2026-11-29/scan=scan-1/orders-prod@cluster.jsonl', 'history file'],
    ]);
    for (const key of [
      'scratch/scan=scan-1/runs/payments-prod.json',
      'scans/dt=2026-11-29/scan=scan-1/summary.json',
      'scans/dt=2026-11-29/scan=scan-1/orders-prod@cluster.jsonl',
    ]) {
      expect(objects.objects.has(key)).toBe(false);
      expect(objects.objects.has(`quarantine/${key}`)).toBe(true);
    }
  });

  it('without permission to delete (deployed scan roles), the copy is kept and the next write replaces the corrupt version', async () => {
    const { objects } = await twoScopes();
    const noDelete: ObjectStore = {
      ...objects,
      delete: async () => {
        throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
      },
    };
    const store = createFindingsStore(noDelete);
    objects.objects.set('current/payments-prod.json', TRUNCATED);
    const historyKey = 'scans/dt=2026-11-29/scan=scan-1/orders-prod.jsonl';
    objects.objects.set(historyKey, '{"id":');

    const recorded = await store.recordWorkspace(
      { scanId: 'scan-2', startedAt, now: new Date('2026-11-30T02:00:00Z') },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    expect(corruptFindings(recorded.history)[0]?.detail).toContain(
      'copied to quarantine/current/payments-prod.json',
    );
    expect(STORED.current.parse(objects.objects.get('current/payments-prod.json')!)).toMatchObject({
      ok: true,
    });
    expect(objects.objects.get('quarantine/current/payments-prod.json')).toBe(TRUNCATED);

    await store.scanHistoryFiles(scan);
    const replaced = STORED.history.parse(objects.objects.get(historyKey)!);
    expect(replaced.ok && replaced.value.map((finding) => finding.ruleId)).toEqual(['store.corrupt-object']);
  });

  it('quarantine keeps a second copy of the same key, and never deletes an object rewritten meanwhile', async () => {
    const objects = memoryObjectStore();
    const first = await quarantineObject(
      objects,
      'current/a.json',
      { body: 'one', etag: '"1"' },
      {
        what: 'current document',
        reason: 'not JSON',
      },
    );
    await objects.put('current/a.json', 'two');
    const stored = (await objects.get('current/a.json'))!;
    await objects.put('current/a.json', '{"fixed":true}');
    const second = await quarantineObject(objects as ObjectStore, 'current/a.json', stored, {
      what: 'current document',
      reason: 'not JSON',
    });
    expect(first.quarantinedAs).toBe('quarantine/current/a.json');
    expect(second.quarantinedAs).not.toBe(first.quarantinedAs);
    expect(objects.objects.get(second.quarantinedAs!)).toBe('two');
    expect(objects.objects.get('quarantine/current/a.json')).toBe('one');
    // The writer's newer version survives: the delete was conditional on the corrupt version.
    expect(objects.objects.get('current/a.json')).toBe('{"fixed":true}');
  });
});

describe('readers of current/ read only the keys the writer writes', () => {
  it.each([
    ['a copy in a sub-folder', 'current/old/payments-prod.json', false],
    ['a backup beside it', 'current/payments-prod.json.bak', false],
    ['a name no scope can have', 'current/Payments Prod.json', false],
    ['a copy under another scope name', 'current/payments-copy.json', true],
  ])('ignores %s (%s): each open finding is listed once', async (_, key, reported) => {
    const { objects, store } = await twoScopes();
    const original = await objects.get('current/payments-prod.json');
    await objects.put(key, original!.body);
    const readOnly = createFindingsStore(objects, { readOnly: true });
    const ids = (await readOnly.openFindings()).map((finding) => finding.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    const corrupt = readOnly.takeCorruptions();
    expect(corrupt.map((object) => object.key)).toEqual(reported ? [key] : []);
    if (reported)
      expect(corrupt[0]?.reason).toBe('holds the document of "payments-prod", not of payments-copy');
    // A suppression finds the finding in its own scope's document, never in the copy.
    const id = ids.find((candidate) => candidate !== undefined)!;
    const suppressed = await store.suppress(id, {
      reason: 'r',
      by: 'b',
      until: '2027-01-01T00:00:00Z',
      at: '2026-11-30T00:00:00Z',
    });
    expect(suppressed?.status).toBe('suppressed');
    expect((await objects.get(key))?.body).toBe(original!.body);
  });
});
