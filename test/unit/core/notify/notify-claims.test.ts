import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import type { ObjectStore } from '../../../../functions/core/findings/object-store.js';
import type { Digest } from '../../../../functions/core/notify/digest.js';
import {
  CLAIM_LEASE_MS,
  type DigestPublisher,
  notifyOwners,
} from '../../../../functions/core/notify/notify-owners.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { driftDraft } from '../../../helpers/findings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function fsStore(): ObjectStore {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-claims-'));
  dirs.push(dir);
  return createFsObjectStore(dir);
}

/** Counts what it published; `gate` holds every publish until released (to make runs overlap). */
function countingPublisher(options: { failing?: Set<string>; gate?: Promise<void> } = {}) {
  const published: Digest[] = [];
  const publisher: DigestPublisher = {
    async publish(digests) {
      await options.gate;
      const sent: string[] = [];
      const failed: Array<{ digestId: string; reason: string }> = [];
      for (const digest of digests) {
        if (options.failing?.has(digest.owner))
          failed.push({ digestId: digest.digestId, reason: 'InternalError' });
        else {
          published.push(digest);
          sent.push(digest.digestId);
        }
      }
      return { sent, failed };
    },
  };
  return { publisher, published };
}

const news = (owner: string): Finding => ({
  ...driftDraft({ owner, workspace: `${owner}-prod` }),
  id: owner.padEnd(64, '0').replace(/[^0-9a-f]/g, 'a'),
  status: 'new',
  scanId: 'scan-1',
  firstSeenAt: '2026-11-29T02:00:00Z',
  lastSeenAt: '2026-11-29T02:00:00Z',
});
const input = (scanId: string, owners: string[], now = new Date('2026-11-29T03:00:00Z')) => ({
  scanId,
  now,
  findings: owners.map(news),
  fallbackOwner: 'platform',
  settings: DEFAULT_NOTIFICATION_SETTINGS,
});

