import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits `ms`, telling the person watching how long is left (at once, then every `everyMs`): the
 * lock confirmation window is minutes long, and silence would look like a hang. The countdown runs
 * on the monotonic clock, so an injected scan clock cannot stretch it.
 */
export async function waitWithProgress(
  ms: number,
  report: (remainingMs: number) => void,
  everyMs = 30_000,
): Promise<void> {
  const end = performance.now() + ms;
  for (let remaining = ms; remaining > 0; remaining = end - performance.now()) {
    report(remaining);
    await sleep(Math.min(everyMs, remaining));
  }
}
