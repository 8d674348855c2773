import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../functions/core/findings/model.js';
import {
  InvalidQueryError,
  parseFindingsQuery,
  queryFindings,
  singleValuedParameters,
} from '../../../../functions/core/query/query-findings.js';
import { driftDraft } from '../../../helpers/findings.js';

const NOW = new Date('2026-11-30T00:00:00Z');
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
    const query = parseFindingsQuery({ owner: 'payments', severity: 'critical', since: '2026-11-05' }, NOW);
    const page = queryFindings(findings, query);
    expect(page.findings.length).toBeGreaterThan(0);
    for (const finding of page.findings) {
      expect(finding).toMatchObject({ owner: 'payments', severity: 'critical' });
      expect(finding.firstSeenAt >= '2026-11-05').toBe(true);
    }
    expect(
      queryFindings(
        findings,
        parseFindingsQuery({ workspace: 'ws-1', status: 'changed', kind: 'terraform-drift' }, NOW),
      ).findings.map((f) => f.workspace),
    ).toEqual(expect.arrayContaining(['ws-1']));
  });

  it("severity=<level> is that level or above, as the CLI's --severity: severity=high never leaves out a critical finding", () => {
    const levels = ['critical', 'high', 'medium', 'low', 'info'] as const;
    const graded = levels.map((severity, index) => ({ ...findings[index]!, severity }));
    const at = (severity: string) =>
      queryFindings(graded, parseFindingsQuery({ severity }, NOW)).findings.map(
        (finding) => finding.severity,
      );
    expect(at('high')).toEqual(['critical', 'high']);
    expect(at('critical')).toEqual(['critical']);
    expect(at('info')).toEqual([...levels]);
  });

  it('pages with a cursor: every finding exactly once, most severe first', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = queryFindings(
        findings,
        parseFindingsQuery({ limit: '7', ...(cursor ? { cursor } : {}) }, NOW),
      );
      expect(page.findings.length).toBeLessThanOrEqual(7);
      seen.push(...page.findings.map((finding) => finding.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const first = queryFindings(findings, parseFindingsQuery({ limit: '3' }, NOW)).findings;
    expect(first.every((finding) => finding.severity === 'critical')).toBe(true);
  });

  it.each([
    [{ kind: 'drift' }, /kind must be one of/],
    [{ severity: 'urgent' }, /severity must be one of/],
    [{ limit: '0' }, /limit must be a whole number from 1 to 500/],
    [{ limit: 'many' }, /limit/],
    [{ since: 'yesterday' }, /since takes a date \(2026-11-01\) or a duration \(7d, 12h\), not yesterday/],
    [{ cursor: 'garbage' }, /cursor is not one this API returned/],
    [{ colour: 'red' }, /unknown parameter\(s\): colour/],
  ])('rejects %j with a message', (parameters, message) => {
    expect(() => parseFindingsQuery(parameters, NOW)).toThrow(InvalidQueryError);
    expect(() => parseFindingsQuery(parameters, NOW)).toThrow(message);
  });
});

/** Every finding of `all` through the pages of `query`, as [returned ids, omitted ids]. */
function everyPage(all: readonly Finding[], parameters: Record<string, string>, options = {}) {
  const returned: string[] = [];
  const omitted: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = queryFindings(
      all,
      parseFindingsQuery({ ...parameters, ...(cursor ? { cursor } : {}) }, NOW),
      options,
    );
    returned.push(...page.findings.map((finding) => finding.id));
    omitted.push(...(page.omitted ?? []).map((entry) => entry.id));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return { returned, omitted };
}

