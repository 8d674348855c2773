import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../functions/core/findings/model.js';
import {
  InvalidQueryError,
  parseFindingsQuery,
  queryFindings,
} from '../../../../functions/core/query/query-findings.js';
import { driftDraft } from '../../../helpers/findings.js';

const findings: Finding[] = Array.from({ length: 25 }, (_, index) => ({
  ...driftDraft({
    workspace: `ws-${index % 5}`,
    owner: index % 2 ? 'payments' : 'platform',
    severity: index % 3 === 0 ? 'critical' : 'medium',
  }),
  id: index.toString(16).padStart(64, '0'),
  status: index % 4 === 0 ? 'changed' : 'new',
  scanId: 's',
  firstSeenAt: new Date(Date.UTC(2026, 10, 1 + index)).toISOString(),
  lastSeenAt: '2026-11-29T02:00:00Z',
}));

describe('findings query', () => {
  it('filters on owner, workspace, kind, status, severity and since', () => {
    const query = parseFindingsQuery({ owner: 'payments', severity: 'critical', since: '2026-11-05' });
    const page = queryFindings(findings, query);
    expect(page.findings.length).toBeGreaterThan(0);
    for (const finding of page.findings) {
      expect(finding).toMatchObject({ owner: 'payments', severity: 'critical' });
      expect(finding.firstSeenAt >= '2026-11-05').toBe(true);
    }
    expect(
      queryFindings(
        findings,
        parseFindingsQuery({ workspace: 'ws-1', status: 'changed', kind: 'terraform-drift' }),
      ).findings.map((f) => f.workspace),
    ).toEqual(expect.arrayContaining(['ws-1']));
  });

  it('pages with a cursor: every finding exactly once, most severe first', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = queryFindings(findings, parseFindingsQuery({ limit: '7', ...(cursor ? { cursor } : {}) }));
      expect(page.findings.length).toBeLessThanOrEqual(7);
      seen.push(...page.findings.map((finding) => finding.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const first = queryFindings(findings, parseFindingsQuery({ limit: '3' })).findings;
    expect(first.every((finding) => finding.severity === 'critical')).toBe(true);
  });

  it.each([
    [{ kind: 'drift' }, /kind must be one of/],
    [{ severity: 'urgent' }, /severity must be one of/],
    [{ limit: '0' }, /limit must be a whole number from 1 to 500/],
    [{ limit: 'many' }, /limit/],
    [{ since: 'yesterday' }, /since must be an ISO date/],
    [{ cursor: 'garbage' }, /cursor is not one this API returned/],
    [{ colour: 'red' }, /unknown parameter\(s\): colour/],
  ])('rejects %j with a message', (parameters, message) => {
    expect(() => parseFindingsQuery(parameters)).toThrow(InvalidQueryError);
    expect(() => parseFindingsQuery(parameters)).toThrow(message);
  });
});
