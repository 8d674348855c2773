import { describe, expect, it } from 'vitest';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import { STORE_SCHEMA_VERSION } from '../../../../functions/core/findings/layout.js';
import { NewerStoreObjectError, STORED } from '../../../../functions/core/findings/stored-schemas.js';
import { memoryObjectStore } from '../../../helpers/backend.js';
import { driftDraft } from '../../../helpers/findings.js';

const night = (day: number) => new Date(`2026-11-${String(day).padStart(2, '0')}T02:00:00Z`);
const target = { workspace: 'payments-prod', check: 'terraform' as const, outcome: 'ok' as const };
const KEY = 'current/payments-prod.json';

/**
 * A store that a newer driftwatch wrote to (a rolling upgrade, an engineer's older CLI against the
 * deployed bucket): its objects are not corrupt, and this driftwatch must neither quarantine nor
 * rewrite them, or the scope's findings, suppressions and regression memory are gone.
 */
async function storeWrittenByANewerDriftwatch() {
  const objects = memoryObjectStore();
  const store = createFindingsStore(objects);
  await store.recordWorkspace({ scanId: 'n1', startedAt: night(1), now: night(1) }, target, [driftDraft()]);
  const document = JSON.parse(objects.objects.get(KEY)!);
  // What a future version could write that this one cannot read: a kind it does not know.
  const newer = {
    ...document,
    schemaVersion: STORE_SCHEMA_VERSION + 1,
    findings: [...document.findings, { ...document.findings[0], id: 'f'.repeat(64), kind: 'iam-drift' }],
  };
  objects.objects.set(KEY, JSON.stringify(newer));
  return { objects, body: JSON.stringify(newer) };
}

describe('an object written by a newer driftwatch', () => {
  it('current documents are written with the schema version', async () => {
    const objects = memoryObjectStore();
    await createFindingsStore(objects).recordWorkspace(
      { scanId: 'n1', startedAt: night(1), now: night(1) },
      target,
      [],
    );
    expect(JSON.parse(objects.objects.get(KEY)!).schemaVersion).toBe(STORE_SCHEMA_VERSION);
  });

  it('a scan stops with an error saying to upgrade, and leaves the document as it was', async () => {
    const { objects, body } = await storeWrittenByANewerDriftwatch();
    const scan = createFindingsStore(objects).recordWorkspace(
      { scanId: 'n2', startedAt: night(2), now: night(2) },
      target,
      [],
    );
    await expect(scan).rejects.toThrow(NewerStoreObjectError);
    await expect(scan).rejects.toThrow(
      /^current\/payments-prod\.json in the findings store was written by a newer driftwatch \(store schema 2; this one reads up to 1\): upgrade driftwatch/,
    );
    expect(objects.objects.get(KEY)).toBe(body);
    expect([...objects.objects.keys()].filter((key) => key.startsWith('quarantine/'))).toEqual([]);
  });

  it('listings and suppress stop on it too, instead of calling it corrupt or listing fewer findings', async () => {
    const { objects, body } = await storeWrittenByANewerDriftwatch();
    await expect(createFindingsStore(objects, { readOnly: true }).openFindings()).rejects.toThrow(
      NewerStoreObjectError,
    );
    await expect(createFindingsStore(objects).suppress('f'.repeat(64), undefined)).rejects.toThrow(
      NewerStoreObjectError,
    );
    expect(objects.objects.get(KEY)).toBe(body);
    expect(() => STORED.current.parse(body)).toThrow(NewerStoreObjectError);
  });
});
