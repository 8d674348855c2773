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
