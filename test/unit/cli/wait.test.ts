import { describe, expect, it } from 'vitest';
import { waitWithProgress } from '../../../cli/wait.js';

describe('waitWithProgress', () => {
  it('reports the time left at once and then every interval, and returns when it is over', async () => {
    const reports: number[] = [];
    const started = performance.now();
    await waitWithProgress(120, (remaining) => reports.push(remaining), 50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    expect(reports.length).toBeGreaterThanOrEqual(3);
    expect(reports[0]).toBe(120);
    expect(reports.every((remaining, index) => index === 0 || remaining < reports[index - 1]!)).toBe(true);
  });

  it('does not wait for a moment that has passed', async () => {
    const reports: number[] = [];
    await waitWithProgress(-5, (remaining) => reports.push(remaining));
    expect(reports).toEqual([]);
  });
});
