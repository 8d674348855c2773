import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { type Digest, digestInput } from '../../../../functions/core/notify/digest.js';
import {
  type DigestPublisher,
  DigestsNotSentError,
  notifyOwners,
} from '../../../../functions/core/notify/notify-owners.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { driftDraft } from '../../../helpers/findings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function store() {
  const dir = mkdtempSync(join(tmpdir(), 'driftwatch-notify-'));
  dirs.push(dir);
  return createFsObjectStore(dir);
}

/** Records what it published; fails the owners in `failing` while they stay there. */
function publisher(failing = new Set<string>()): DigestPublisher & { published: Digest[] } {
  return {
    published: [],
    async publish(digests) {
      const sent: string[] = [];
      const failed: Array<{ digestId: string; reason: string }> = [];
      for (const digest of digests) {
        if (failing.has(digest.owner)) failed.push({ digestId: digest.digestId, reason: 'InternalError' });
        else {
          this.published.push(digest);
          sent.push(digest.digestId);
        }
      }
      return { sent, failed };
    },
  };
}

const news = (owner: string): Finding => ({
  ...driftDraft({ owner }),
  id: owner.padEnd(64, '0').replace(/[^0-9a-f]/g, 'a'),
  status: 'new',
  scanId: 'scan-1',
  firstSeenAt: '2026-11-29T02:00:00Z',
  lastSeenAt: '2026-11-29T02:00:00Z',
});
const input = (scanId: string, findings: Finding[]) => ({
  scanId,
  now: new Date('2026-11-29T03:00:00Z'),
  findings,
  fallbackOwner: 'platform',
  settings: DEFAULT_NOTIFICATION_SETTINGS,
});

describe('notifyOwners', () => {
  it('publishes one digest per owner once: the same scan run again publishes nothing', async () => {
    const objects = store();
    const sns = publisher();
    const first = await notifyOwners(input('scan-1', [news('payments'), news('dba')]), {
      publisher: sns,
      store: objects,
    });
    expect(first.sent.map((digest) => digest.owner)).toEqual(['dba', 'payments']);
    const again = await notifyOwners(input('scan-1', [news('payments'), news('dba')]), {
      publisher: sns,
      store: objects,
    });
    expect(again.sent).toEqual([]);
    expect(again.alreadySent).toEqual(['scan-1.dba', 'scan-1.payments']);
    expect(sns.published).toHaveLength(2);
  });

  it('keeps a digest that keeps failing in the outbox and sends it with the next run, exactly once', async () => {
    const objects = store();
    const failing = new Set(['payments']);
    const sns = publisher(failing);
    const first = await notifyOwners(input('scan-1', [news('payments'), news('dba')]), {
      publisher: sns,
      store: objects,
    });
    expect(first.deferred).toEqual([{ digestId: 'scan-1.payments', reason: 'InternalError' }]);
    expect(sns.published.map((digest) => digest.digestId)).toEqual(['scan-1.dba']);

    failing.clear();
    const next = await notifyOwners(input('scan-2', []), { publisher: sns, store: objects });
    expect(next.resent).toEqual(['scan-1.payments']);
    const later = await notifyOwners(input('scan-3', []), { publisher: sns, store: objects });
    expect(later.resent).toEqual([]);
    expect(sns.published.map((digest) => digest.digestId)).toEqual(['scan-1.dba', 'scan-1.payments']);
  });
  it('reports an outbox digest that fails again as deferred, and still sends the other owners theirs', async () => {
    const objects = store();
    const failing = new Set(['payments']);
    const sns = publisher(failing);
    await notifyOwners(input('scan-1', [news('payments')]), { publisher: sns, store: objects });
    const next = await notifyOwners(input('scan-2', [news('dba'), news('payments')]), {
      publisher: sns,
      store: objects,
    });
    expect(next.deferred.map((failure) => failure.digestId)).toEqual(['scan-1.payments', 'scan-2.payments']);
    expect(next.sent.map((digest) => digest.digestId)).toEqual(['scan-2.dba']);
    expect(new DigestsNotSentError(next.deferred).message).toBe(
      '2 digests not accepted by SNS: scan-1.payments (InternalError); scan-2.payments (InternalError). ' +
        'Kept in notifications/outbox/ and sent by the next run; check the topic, its KMS key policy and the sns:Publish permission',
    );
  });
});

describe('notifyOwners with owners no registry team can have', () => {
  // Deployed, a finding's owner comes from the scanner's pending record (docs/security.md): a
  // compromised scan, or a store edited by hand, can write any text there. A digest's owner becomes
  // a key part (notifications/outbox/<scanId>.<owner>.json; S3 keys end at 1024 bytes) and an SNS
  // attribute (an empty one is refused for good): one such owner must not keep every team's digest
  // from going out, nor stay in the outbox for ever.
  it.each([
    ['too long for a key', 'x'.repeat(2000)],
    ['empty', ''],
    ['a path', '../../../outside'],
    ['not an id', 'Payments Team <!channel>'],
  ])(
    'sends the digests of every team, and the findings of an owner %s to the fallback owner',
    async (_, owner) => {
      const objects = store();
      const sns = publisher();
      const forged = { ...news('payments'), id: 'f'.repeat(64), owner };
      const result = await notifyOwners(input('scan-1', [news('payments'), forged]), {
        publisher: sns,
        store: objects,
      });
      expect(result.sent.map((digest) => digest.owner)).toEqual(['payments', 'platform']);
      const fallback = result.sent.find((digest) => digest.owner === 'platform')!;
      expect(fallback.document!.items.map((item) => item.id)).toEqual(['f'.repeat(64)]);
      const keys: string[] = [];
      for await (const { key } of objects.list('notifications/')) keys.push(key);
      expect(keys.sort()).toEqual([
        'notifications/sent/scan-1.payments.json',
        'notifications/sent/scan-1.platform.json',
      ]);
    },
  );

  it('sends the findings of an owner that is no team of the registry (one removed since) to the fallback owner', async () => {
    const registry = {
      owners: {
        fallback: 'platform',
        teams: [
          { id: 'payments', destinations: [] },
          { id: 'platform', destinations: [] },
        ],
      },
      notifications: DEFAULT_NOTIFICATION_SETTINGS,
    };
    const orphan = { ...news('payments'), id: 'e'.repeat(64), owner: 'payments-legacy' };
    const scan = { scanId: 'scan-1', now: new Date('2026-11-29T03:00:00Z') };
    const result = await notifyOwners(digestInput(registry, scan, [news('payments'), orphan]), {
      publisher: publisher(),
      store: store(),
    });
    expect(result.sent.map((digest) => digest.owner)).toEqual(['payments', 'platform']);
    const fallback = result.sent.find((digest) => digest.owner === 'platform')!;
    expect(fallback.document!.items.map((item) => item.id)).toEqual(['e'.repeat(64)]);
  });
});
