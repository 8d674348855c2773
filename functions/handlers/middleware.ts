import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '../adapters/logger.js';

/** The event did not match the handler's schema; the message names each offending field. */
export class InvalidEventError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid event: ${problems.join('; ')}`);
    this.name = 'InvalidEventError';
  }
}

interface SafeParser<T> {
  safeParse(
    input: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

/** Validates (and replaces) the event before the handler runs. */
export function validateEvent<T>(schema: SafeParser<T>): MiddlewareObj<T> {
  return {
    before: async (request) => {
      const parsed = schema.safeParse(request.event);
      if (!parsed.success) {
        throw new InvalidEventError(
          parsed.error.issues.map(
            (issue) => `${issue.path.map(String).join('.') || '(event)'}: ${issue.message}`,
          ),
        );
      }
      request.event = parsed.data;
    },
  };
}

/**
 * Logs the failure once, with its cause, and lets it fail the invocation (Step Functions retries or
 * catches). An error a later middleware already answered (a 400 for bad input) is not a failure.
 */
export function logErrors(logger: Logger): MiddlewareObj {
  return {
    onError: async (request) => {
      if (request.response !== undefined) return;
      logger.error('handler failed', { error: request.error, awsRequestId: request.context?.awsRequestId });
    },
  };
}
