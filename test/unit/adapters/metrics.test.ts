import { describe, expect, it } from 'vitest';
import {
  emitMetrics,
  emitNightMetrics,
  METRICS_NAMESPACE,
  OPEN_FINDINGS_METRIC,
  PLAN_DURATION_METRIC,
} from '../../../functions/adapters/metrics.js';

/** The lines written, parsed. */
function capture(emit: (write: (line: string) => void) => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  emit((line) => lines.push(line));
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}
type Emf = { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: unknown[] }> };
const emfOf = (line: Record<string, unknown>) => (line._aws as Emf).CloudWatchMetrics[0]!;

describe('metrics in the Embedded Metric Format', () => {
  it('writes dimensions as named values, other fields as plain log fields, with the unit', () => {
    const [line] = capture((write) =>
      emitMetrics(
        'Ns',
        { A: 3 },
        { dimensions: { Severity: 'high' }, fields: { Workspace: 'w1' }, unit: 'Milliseconds', write },
      ),
    );
    expect(emfOf(line!)).toEqual({
      Namespace: 'Ns',
      Dimensions: [['Severity']],
      Metrics: [{ Name: 'A', Unit: 'Milliseconds' }],
    });
    expect(line).toMatchObject({ A: 3, Severity: 'high', Workspace: 'w1' });
  });

  it('without options: no dimension, counts (the form the alarms use)', () => {
    const [line] = capture((write) => emitMetrics('Ns', { A: 1, B: 2 }, { write }));
    expect(emfOf(line!).Dimensions).toEqual([[]]);
    expect(emfOf(line!).Metrics).toEqual([
      { Name: 'A', Unit: 'Count' },
      { Name: 'B', Unit: 'Count' },
    ]);
  });

  it('a night: open findings for every severity (zero included) and each workspace’s scan time, not a metric per workspace', () => {
    const lines = capture((write) =>
      emitNightMetrics(
        {
          findings: { total: 3, bySeverity: { high: 2, low: 1 }, byKind: {} },
          durationsMs: {
            total: 9000,
            workspaces: {
              'payments-prod': { total: 4100, plans: [3000] },
              'platform-prod': { total: 900, plans: [700] },
            },
          },
        },
        write,
      ),
    );
    const open = lines.filter((line) => OPEN_FINDINGS_METRIC in line);
    expect(open.map((line) => [line.Severity, line[OPEN_FINDINGS_METRIC]])).toEqual([
      ['critical', 0],
      ['high', 2],
      ['medium', 0],
      ['low', 1],
      ['info', 0],
    ]);
    for (const line of open)
      expect(emfOf(line)).toMatchObject({ Namespace: METRICS_NAMESPACE, Dimensions: [['Severity']] });
    const durations = lines.filter((line) => PLAN_DURATION_METRIC in line);
    expect(durations.map((line) => [line.Workspace, line[PLAN_DURATION_METRIC]])).toEqual([
      ['payments-prod', 4100],
      ['platform-prod', 900],
    ]);
    for (const line of durations) {
      expect(emfOf(line).Dimensions).toEqual([[]]);
      expect(emfOf(line).Metrics).toEqual([{ Name: PLAN_DURATION_METRIC, Unit: 'Milliseconds' }]);
    }
  });
});
