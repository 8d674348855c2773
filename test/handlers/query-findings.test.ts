import { readFileSync } from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CurrentDocument } from '../../functions/core/findings/lifecycle.js';
import { recordWorkspaceScan } from '../../functions/core/findings/lifecycle.js';
import { s3ServiceError } from '../helpers/backend.js';
import { driftDraft } from '../helpers/findings.js';
import { REPO_ROOT } from '../helpers/integration.js';

const s3 = mockClient(S3Client);
const sample = JSON.parse(readFileSync(`${REPO_ROOT}/events/query-findings.json`, 'utf8'));
const context = { awsRequestId: 'test' } as never;
let handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;

const PAYMENTS_READER = 'arn:aws:sts::111111111111:assumed-role/payments-readers/alice';
const ADMIN = 'arn:aws:sts::111111111111:assumed-role/platform-admin/bob';
/** What the stack passes from -c queryAccess (plus the registry's fallback owner). */
const ACCESS = {
  admins: ['arn:aws:iam::111111111111:role/platform-admin'],
  owners: { payments: ['arn:aws:iam::111111111111:role/payments-*'] },
  fallbackOwner: 'platform',
};

const current: CurrentDocument = recordWorkspaceScan(
  undefined,
  [
    driftDraft({ severity: 'critical', owner: 'payments' }),
    driftDraft({ owner: 'platform', resource: { address: 'aws_sqs_queue.q', type: 'aws_sqs_queue' } }),
  ],
  {
    workspace: 'payments-prod',
    scanId: 's1',
    now: new Date('2026-11-29T02:00:00Z'),
    outcome: 'ok',
    check: 'terraform',
  },
).current;

beforeAll(async () => {
  vi.stubEnv('FINDINGS_BUCKET', 'findings');
  vi.stubEnv('LOG_LEVEL', 'error');
  vi.stubEnv('DRIFTWATCH_QUERY_ACCESS', JSON.stringify(ACCESS));
  handler = (await import('../../functions/handlers/query-findings.js')).handler as never;
});
beforeEach(() => {
  s3.reset();
  s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'current/payments-prod.json', Size: 1 }] });
  s3.on(GetObjectCommand).resolves({
    Body: { transformToString: async () => JSON.stringify(current) } as never,
    ETag: '"e"',
  });
});

describe('query-findings handler', () => {
  it('answers the sample event with the matching page', async () => {
    const response = await handler(sample, context);
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body);
    expect(body.findings).toHaveLength(1);
    expect(body.findings[0]).toMatchObject({ owner: 'payments', severity: 'critical' });
    expect(body.nextCursor).toBeUndefined();
  });

  it('returns one finding by id, 404 for an unknown id, 400 for a malformed one', async () => {
    const id = current.findings[0]!.id;
    const byId = (value: string) =>
      handler({ ...sample, queryStringParameters: undefined, pathParameters: { id: value } }, context);
    const found = await byId(id);
    expect(found.statusCode).toBe(200);
    expect(JSON.parse(found.body).id).toBe(id);
    expect((await byId('f'.repeat(64))).statusCode).toBe(404);
    expect((await byId('nope')).statusCode).toBe(400);
  });

  it('answers bad input with 400 and a message', async () => {
    const response = await handler({ ...sample, queryStringParameters: { severity: 'urgent' } }, context);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).message).toMatch(/severity must be one of/);
  });
});

