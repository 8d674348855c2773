import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createFindingsStore } from '../core/findings/findings-store.js';
import type { Finding } from '../core/findings/model.js';
import { InvalidQueryError, parseFindingsQuery, queryFindings } from '../core/query/query-findings.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { logErrors } from './middleware.js';

// Read-only: a corrupt object is reported and left for the next scan to quarantine (with its finding).
const store = createFindingsStore(findingsObjectStore(new S3Client({})), { readOnly: true });
const logger = handlerLogger('query-findings');
/** Open findings change once a night (and on a suppression): a minute of staleness is fine. */
const CACHE_MS = 60_000;
let cache: { at: number; findings: Finding[] } | undefined;

async function openFindings(): Promise<Finding[]> {
  if (!cache || Date.now() - cache.at > CACHE_MS)
    cache = { at: Date.now(), findings: await store.openFindings() };
  return cache.findings;
}

function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** The findings API (HTTP API, IAM auth): `GET /findings?owner=&workspace=&kind=&status=&severity=&since=&limit=&cursor=`, `GET /findings/{id}`. */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(logErrors(logger))
  .use({
    onError: async (request) => {
      if (request.error instanceof InvalidQueryError)
        request.response = json(400, { message: request.error.message });
    },
  })
  .handler(async (event) => {
    const id = event.pathParameters?.id;
    if (id !== undefined) {
      if (!/^[0-9a-f]{64}$/.test(id)) return json(400, { message: 'a finding id is 64 hex characters' });
      const finding = (await openFindings()).find((candidate) => candidate.id === id);
      return finding ? json(200, finding) : json(404, { message: `no open finding ${id}` });
    }
    const page = queryFindings(await openFindings(), parseFindingsQuery(event.queryStringParameters ?? {}));
    return json(200, page);
  });
