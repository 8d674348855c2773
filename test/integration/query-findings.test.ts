import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '../../functions/adapters/object-store/s3-object-store.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { driftDraft } from '../helpers/findings.js';
import { REGION, REPO_ROOT, useMoto } from '../helpers/integration.js';

/**
 * The deployed findings API's handler against a real S3 (moto): findings recorded by the findings
 * store the scanners use, read back through `GET /findings` and `GET /findings/{id}` events shaped
 * like API Gateway's (the sample event of events/query-findings.json).
 */
const aws = useMoto();
const BUCKET = 'findings-api';
const sample = JSON.parse(readFileSync(join(REPO_ROOT, 'events/query-findings.json'), 'utf8'));
const context = { awsRequestId: 'integration' } as never;
type Response = { statusCode: number; body: string };
let handler: (event: unknown, context: unknown) => Promise<Response>;
let recorded: Finding[];

beforeAll(async () => {
  await aws.s3.send(
    new CreateBucketCommand({ Bucket: BUCKET, CreateBucketConfiguration: { LocationConstraint: REGION } }),
  );
  const store = createFindingsStore(createS3ObjectStore(aws.s3, BUCKET));
  const scan = {
    scanId: '20261129T020000Z-api',
    startedAt: new Date('2026-11-29T02:00:00Z'),
    now: new Date('2026-11-29T02:05:00Z'),
  };
  const payments = await store.recordWorkspace(
    scan,
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [
      driftDraft({ severity: 'critical', title: 'security group opened' }),
      driftDraft({ severity: 'medium', resource: { address: 'aws_sqs_queue.jobs', type: 'aws_sqs_queue' } }),
    ],
  );
  const platform = await store.recordWorkspace(
    scan,
    { workspace: 'platform-prod', check: 'terraform', outcome: 'ok' },
    [driftDraft({ workspace: 'platform-prod', owner: 'platform', severity: 'critical' })],
  );
  recorded = [...payments.history, ...platform.history];
  process.env.FINDINGS_BUCKET = BUCKET;
  process.env.LOG_LEVEL = 'error';
  // The sample event's caller (payments-readers) sees the payments owner only.
  process.env.DRIFTWATCH_QUERY_ACCESS = JSON.stringify({
    admins: [],
    owners: { payments: ['arn:aws:iam::111111111111:role/payments-readers'] },
    fallbackOwner: 'platform',
  });
  handler = (await import('../../functions/handlers/query-findings.js')).handler as never;
});

const get = async (query: Record<string, string> | undefined, id?: string) => {
  const response = await handler(
    { ...sample, queryStringParameters: query, pathParameters: id === undefined ? undefined : { id } },
    context,
  );
  return { statusCode: response.statusCode, body: JSON.parse(response.body) };
};

describe('query-findings against S3', () => {
  it('answers the sample event (owner=payments, severity=critical) from the stored open findings', async () => {
    const response = await handler(sample, context);
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body) as { findings: Finding[] };
    expect(body.findings.map((finding) => [finding.workspace, finding.owner, finding.severity])).toEqual([
      ['payments-prod', 'payments', 'critical'],
    ]);
  });

  it('filters by workspace and pages with a cursor', async () => {
    const first = await get({ workspace: 'payments-prod', limit: '1' });
    expect(first.statusCode).toBe(200);
    expect(first.body.findings).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await get({ workspace: 'payments-prod', limit: '1', cursor: first.body.nextCursor });
    expect(second.body.findings).toHaveLength(1);
    expect(second.body.findings[0].id).not.toBe(first.body.findings[0].id);
    expect(second.body.nextCursor).toBeUndefined();
  });

  it('returns one finding by id, 404 for an unknown one, 400 for bad input', async () => {
    const [wanted] = recorded;
    const found = await get(undefined, wanted!.id);
    expect(found).toMatchObject({ statusCode: 200, body: { id: wanted!.id, workspace: wanted!.workspace } });
    expect((await get(undefined, 'a'.repeat(64))).statusCode).toBe(404);
    const bad = await get({ kind: 'gossip' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.message).toMatch(/kind/);
  });
});