describe('query-findings scopes each caller to its owners', () => {
  const as = (caller: string | undefined, request: { query?: Record<string, string>; id?: string } = {}) =>
    handler(
      {
        ...sample,
        requestContext: {
          ...sample.requestContext,
          authorizer:
            caller === undefined
              ? undefined
              : { iam: { ...sample.requestContext.authorizer.iam, userArn: caller } },
        },
        queryStringParameters: request.query,
        pathParameters: request.id === undefined ? undefined : { id: request.id },
      },
      context,
    );
  const owners = async (response: Promise<{ statusCode: number; body: string }>) => {
    const answered = await response;
    expect(answered.statusCode).toBe(200);
    return (JSON.parse(answered.body).findings as Array<{ owner: string }>)
      .map((finding) => finding.owner)
      .sort();
  };
  const platformFinding = () => current.findings.find((finding) => finding.owner === 'platform')!;

  it('lists only the caller’s owners; an admin sees every owner', async () => {
    expect(await owners(as(PAYMENTS_READER))).toEqual(['payments']);
    expect(await owners(as(PAYMENTS_READER, { query: { owner: 'platform' } }))).toEqual([]);
    expect(await owners(as(ADMIN))).toEqual(['payments', 'platform']);
  });

  it("finds a finding by a unique prefix of its id (the short id digests show), among the caller's only", async () => {
    const [first, second] = current.findings.map((finding) => finding.id) as [string, string];
    const byPrefix = async (caller: string, prefix: string) => {
      const response = await as(caller, { id: prefix });
      return { status: response.statusCode, body: JSON.parse(response.body) };
    };
    expect(await byPrefix(ADMIN, first.slice(0, 12))).toMatchObject({ status: 200, body: { id: first } });
    expect(await byPrefix(ADMIN, first.slice(0, 4).toUpperCase())).toMatchObject({
      status: 200,
      body: { id: first },
    });
    // Another owner's finding is unknown by prefix too: 404, as by its whole id.
    const hidden = platformFinding().id;
    expect(await byPrefix(PAYMENTS_READER, hidden.slice(0, 12))).toMatchObject({
      status: 404,
      body: { message: `no open finding ${hidden.slice(0, 12)}` },
    });
    expect(await byPrefix(ADMIN, 'abc')).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^give at least 4 characters of the id/) },
    });
    expect(await byPrefix(ADMIN, 'f'.repeat(65))).toMatchObject({ status: 400 });
    expect(second).not.toBe(first);
  });

  it('answers another owner’s finding by id exactly as an unknown one (404), not 403', async () => {
    const hidden = platformFinding().id;
    const other = await as(PAYMENTS_READER, { id: hidden });
    const unknown = await as(PAYMENTS_READER, { id: 'f'.repeat(64) });
    expect(other.statusCode).toBe(404);
    expect(JSON.parse(other.body).message).toBe(`no open finding ${hidden}`);
    expect(JSON.parse(unknown.body).message).toBe(`no open finding ${'f'.repeat(64)}`);
    expect((await as(ADMIN, { id: hidden })).statusCode).toBe(200);
  });

  it('refuses a caller who matches nothing with 403 naming the caller and the setting', async () => {
    const stranger = 'arn:aws:sts::111111111111:assumed-role/someone-else/eve';
    const response = await as(stranger);
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body).message).toBe(
      `${stranger} may read no owner's findings: add it (or a pattern) to queryAccess.admins or queryAccess.owners.<team> and deploy`,
    );
    const unsigned = await as(undefined);
    expect(unsigned.statusCode).toBe(403);
    expect(JSON.parse(unsigned.body).message).toMatch(/no IAM caller/);
  });
});

describe('query-findings configuration', () => {
  it('fails its cold start naming DRIFTWATCH_QUERY_ACCESS when the access mapping is missing or bad', async () => {
    vi.resetModules();
    vi.stubEnv('DRIFTWATCH_QUERY_ACCESS', '');
    await expect(import('../../functions/handlers/query-findings.js')).rejects.toThrow(
      'DRIFTWATCH_QUERY_ACCESS: environment variable DRIFTWATCH_QUERY_ACCESS is required',
    );
    vi.resetModules();
    vi.stubEnv('DRIFTWATCH_QUERY_ACCESS', '{"admins":["root"],"owners":{},"fallbackOwner":"platform"}');
    await expect(import('../../functions/handlers/query-findings.js')).rejects.toThrow(
      "DRIFTWATCH_QUERY_ACCESS: query access admins.0: an ARN pattern starts with 'arn:'",
    );
    vi.stubEnv('DRIFTWATCH_QUERY_ACCESS', JSON.stringify(ACCESS));
  });
});

