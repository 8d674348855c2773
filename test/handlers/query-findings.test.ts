import { readFileSync } from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CurrentDocument } from '../../functions/core/findings/lifecycle.js';
import { recordWorkspaceScan } from '../../functions/core/findings/lifecycle.js';
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
