import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { ObjectStore } from '../../../../functions/core/findings/object-store.js';
import { driftDraft } from '../../../helpers/findings.js';

const dir = mkdtempSync(join(tmpdir(), 'driftwatch-history-scope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Keys the store read, to prove that a scoped history reads only that scope's files. */
function countingStore(objects: ObjectStore): { objects: ObjectStore; read: string[] } {
  const read: string[] = [];
  return {
    read,
    objects: {
      ...objects,
      location: objects.location,
      get: async (key) => {
        read.push(key);
        return objects.get(key);
      },
    },
  };
}

describe('recentHistory with a scope (findings show)', () => {
  it("reads that scope's history files of every check, and no other scope's", async () => {
    const store = createFindingsStore(createFsObjectStore(dir));
    const now = new Date('2026-11-30T02:00:00Z');
    const scan = { scanId: 'scan-1', startedAt: now, now };
    await store.recordWorkspace(scan, { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' }, [
      driftDraft(),
    ]);
    await store.recordWorkspace(scan, { workspace: 'payments-prod', check: 'backend', outcome: 'ok' }, [
      driftDraft({ kind: 'backend-policy', ruleId: 'backend.versioning', resource: { bucket: 'tfstate' } }),
    ]);
    // A scope whose id starts with the other's: only a whole name (or name@check) is that scope.
    await store.recordWorkspace(scan, { workspace: 'payments-prod-eu', check: 'terraform', outcome: 'ok' }, [
      driftDraft({ workspace: 'payments-prod-eu' }),
    ]);
    const counting = countingStore(createFsObjectStore(dir));
    const scoped = await createFindingsStore(counting.objects, { readOnly: true }).recentHistory(
      now,
      2,
      'payments-prod',
    );
    expect(scoped.map((line) => line.ruleId).sort()).toEqual(['backend.versioning', 'drift.update']);
    expect(scoped.every((line) => line.workspace === 'payments-prod')).toBe(true);
    expect(counting.read.sort()).toEqual([
      'scans/dt=2026-11-30/scan=scan-1/payments-prod.jsonl',
      'scans/dt=2026-11-30/scan=scan-1/payments-prod@backend.jsonl',
    ]);
    // Without a scope: every scope's lines, as the listing of resolved findings needs.
    expect(await store.recentHistory(now, 2)).toHaveLength(3);
  });
});
