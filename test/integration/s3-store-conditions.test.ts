import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '../../functions/adapters/object-store/s3-object-store.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import { type ObjectStore, PreconditionFailedError } from '../../functions/core/findings/object-store.js';
import { driftDraft } from '../helpers/findings.js';
import { REGION, useMoto } from '../helpers/integration.js';

/**
 * S3 answers a write with If-Match on a key that no longer exists with 404 NoSuchKey, not 412 (AWS
 * documents it; moto does the same). The store passed it on as it was, so a compare-and-swap whose
 * object another process deleted meanwhile (a corrupt document quarantined by a concurrent run, a
 * scope reset by hand) stopped the run with "The specified key does not exist." instead of reading
 * again, as the directory store (and the port's contract) does.
 */
const motoContext = useMoto();
const BUCKET = 'findings-conditions';
let s3: S3Client;

beforeAll(async () => {
  s3 = new S3Client({});
  await s3.send(
    new CreateBucketCommand({ Bucket: BUCKET, CreateBucketConfiguration: { LocationConstraint: REGION } }),
  );
});

describe('conditional writes to a key deleted meanwhile (moto)', () => {
  it('If-Match on a missing key is PreconditionFailedError, as every unmet condition', async () => {
    expect(motoContext.s3).toBeDefined();
    const store = createS3ObjectStore(s3, BUCKET);
    const { etag } = await store.put('current/gone.json', '{}');
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'current/gone.json' }));
    await expect(store.put('current/gone.json', '{"b":1}', { ifMatch: etag })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    expect(await store.get('current/gone.json')).toBeUndefined();
  });

  it('a scan overwriting a corrupt current document another run removed meanwhile records the scope', async () => {
    const key = 'current/payments-prod.json';
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: '{"findings": [' }));
    const s3Store = createS3ObjectStore(s3, BUCKET);
    // A deployed role without s3:DeleteObject: the corrupt version stays, the write overwrites it with
    // If-Match; just before that write, another run (allowed to delete) quarantines it away.
    let removedByOther = false;
    const store: ObjectStore = {
      ...s3Store,
      location: s3Store.location,
      delete: async () => {
        throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
      },
      put: async (written, body, options) => {
        if (written === key && options?.ifMatch && !removedByOther) {
          removedByOther = true;
          await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
        }
        return s3Store.put(written, body, options);
      },
    };
    const night = new Date();
    const recorded = await createFindingsStore(store).recordWorkspace(
      { scanId: 'night-1', startedAt: night, now: night },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    expect(removedByOther).toBe(true);
    const rules = recorded.current.findings.map((finding) => finding.ruleId).sort();
    expect(rules).toEqual(['drift.update', 'store.corrupt-object']);
    const stored = JSON.parse((await s3Store.get(key))!.body) as { findings: Array<{ ruleId: string }> };
    expect(stored.findings.map((finding) => finding.ruleId).sort()).toEqual(rules);
  });
});
