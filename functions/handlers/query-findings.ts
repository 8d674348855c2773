import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithIAMAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import type { Finding } from '../core/findings/model.js';
import {
  callerScope,
  isVisible,
  noAccessMessage,
  parseQueryAccess,
  type QueryAccess,
} from '../core/query/query-access.js';
import { InvalidQueryError, parseFindingsQuery, queryFindings } from '../core/query/query-findings.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { ConfigurationError, requireEnv } from './env.js';
import { logErrors } from './middleware.js';

// Read-only: a corrupt object is reported and left for the next scan to quarantine (with its finding).
const store = createFindingsStore(findingsObjectStore(new S3Client(withHttpTimeouts())), { readOnly: true });
const logger = handlerLogger('query-findings');
/** Who sees whose findings (queryAccess, set by the stack): read once, a bad value fails the cold start. */
const access: QueryAccess = (() => {
  try {
    return parseQueryAccess(requireEnv('DRIFTWATCH_QUERY_ACCESS'));
  } catch (error) {
    throw new ConfigurationError(
      `DRIFTWATCH_QUERY_ACCESS: ${(error as Error).message} (the stack sets it from -c queryAccess; locally e.g. '{"admins":["*"],"owners":{},"fallbackOwner":"platform"}')`,
    );
  }
})();
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

/**
 * The findings API (HTTP API, IAM auth): `GET /findings?owner=&workspace=&kind=&status=&severity=&since=&limit=&cursor=`,
 * `GET /findings/{id}`. Each caller sees only the owners queryAccess gives it (admins: all); a finding
 * of another owner is answered exactly as one that does not exist.
 */
export const handler = middy<APIGatewayProxyEventV2WithIAMAuthorizer, APIGatewayProxyStructuredResultV2>()
  .use(logErrors(logger))
  .use({
    onError: async (request) => {
      if (request.error instanceof InvalidQueryError)
        request.response = json(400, { message: request.error.message });
    },
  })
  .handler(async (event) => {
    const caller = event.requestContext?.authorizer?.iam?.userArn;
    const scope = callerScope(caller, access);
    if (!scope) {
      logger.warn('caller without query access', { caller });
      return json(403, { message: noAccessMessage(caller) });
    }
    const visible = (await openFindings()).filter((finding) => isVisible(finding, scope, access));
    const id = event.pathParameters?.id;
    if (id !== undefined) {
      if (!/^[0-9a-f]{64}$/.test(id)) return json(400, { message: 'a finding id is 64 hex characters' });
      const finding = visible.find((candidate) => candidate.id === id);
      return finding ? json(200, finding) : json(404, { message: `no open finding ${id}` });
    }
    return json(200, queryFindings(visible, parseFindingsQuery(event.queryStringParameters ?? {})));
  });
