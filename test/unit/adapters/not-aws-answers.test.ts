import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeAwsError } from '../../../functions/adapters/aws-error.js';
import { createAwsBackendReader } from '../../../functions/adapters/backend/aws-backend-reader.js';
import { classifyReadFailure } from '../../../functions/core/backend/failure-cause.js';
import { BackendReadError } from '../../../functions/core/backend/ports.js';

/**
 * AWS_ENDPOINT_URL pointing at something that is not S3 (a web server, a proxy that answers for
 * every address, another service on that port), through the real SDK over real HTTP: its bare 404
 * was read as "the bucket does not exist: fix the registry", its 403 as a permission to grant.
 * Every AWS answer (and moto's, MinIO's, LocalStack's) carries a request id; these answers do not.
 */

type Answer = { status: number; headers?: Record<string, string>; body?: string };
let answer: Answer = { status: 404 };
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(answer.status, answer.headers ?? {});
    response.end(answer.body ?? '');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
afterEach(() => vi.unstubAllEnvs());

const credentials = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' };
const s3 = () => new S3Client({ endpoint, region: 'eu-west-1', forcePathStyle: true, credentials });

async function preflightCause() {
  vi.stubEnv('AWS_ENDPOINT_URL', endpoint);
  const dynamodb = new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials });
  const reader = createAwsBackendReader({ s3: s3(), dynamodb });
  const caught = await reader.preflight('tfstate', '').catch((error: unknown) => error);
  expect(caught).toBeInstanceOf(BackendReadError);
  return classifyReadFailure((caught as BackendReadError).failure);
}

describe('answers that do not come from AWS', () => {
  it.each([404, 403])(
    'a bare %i (no body, no request id) is named as not S3, not as a missing bucket or a permission',
    async (status) => {
      answer = { status, headers: { server: 'some-proxy' } };
      const cause = await preflightCause();
      expect(cause).toMatchObject({
        kind: 'not-aws',
        summary: `HTTP ${status} from ${endpoint} on s3:ListBucket, not an answer S3 gives`,
      });
      expect(cause.advice).toContain(`Check what answers at ${endpoint}`);
      expect(cause.advice).toContain('AWS_ENDPOINT_URL');
      expect(`${cause.summary} ${cause.advice}`).not.toMatch(/does not exist|fix the registry|Allow s3:/);
    },
  );

  it("S3's own answers keep their meaning: NoSuchBucket, and a bare 404 or 403 with S3's request id", async () => {
    answer = {
      status: 404,
      headers: { 'content-type': 'application/xml', 'x-amz-request-id': 'TX1' },
      body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>tfstate</BucketName><RequestId>TX1</RequestId></Error>',
    };
    expect(await preflightCause()).toMatchObject({ kind: 'no-such-bucket' });
    // moto answers with x-amzn-RequestId.
    answer = { status: 404, headers: { 'x-amzn-requestid': 'TX2' } };
    expect(await preflightCause()).toMatchObject({ kind: 'not-found' });
    answer = { status: 403, headers: { 'x-amz-request-id': 'TX3', 'x-amz-id-2': 'id2' } };
    expect(await preflightCause()).toMatchObject({ kind: 'access-denied' });
  });

  it("the CLI's line for a store read names the endpoint as what to check, and no missing bucket", async () => {
    answer = { status: 404 };
    const error = await s3()
      .send(new ListObjectsV2Command({ Bucket: 'findings' }))
      .catch((thrown: unknown) => thrown);
    const line = describeAwsError(error, { env: { AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'eu-west-1' } });
    expect(line).toMatch(
      new RegExp(`^HTTP 404 from ${endpoint.replace(/\./g, '\\.')} on this request, not an answer AWS gives`),
    );
    expect(line).toContain('no AWS request id');
    expect(line).not.toMatch(/does not exist/);
  });
});
