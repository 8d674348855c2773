/**
 * Debian's chromium driven by playwright-core, as the report tests and bench/report.ts use it: never a
 * downloaded browser, a fresh profile each time, no background traffic, and every request that is not
 * the file itself aborted and recorded (the report must need nothing from the network).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.DRIFTWATCH_CHROMIUM ?? '/usr/bin/chromium';

export interface OfflineBrowser {
  context: BrowserContext;
  /** URLs the pages tried to load that were not file: URLs (all aborted). */
  blocked: string[];
  close(): Promise<void>;
}

export async function launchOfflineChromium(): Promise<OfflineBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium; .ci/run does) or set DRIFTWATCH_CHROMIUM`,
    );
  // A fresh profile: nothing cached or remembered from another run can make a test pass.
  const profile = mkdtempSync(join(tmpdir(), 'driftwatch-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const blocked: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('file:') && !blocked.includes(url)) blocked.push(url);
  });
  return {
    context,
    blocked,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
