import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithIAMAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isAwsError } from '../adapters/aws-error.js';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { readFailure } from '../adapters/aws-read-failure.js';
import { classifyReadFailure } from '../core/backend/failure-cause.js';
import { MIN_PREFIX_LENGTH, matchFindingId } from '../core/findings/finding-ids.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import type { Finding } from '../core/findings/model.js';
import { liftExpiredSuppression, redactFindingText } from '../core/findings/present.js';
import {
  callerScope,
  findingOwner,
  isVisible,
  noAccessMessage,
  parseQueryAccess,
  type QueryAccess,
} from '../core/query/query-access.js';
import {
  InvalidQueryError,
  parseFindingsQuery,
  queryFindings,
  singleValuedParameters,
} from '../core/query/query-findings.js';
import { jsonForTerminal } from '../core/text/sanitize.js';
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
let cache: { at: number; findings: Finding[]; unreadableScopes: number } | undefined;

/**
 * Lambda answers at most 6 MiB, counted over its whole result, in which the body is a JSON string
 * (every quote and backslash of it escaped again). A page stops short of that, with room for the
 * envelope, the cursor and the names of omitted findings.
 */
const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;
const PAGE_BYTES = LAMBDA_RESPONSE_BYTES - 128 * 1024;
const answerBytes = (finding: Finding) => Buffer.byteLength(JSON.stringify(bodyText(finding)));

/**
 * A body as the CLI prints JSON (jsonForTerminal): JSON.stringify leaves DEL, C1 controls (U+009B is
 * a CSI), bidi controls and U+2028/U+2029 raw, and findings carry them from tags and addresses; an
 * answer printed by awscurl or curl must be as inert as `driftwatch findings --format json`.
 */
const bodyText = (body: unknown) => jsonForTerminal(body, 0);

async function openFindings(): Promise<NonNullable<typeof cache>> {
  if (cache && Date.now() - cache.at <= CACHE_MS) return cache;
  let findings: Finding[];
  let unreadableScopes = 0;
  try {
    findings = await store.openFindings();
  } finally {
    // Taken after every read: the store keeps them until taken, and a warm function lives for hours.
    const corrupt = store.takeCorruptions();
    for (const object of corrupt)
      logger.warn('current document unreadable: its findings are left out', {
        key: object.key,
        reason: object.reason,
      });
    unreadableScopes = corrupt.length;
  }
  cache = { at: Date.now(), findings, unreadableScopes };
  return cache;
}

function json(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    // Findings describe the estate's weak spots: no shared cache keeps them.
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: bodyText(body),
  };
}

/**
 * A failure to read the store, as the caller's one line: throttling and unavailability are a 503 to
 * retry, anything else a 500 naming the S3 error and the request id the log has it under. Neither
 * names the bucket, a key or the SDK's message (which can hold ARNs).
 */
function failureAnswer(error: unknown, requestId: string | undefined): APIGatewayProxyStructuredResultV2 {
  const logged = requestId ? ` under request id ${requestId}` : '';
  if (!isAwsError(error)) return json(500, { message: `internal error: the function's log has it${logged}` });
  const failure = readFailure('the findings bucket', 'reading findings', error);
  const code = /^[A-Za-z0-9_.-]{1,64}$/.test(failure.code) ? failure.code : 'an AWS error';
  const kind = classifyReadFailure(failure).kind;
  if (kind === 'throttled' || kind === 'unreachable' || (failure.httpStatus ?? 0) >= 500)
    return json(
      503,
      { message: `the findings store is busy or unreachable (${code}): retry in a few seconds` },
      { 'retry-after': '5' },
    );
  return json(500, {
    message: `the findings store could not be read (${code}): the function's log has the cause${logged}`,
  });
}

/** The ids an ambiguous prefix's answer lists (enough to pick from; the rest need more characters anyway). */
const MAX_CANDIDATES = 10;

