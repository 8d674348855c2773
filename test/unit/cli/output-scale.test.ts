import { describe, expect, it } from 'vitest';
import { renderFindings, renderTable } from '../../../cli/output.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { driftDraft } from '../../helpers/findings.js';

/** Large estates: a table of every open finding must print, not overflow the stack. */
describe('tables of 150k findings', () => {
  it('renderTable measures 150k rows without spreading them into arguments', () => {
    const rows = Array.from({ length: 150_000 }, (_, index) => [`row-${index}`, 'x']);
    const table = renderTable(['NAME', 'VALUE'], rows);
    const lines = table.trimEnd().split('\n');
    expect(lines).toHaveLength(150_001);
    expect(lines[0]).toBe(`NAME${' '.repeat('row-149999'.length - 4)}  VALUE`);
    expect(lines[150_000]).toBe('row-149999  x');
  });

  it('renderFindings prints 150k findings as a table', () => {
    const base = driftDraft();
    const now = new Date('2026-03-01T00:00:00Z');
    const findings = Array.from(
      { length: 150_000 },
      (_, index) =>
        ({
          ...base,
          id: index.toString(16).padStart(64, '0'),
          status: 'new',
          workspace: `ws-${index % 100}`,
          scanId: 's',
          firstSeenAt: now.toISOString(),
          lastSeenAt: now.toISOString(),
        }) as Finding,
    );
    const table = renderFindings(findings, 'table', now);
    expect(table.split('\n')).toHaveLength(150_002);
    expect(table).not.toContain('No findings.');
  });
});