describe('findings query against hostile parameters', () => {
  it.each([
    // An empty value is an unset variable, not "no filter": owner= would list every owner.
    [{ owner: '' }, 'owner is empty: give a value, or leave owner out'],
    [{ workspace: '' }, 'workspace is empty'],
    [{ since: '' }, 'since is empty'],
    [{ cursor: '' }, 'cursor is empty'],
    // Values no owner or scope can have: repeated (joined by an HTTP API), another case, a path.
    [{ owner: 'payments,platform' }, /^owner is a team id of the registry: 1-63 characters/],
    [{ owner: 'Payments' }, /^owner is a team id/],
    [{ workspace: '../current/x' }, /^workspace is a workspace or scope id/],
    [{ workspace: 'ws\u0000' }, /^workspace is a workspace or scope id/],
    [{ workspace: 'w'.repeat(64) }, /^workspace is a workspace or scope id/],
    // Numbers Number() would take.
    [{ limit: '1e2' }, /^limit must be a whole number/],
    [{ limit: '0x10' }, /^limit must be a whole number/],
    [{ limit: ' 5' }, /^limit must be a whole number/],
    [{ limit: '5.0' }, /^limit must be a whole number/],
    [{ limit: '-1' }, /^limit must be a whole number/],
    [{ limit: '501' }, /^limit must be a whole number/],
    [{ limit: '9'.repeat(400) }, /^limit must be a whole number/],
    // Days that are not (new Date rolls them into the next month), and times out of range.
    [{ since: '2026-02-31' }, 'since: 2026-02-31 is not a day of the calendar'],
    [{ since: '2026-04-31T00:00:00Z' }, 'since: 2026-04-31 is not a day of the calendar'],
    [{ since: '2026-11-01T00:00:00+99:00' }, 'since: 2026-11-01T00:00:00+99:00 is not a date'],
    // Words after a date: new Date read a month name among them as the month (December 11th).
    [
      { since: '2026-11-01 dec' },
      'since: 2026-11-01 dec is not a date: use YYYY-MM-DD or an ISO time such as 2026-11-01T08:00:00Z',
    ],
    // An offset's '+' sent unencoded arrives as a space.
    [
      { since: '2026-11-01T08:00:00 01:00' },
      "since: 2026-11-01T08:00:00 01:00 has a space where its time zone's '+' was (a query string reads '+' as a space): write it %2B (2026-11-01T08:00:00%2B01:00), or give the time in UTC with Z",
    ],
    [
      { since: '2026-11-01T08:00 0100' },
      /^since: 2026-11-01T08:00 0100 has a space where its time zone's '\+' was/,
    ],
    [{ since: '+275760-09-14' }, /^since \+275760-09-14 is out of range/],
    [{ since: '99999999d' }, /^since 99999999d is out of range/],
    [{ severity: 'HIGH' }, /^severity must be one of critical, high/],
    // Cursors this API never returns: another rank, a number JSON cannot hold, too long, not base64url.
    [{ cursor: Buffer.from('[9,"ws","id"]').toString('base64url') }, 'cursor is not one this API returned'],
    [
      { cursor: Buffer.from('[1e999,"ws","id"]').toString('base64url') },
      'cursor is not one this API returned',
    ],
    [{ cursor: Buffer.from('[0.5,"ws","id"]').toString('base64url') }, 'cursor is not one this API returned'],
    [{ cursor: 'A'.repeat(5000) }, 'cursor is not one this API returned'],
    [{ cursor: 'WzAsIndzIiwiaWQiXQ==' }, 'cursor is not one this API returned'],
  ])('refuses %j: %s', (parameters, message) => {
    expect(() => parseFindingsQuery(parameters, NOW)).toThrow(InvalidQueryError);
    expect(() => parseFindingsQuery(parameters, NOW)).toThrow(message);
  });

  it('refuses status=resolved, which open findings never have, naming where resolved ones are', () => {
    // The API reads current/ (open findings); an empty 200 would tell the caller nothing was resolved.
    expect(() => parseFindingsQuery({ status: 'resolved' }, NOW)).toThrow(InvalidQueryError);
    expect(() => parseFindingsQuery({ status: 'resolved' }, NOW)).toThrow(
      /^status=resolved: this API lists open findings; resolved ones are in the scan history: driftwatch findings --status resolved --since 7d --store s3:\/\/<findings bucket>, or Athena$/,
    );
    expect(() => parseFindingsQuery({ status: 'done' }, NOW)).toThrow(
      'status must be one of new, ongoing, changed, regressed, suppressed',
    );
  });

  it('quotes unknown parameter names cut and escaped, at most five', () => {
    const names = Object.fromEntries(
      ['a\u0000\r\nb', 'x'.repeat(5000), 'c', 'd', 'e', 'f'].map((name) => [name, '1']),
    );
    const message = (() => {
      try {
        parseFindingsQuery(names, NOW);
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/^unknown parameter\(s\): a\\u0000\\r\\nb, x{39}…, c, d, e, …; use owner, /);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the message must hold none
    expect(message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('takes a since as a duration before now, as the CLI does', () => {
    expect(parseFindingsQuery({ since: '7d' }, NOW).since?.toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it.each([
    [
      'an HTTP API (raw query string)',
      {
        rawQueryString: 'owner=a&severity=high&owner=b',
        queryStringParameters: { owner: 'a,b', severity: 'high' },
      },
      'owner',
    ],
    [
      'an HTTP API, the name percent-encoded',
      { rawQueryString: 'owner=a&%6Fwner=b', queryStringParameters: { owner: 'a,b' } },
      'owner',
    ],
    [
      'a REST API (multi-value parameters)',
      { queryStringParameters: { owner: 'b' }, multiValueQueryStringParameters: { owner: ['a', 'b'] } },
      'owner',
    ],
  ])('refuses a parameter given twice through %s', (_, request, name) => {
    expect(() => singleValuedParameters(request)).toThrow(
      `${name} is given more than once: give each parameter once`,
    );
  });

  it('refuses __proto__ as the unknown parameter it is', () => {
    // As the Lambda runtime parses the event: JSON.parse makes `__proto__` an own property.
    const event = JSON.parse('{"rawQueryString":"__proto__=x","queryStringParameters":{"__proto__":"x"}}');
    expect(() => parseFindingsQuery(singleValuedParameters(event), NOW)).toThrow(
      /^unknown parameter\(s\): __proto__; use owner/,
    );
  });

  it('reads each parameter once from either event shape', () => {
    expect(
      singleValuedParameters({
        rawQueryString: 'owner=a&limit=5',
        queryStringParameters: { owner: 'a', limit: '5' },
      }),
    ).toEqual({ owner: 'a', limit: '5' });
    expect(
      singleValuedParameters({
        queryStringParameters: { owner: 'a' },
        multiValueQueryStringParameters: { owner: ['a'] },
      }),
    ).toEqual({ owner: 'a' });
    expect(singleValuedParameters({})).toEqual({});
  });
});

describe('findings pages hold every finding exactly once', () => {
  it('orders by code units: workspaces a collation holds equal are both listed', () => {
    // Ignorable to localeCompare: 'ws\u00ad1' and 'ws1' compare equal there. A hand-written store
    // can hold the same finding id in such scopes; each is still a finding of its own.
    const twins = ['ws1', 'ws\u00ad1', 'ws\u200b1', 'ws1\u0000'].map((workspace) => ({
      ...findings[0]!,
      workspace,
    }));
    const returned: string[] = [];
    let cursor: string | undefined;
    do {
      const page = queryFindings(
        twins,
        parseFindingsQuery({ limit: '1', ...(cursor ? { cursor } : {}) }, NOW),
      );
      returned.push(...page.findings.map((finding) => finding.workspace));
      cursor = page.nextCursor;
    } while (cursor && returned.length < 10);
    expect(returned.sort()).toEqual(twins.map((finding) => finding.workspace).sort());
  });

  it('ends a page before its byte budget; a finding larger than the budget on its own is named in omitted', () => {
    const sized = findings.map((finding, index) => ({
      ...finding,
      detail: 'x'.repeat(index === 3 ? 5000 : 300),
    }));
    const sizeOf = (finding: Finding) => JSON.stringify(finding).length;
    const maxBytes = 2000;
    const pages: Finding[][] = [];
    let cursor: string | undefined;
    do {
      const page = queryFindings(
        sized,
        parseFindingsQuery({ limit: '500', ...(cursor ? { cursor } : {}) }, NOW),
        { sizeOf, maxBytes },
      );
      pages.push(page.findings);
      expect(page.findings.reduce((sum, finding) => sum + sizeOf(finding), 0)).toBeLessThanOrEqual(maxBytes);
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.length).toBeGreaterThan(5);
    const { returned, omitted } = everyPage(sized, { limit: '500' }, { sizeOf, maxBytes });
    expect(omitted).toEqual([sized[3]!.id]);
    expect([...returned, ...omitted].sort()).toEqual(sized.map((finding) => finding.id).sort());
  });

  it('shows each finding as present() makes it, on the page only', () => {
    const page = queryFindings(findings, parseFindingsQuery({ limit: '2' }, NOW), {
      present: (finding) => ({ ...finding, title: 'shown' }),
    });
    expect(page.findings.map((finding) => finding.title)).toEqual(['shown', 'shown']);
  });
});