/** A finding by id: the whole finding, or why it cannot be one answer. */
function findingAnswer(finding: Finding): APIGatewayProxyStructuredResultV2 {
  const bytes = answerBytes(finding);
  if (bytes <= PAGE_BYTES) return json(200, finding);
  return json(500, {
    message: `finding ${finding.id} is ${Math.ceil(bytes / 1024 ** 2)} MiB, more than one API answer carries (6 MiB): read it with driftwatch findings show ${finding.id} --store s3://<findings bucket>`,
  });
}

/**
 * The findings API (HTTP API, IAM auth): `GET /findings?owner=&workspace=&kind=&status=&severity=&since=&limit=&cursor=`,
 * `GET /findings/{id}` (the id, or a unique prefix of it such as the short id digests show). Each caller sees only the owners queryAccess gives it (admins: all); a finding
 * of another owner is answered exactly as one that does not exist. Findings are shown as the CLI
 * shows them: as of now (an expired suppression no longer hides one) and with their text redacted.
 */
export const handler = middy<APIGatewayProxyEventV2WithIAMAuthorizer, APIGatewayProxyStructuredResultV2>()
  .use(logErrors(logger))
  .use({
    onError: async (request) => {
      if (request.error instanceof InvalidQueryError) {
        request.response = json(400, { message: request.error.message });
        return;
      }
      const requestId = request.context?.awsRequestId;
      logger.error('handler failed', { error: request.error, awsRequestId: requestId });
      request.response = failureAnswer(request.error, requestId);
    },
  })
  .handler(async (event) => {
    const caller = event.requestContext?.authorizer?.iam?.userArn;
    const scope = callerScope(caller, access);
    if (!scope) {
      logger.warn('caller without query access', { caller });
      return json(403, { message: noAccessMessage(caller) });
    }
    const parameters = singleValuedParameters(event);
    const { findings, unreadableScopes } = await openFindings();
    const now = new Date();
    // As of now before any filter: a finding whose suppression expired is `new`, not `suppressed`.
    // Only the findings answered are redacted (presentFinding's other half), not every one filtered.
    const visible = findings
      .filter((finding) => isVisible(finding, scope, access))
      .map((finding) => liftExpiredSuppression(finding, now));
    const unreadable = unreadableScopes > 0 ? { unreadableScopes } : {};
    const id = event.pathParameters?.id?.toLowerCase();
    if (id !== undefined) {
      if (Object.keys(parameters).length > 0)
        throw new InvalidQueryError('GET /findings/{id} takes no query parameters: leave them out');
      // The short id digests and tables show (12 characters) is enough, as in the CLI; a prefix is
      // matched among the caller's findings only, so it says nothing of other owners' ids.
      const match = matchFindingId(
        id,
        visible.map((candidate) => candidate.id),
      );
      if (match.kind === 'invalid')
        return json(400, {
          message: `${match.reason}: give the finding's id or its first ${MIN_PREFIX_LENGTH} or more characters`,
        });
      if (match.kind === 'ambiguous')
        return json(400, {
          message: `${id} is the start of ${match.candidates.length} findings' ids: give more characters`,
          candidates: match.candidates.slice(0, MAX_CANDIDATES),
        });
      const finding =
        match.kind === 'match' ? visible.find((candidate) => candidate.id === match.id) : undefined;
      if (finding) return findingAnswer(redactFindingText(finding));
      const why = unreadableScopes > 0 ? ` (${unreadableScopes} scope(s) could not be read)` : '';
      return json(404, { message: `no open finding ${id}${why}`, ...unreadable });
    }
    const page = queryFindings(visible, parseFindingsQuery(parameters, now), {
      present: redactFindingText,
      sizeOf: (finding) => answerBytes(finding) + 1,
      maxBytes: PAGE_BYTES,
      // `owner=<fallback>` selects the findings without an owner too: the fallback owner's callers
      // see them unfiltered, and the fallback owner's digest lists them.
      ownerOf: (finding) => findingOwner(finding, access),
    });
    return json(200, { ...page, ...unreadable });
  });