/** The handler loaded afresh (its minute-long cache empty), over these current documents. */
async function handlerOver(documents: Record<string, string>) {
  s3.reset();
  s3.on(ListObjectsV2Command).resolves({
    Contents: Object.keys(documents).map((key) => ({ Key: key, Size: 1 })),
  });
  for (const [key, body] of Object.entries(documents))
    s3.on(GetObjectCommand, { Key: key }).resolves({
      Body: { transformToString: async () => body } as never,
      ETag: '"e"',
    });
  vi.resetModules();
  return (await import('../../functions/handlers/query-findings.js')).handler as unknown as typeof handler;
}
const asAdmin = (request: Record<string, unknown> = {}) => ({
  ...sample,
  requestContext: {
    ...sample.requestContext,
    authorizer: { iam: { ...sample.requestContext.authorizer.iam, userArn: ADMIN } },
  },
  rawQueryString: undefined,
  queryStringParameters: undefined,
  ...request,
});
const documentOf = (workspace: string, drafts: Parameters<typeof driftDraft>[0][]) =>
  recordWorkspaceScan(
    undefined,
    drafts.map((draft) => driftDraft({ workspace, ...draft })),
    { workspace, scanId: 's1', now: new Date('2026-11-29T02:00:00Z'), outcome: 'ok', check: 'terraform' },
  ).current;

describe('query-findings against hostile requests', () => {
  it.each([
    [
      'a parameter twice (HTTP API)',
      {
        rawQueryString: 'owner=payments&owner=platform',
        queryStringParameters: { owner: 'payments,platform' },
      },
      'owner is given more than once',
    ],
    ['an empty owner', { rawQueryString: 'owner=', queryStringParameters: { owner: '' } }, 'owner is empty'],
    [
      'query parameters on GET /findings/{id}',
      { queryStringParameters: { owner: 'x' }, pathParameters: { id: 'f'.repeat(64) } },
      'GET /findings/{id} takes no query parameters',
    ],
    [
      'an id with a path in it',
      { pathParameters: { id: '../current/payments-prod.json' } },
      'a finding id is hexadecimal',
    ],
  ])('answers %s with a one-line 400', async (_, request, message) => {
    const response = await handler(asAdmin(request), context);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ message: expect.stringContaining(message) });
    expect(response.body).not.toMatch(/\n|at .*\.ts/);
  });

  it("answers a prefix several of the caller's ids start with by naming them (400)", async () => {
    // Two stored findings whose ids share their first 12 characters, as two of 100,000 may.
    const twins = ['a', 'b'].map((last) => `0123456789ab${last.repeat(52)}`);
    const document = {
      ...current,
      findings: current.findings.map((finding, index) => ({ ...finding, id: twins[index]! })),
    };
    const fresh = await handlerOver({ 'current/payments-prod.json': JSON.stringify(document) });
    const ambiguous = await fresh(asAdmin({ pathParameters: { id: '0123456789AB' } }), context);
    expect(ambiguous.statusCode).toBe(400);
    expect(JSON.parse(ambiguous.body)).toEqual({
      message: "0123456789ab is the start of 2 findings' ids: give more characters",
      candidates: twins,
    });
    const one = await fresh(asAdmin({ pathParameters: { id: '0123456789abb' } }), context);
    expect(one.statusCode).toBe(200);
    expect(JSON.parse(one.body).id).toBe(twins[1]);
    // The payments reader sees one of the two: the prefix names it alone, and never the other.
    const asPayments = asAdmin({ pathParameters: { id: '0123456789ab' } });
    asPayments.requestContext = {
      ...asPayments.requestContext,
      authorizer: { iam: { ...sample.requestContext.authorizer.iam, userArn: PAYMENTS_READER } },
    };
    const scoped = await fresh(asPayments, context);
    expect(scoped.statusCode).toBe(200);
    expect(JSON.parse(scoped.body)).toMatchObject({ id: twins[0], owner: 'payments' });
  });

  it('finds an id given in upper case', async () => {
    const id = current.findings[0]!.id;
    const response = await handler(asAdmin({ pathParameters: { id: id.toUpperCase() } }), context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).id).toBe(id);
  });
});

