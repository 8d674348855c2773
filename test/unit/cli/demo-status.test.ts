import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { provisioningStatus } from '../../../cli/demo/provision.js';
import { withPluginCacheLock } from '../../../functions/adapters/terraform/plugin-cache-lock.js';

/** The demo says what provisioning waits on in words, not as a JSON log line. */
const cache = mkdtempSync(join(tmpdir(), 'driftwatch-demo-status-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe('the demo status for the plugin cache lock', () => {
  it('is one readable line naming the holder while another init of the demo holds the lock', async () => {
    const lines: string[] = [];
    let release!: () => void;
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const first = withPluginCacheLock(cache, () => {
      held();
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await holding;
    let secondRan = false;
    const second = withPluginCacheLock(
      cache,
      async () => {
        secondRan = true;
      },
      { logger: provisioningStatus((line) => lines.push(line)), pollMs: 10 },
    );
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(secondRan).toBe(false);
    release();
    await Promise.all([first, second]);
    expect(secondRan).toBe(true);
    expect(lines).toEqual([
      `waiting for the plugin cache lock (another terraform init is installing providers), held by another workspace of this demo (pid ${process.pid})`,
    ]);
  });

  it('names a holder elsewhere by pid and host, inert on the terminal', () => {
    const lines: string[] = [];
    const status = provisioningStatus((line) => lines.push(line));
    status.info('waiting for the plugin cache lock', {
      lock: '/x/.driftwatch-init.lock',
      holderPid: 7,
      holderHost: 'ci\u001b[2J-runner',
    });
    status.warn('took over a stale plugin cache lock', {
      holderPid: 8,
      holderHost: 'gone',
      reason: 'expired at 2026-12-01T00:00:00Z',
    });
    status.debug('not for people');
    expect(lines).toEqual([
      'waiting for the plugin cache lock, held by pid 7 on ci-runner',
      'took over a stale plugin cache lock, held by pid 8 on gone (expired at 2026-12-01T00:00:00Z)',
    ]);
  });
});