describe('notifyOwners with claims', () => {
  it('two senders racing on the same digests publish each once', async () => {
    const store = fsStore();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { publisher, published } = countingPublisher({ gate });
    // Each run signals once it has looked at the last digest's marker: then both have decided.
    const lastMarker = 'notifications/sent/scan-1.payments.json';
    const watched = () => {
      let decided: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        decided = resolve;
      });
      const wrapped: ObjectStore = {
        ...store,
        get: async (key) => store.get(key).finally(() => key === lastMarker && decided()),
        put: async (key, body, options) =>
          store.put(key, body, options).finally(() => key === lastMarker && decided()),
      };
      return { wrapped, done };
    };
    const a = watched();
    const b = watched();
    const first = notifyOwners(input('scan-1', ['payments', 'dba']), { publisher, store: a.wrapped });
    const second = notifyOwners(input('scan-1', ['payments', 'dba']), { publisher, store: b.wrapped });
    await Promise.all([a.done, b.done]);
    release();
    const results = await Promise.all([first, second]);
    expect(published.map((digest) => digest.digestId).sort()).toEqual(['scan-1.dba', 'scan-1.payments']);
    expect(results.flatMap((result) => result.alreadySent).sort()).toEqual(['scan-1.dba', 'scan-1.payments']);
    const marker = await store.get('notifications/sent/scan-1.dba.json');
    expect(JSON.parse(marker!.body)).toMatchObject({ state: 'sent' });
  });

  it('a failed publish releases its claim: the next run sends it from the outbox', async () => {
    const store = fsStore();
    const failing = new Set(['payments']);
    const { publisher, published } = countingPublisher({ failing });
    const first = await notifyOwners(input('scan-1', ['payments']), { publisher, store });
    expect(first.deferred.map((failure) => failure.digestId)).toEqual(['scan-1.payments']);
    expect(await store.get('notifications/sent/scan-1.payments.json')).toBeUndefined();
    failing.clear();
    const next = await notifyOwners(input('scan-2', []), { publisher, store });
    expect(next.resent).toEqual(['scan-1.payments']);
    expect(published.map((digest) => digest.digestId)).toEqual(['scan-1.payments']);
  });

  it('takes over a claim left by a run that died before publishing, but not a fresh one', async () => {
    const store = fsStore();
    const claimedAt = new Date('2026-11-29T03:00:00Z');
    await store.put(
      'notifications/sent/scan-1.payments.json',
      JSON.stringify({ digestId: 'scan-1.payments', state: 'claimed', claimedAt: claimedAt.toISOString() }),
    );
    const { publisher, published } = countingPublisher();
    const soon = await notifyOwners(input('scan-1', ['payments'], new Date(claimedAt.getTime() + 60_000)), {
      publisher,
      store,
    });
    expect(soon.alreadySent).toEqual(['scan-1.payments']);
    expect(published).toHaveLength(0);
    const later = new Date(claimedAt.getTime() + CLAIM_LEASE_MS + 60_000);
    const late = await notifyOwners(input('scan-1', ['payments'], later), { publisher, store });
    expect(late.sent.map((digest) => digest.digestId)).toEqual(['scan-1.payments']);
    expect(published).toHaveLength(1);
  });

  it('a run killed after claiming (Lambda timeout, OOM) loses no digest: the next run sends it once its claim expired', async () => {
    const store = fsStore();
    const killed: DigestPublisher = {
      async publish() {
        throw new Error('Sandbox.Timedout');
      },
    };
    const at = new Date('2026-11-29T03:00:00Z');
    await expect(
      notifyOwners(input('scan-1', ['payments'], at), { publisher: killed, store }),
    ).rejects.toThrow('Sandbox.Timedout');
    const { publisher, published } = countingPublisher();
    // Step Functions retries at once: the claim may be a live run's, so nothing is sent twice.
    const retried = await notifyOwners(input('scan-1', ['payments'], new Date(at.getTime() + 60_000)), {
      publisher,
      store,
    });
    expect(retried.sent).toEqual([]);
    expect(published).toEqual([]);
    // The next night sends it, once, and the night after has nothing left of it.
    const night = new Date(at.getTime() + 24 * 60 * 60_000);
    const next = await notifyOwners(input('scan-2', [], night), { publisher, store });
    expect(next.resent).toEqual(['scan-1.payments']);
    await notifyOwners(input('scan-3', [], new Date(night.getTime() + 24 * 60 * 60_000)), {
      publisher,
      store,
    });
    expect(published.map((digest) => digest.digestId)).toEqual(['scan-1.payments']);
  });

  it('a run killed after its sent marker, before the outbox was cleared, sends nothing twice', async () => {
    const store = fsStore();
    const { publisher, published } = countingPublisher();
    const dying: ObjectStore = {
      ...store,
      delete: async (key, options) => {
        if (key.startsWith('notifications/outbox/')) throw new Error('Runtime.OutOfMemory');
        return store.delete(key, options);
      },
    };
    await expect(notifyOwners(input('scan-1', ['payments']), { publisher, store: dying })).rejects.toThrow(
      'Runtime.OutOfMemory',
    );
    const later = new Date('2026-11-30T03:00:00Z');
    const next = await notifyOwners(input('scan-2', [], later), { publisher, store });
    expect(next.resent).toEqual([]);
    expect(published.map((digest) => digest.digestId)).toEqual(['scan-1.payments']);
    expect(await store.get('notifications/outbox/scan-1.payments.json')).toBeUndefined();
  });

  it('a corrupt outbox entry is quarantined, reported to the fallback owner, and blocks no other digest', async () => {
    const store = fsStore();
    const failing = new Set(['payments', 'dba']);
    const { publisher, published } = countingPublisher({ failing });
    await notifyOwners(input('scan-1', ['payments', 'dba']), { publisher, store });
    const corruptKey = 'notifications/outbox/scan-1.dba.json';
    const truncated = (await store.get(corruptKey))!.body.slice(0, 100);
    await store.put(corruptKey, truncated);
    failing.clear();

    const next = await notifyOwners(input('scan-2', ['orders']), { publisher, store });
    expect(next.resent).toEqual(['scan-1.payments']);
    expect(next.sent.map((digest) => digest.owner).sort()).toEqual(['orders', 'platform']);
    expect(next.quarantined).toEqual([
      expect.objectContaining({
        key: corruptKey,
        what: 'outbox digest',
        quarantinedAs: `quarantine/${corruptKey}`,
      }),
    ]);
    expect((await store.get(`quarantine/${corruptKey}`))?.body).toBe(truncated);
    expect(await store.get(corruptKey)).toBeUndefined();
    const platform = next.sent.find((digest) => digest.owner === 'platform')!;
    expect(platform.message.content.description).toContain(corruptKey);
    expect(published.map((digest) => digest.digestId)).toEqual([
      'scan-1.payments',
      'scan-2.orders',
      'scan-2.platform',
    ]);
  });

  it('an outbox entry of the wrong shape is quarantined too (valid JSON, missing digestId)', async () => {
    const store = fsStore();
    await store.put('notifications/outbox/x.json', JSON.stringify({ owner: 'payments', message: {} }));
    const { publisher } = countingPublisher();
    const result = await notifyOwners(input('scan-1', ['payments']), { publisher, store });
    expect(result.quarantined.map((corrupt) => corrupt.key)).toEqual(['notifications/outbox/x.json']);
    expect(result.sent.map((digest) => digest.owner).sort()).toEqual(['payments', 'platform']);
  });

  it('a corrupt sent marker is quarantined and counts as absent: the digest is sent rather than lost', async () => {
    const store = fsStore();
    await store.put('notifications/sent/scan-1.payments.json', '{"digestId": 12');
    const { publisher, published } = countingPublisher();
    const result = await notifyOwners(input('scan-1', ['payments']), { publisher, store });
    expect(result.quarantined.map((corrupt) => corrupt.what)).toEqual(['sent marker']);
    expect(published.map((digest) => digest.digestId)).toContain('scan-1.payments');
    expect((await store.get('quarantine/notifications/sent/scan-1.payments.json'))?.body).toBe(
      '{"digestId": 12',
    );
  });
});