describe('query-findings when the store fails', () => {
  afterEach(() => vi.useRealTimers());
  it.each([
    [
      'AccessDenied',
      403,
      500,
      /^the findings store could not be read \(AccessDenied\): the function's log has the cause under request id test$/,
    ],
    ['NoSuchBucket', 404, 500, /^the findings store could not be read \(NoSuchBucket\)/],
    [
      'SlowDown',
      503,
      503,
      /^the findings store is busy or unreachable \(SlowDown\): retry in a few seconds$/,
    ],
    ['InternalError', 500, 503, /^the findings store is busy or unreachable \(InternalError\)/],
  ])(
    'answers S3 %s (%i) with %i and one line naming neither bucket nor key',
    async (name, status, answered, message) => {
      const fresh = await handlerOver({});
      s3.on(ListObjectsV2Command).rejects(s3ServiceError(name, status));
      const response = await fresh(asAdmin(), context);
      expect(response.statusCode).toBe(answered);
      expect(JSON.parse(response.body).message).toMatch(message);
      expect(response.body).not.toMatch(/findings\/|current\/|s3:\/\/|!/);
    },
  );

  it('answers a corrupt current document by leaving its findings out and saying how many scopes could not be read, once per read', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const fresh = await handlerOver({
      'current/payments-prod.json': JSON.stringify(current),
      'current/broken.json': '{"workspace":',
      // A copy under another scope's name, and keys the writer never writes: not read at all.
      'current/copy.json': JSON.stringify(current),
      'current/old/payments-prod.json': JSON.stringify(current),
      'current/payments-prod.json.bak': JSON.stringify(current),
    });
    for (const minute of [0, 2]) {
      vi.setSystemTime(new Date(Date.UTC(2026, 10, 30, 8, minute)));
      const response = await fresh(asAdmin(), context);
      expect(response.statusCode).toBe(200);
      const body = JSON.parse(response.body);
      expect(body.findings).toHaveLength(current.findings.length);
      expect(body.unreadableScopes).toBe(2);
    }
    const byId = await fresh(asAdmin({ pathParameters: { id: 'f'.repeat(64) } }), context);
    expect(JSON.parse(byId.body).message).toBe(
      `no open finding ${'f'.repeat(64)} (2 scope(s) could not be read)`,
    );
  });
});

describe('query-findings: a finding without an owner is the fallback owner’s', () => {
  it('owner=<fallback> lists it, as the unfiltered list shows it to that owner: every finding is on exactly one owner’s page', async () => {
    // A store.corrupt-object finding has no owner: digests send it to the fallback owner (platform).
    const fresh = await handlerOver({
      'current/payments-prod.json': JSON.stringify(
        documentOf('payments-prod', [
          { owner: 'payments' },
          { owner: 'platform', resource: { address: 'aws_sqs_queue.q', type: 'aws_sqs_queue' } },
          { owner: undefined, resource: { address: 'aws_sns_topic.t', type: 'aws_sns_topic' } },
        ]),
      ),
    });
    const ids = async (query?: Record<string, string>) => {
      const response = await fresh(asAdmin({ queryStringParameters: query }), context);
      expect(response.statusCode).toBe(200);
      return (JSON.parse(response.body).findings as Array<{ id: string; owner?: string }>).map(
        (finding) => finding.owner ?? '(none)',
      );
    };
    expect((await ids()).sort()).toEqual(['(none)', 'payments', 'platform']);
    expect((await ids({ owner: 'platform' })).sort()).toEqual(['(none)', 'platform']);
    expect(await ids({ owner: 'payments' })).toEqual(['payments']);
  });
});

describe('query-findings shows findings as the CLI does', () => {
  const CANARY = 'ghp_CANARYcanaryCANARYcanary0123456789ab';
  it('redacts credentials a stored finding holds in any text, and lifts an expired suppression', async () => {
    const document = documentOf('payments-prod', [
      {
        title: `token ${CANARY}`,
        detail: `Authorization: Bearer ${CANARY}`,
        evidence: { nested: [{ url: `https://admin:${CANARY}@db.example.com` }] },
        drift: {
          action: 'update',
          changes: [{ path: 'tags.Key', before: `password=${CANARY}`, after: 'x', sensitive: false }],
        },
        remediation: { summary: `export GITHUB_TOKEN=${CANARY}`, steps: [`use ${CANARY}`] },
      },
    ]);
    document.findings[0] = {
      ...document.findings[0]!,
      status: 'suppressed',
      suppression: {
        reason: `until ${CANARY} rotates`,
        by: 'alice',
        until: '2026-01-01T00:00:00Z',
        at: '2025-12-01T00:00:00Z',
      },
    };
    const fresh = await handlerOver({ 'current/payments-prod.json': JSON.stringify(document) });
    const id = document.findings[0]!.id;
    const list = await fresh(asAdmin(), context);
    const one = await fresh(asAdmin({ pathParameters: { id } }), context);
    const suppressed = await fresh(
      asAdmin({ queryStringParameters: { status: 'suppressed' }, rawQueryString: 'status=suppressed' }),
      context,
    );
    for (const response of [list, one]) {
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain(CANARY);
      expect(response.body).toContain('(redacted)');
    }
    expect(JSON.parse(one.body)).toMatchObject({
      status: 'new',
      evidence: { suppressionExpired: { by: 'alice' } },
    });
    expect(JSON.parse(suppressed.body).findings).toEqual([]);
  });

  it('answers data with terminal and bidi controls \\u-escaped: a body printed by awscurl is inert, and parses to the same text', async () => {
    // A tag value or address holds what its writer put there: an 8-bit CSI (U+009B, a screen clear on
    // terminals that honour C1 controls), a bidi override (Trojan Source), a line separator. The CLI's
    // JSON escapes them (jsonForTerminal); JSON.stringify alone leaves them raw.
    const hostile = 'x\u009b2J\u202eevil\u2066\u2028\u007fy';
    const document = documentOf('payments-prod', [
      { title: hostile, resource: { address: `aws_s3_bucket.b["${hostile}"]`, type: 'aws_s3_bucket' } },
    ]);
    const fresh = await handlerOver({ 'current/payments-prod.json': JSON.stringify(document) });
    const id = document.findings[0]!.id;
    const badSince = `2026-11-01${hostile}`;
    for (const response of [
      await fresh(asAdmin(), context),
      await fresh(asAdmin({ pathParameters: { id } }), context),
      await fresh(asAdmin({ queryStringParameters: { since: badSince } }), context),
    ]) {
      expect(response.body).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
      expect(response.body).toContain('\\u009b');
    }
    const list = await fresh(asAdmin(), context);
    expect(JSON.parse(list.body).findings[0].title).toBe(document.findings[0]!.title);
  });

  it("keeps every answer under Lambda's 6 MiB and pages through large findings exactly once", async () => {
    // 40 findings of ~400 KB, half of it quotes (escaped twice in Lambda's result): 500 would be 200 MB.
    const big = `"${'x'.repeat(100_000)}"`.repeat(2);
    const document = documentOf(
      'payments-prod',
      Array.from({ length: 40 }, (_, index) => ({
        resource: { address: `aws_s3_object.o${index}`, type: 'aws_s3_object' },
        detail: big + '"'.repeat(200_000),
      })),
    );
    const fresh = await handlerOver({ 'current/payments-prod.json': JSON.stringify(document) });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const response = await fresh(
        asAdmin({ queryStringParameters: { limit: '500', ...(cursor ? { cursor } : {}) } }),
        context,
      );
      expect(response.statusCode).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThan(6 * 1024 * 1024);
      const body = JSON.parse(response.body);
      seen.push(...body.findings.map((finding: { id: string }) => finding.id));
      cursor = body.nextCursor;
    } while (cursor && seen.length <= 40);
    expect(seen.sort()).toEqual(document.findings.map((finding) => finding.id).sort());
  });
});
