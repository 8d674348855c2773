import * as z from 'zod/mini';
import { BUCKET_SHAPE } from '../registry/formats.js';
import { scanEventShape } from '../scan/scan-event.js';
import { listAtMost, MAX_REASON_CHARS } from '../scan/stage-result.js';
import type { ScopeCheckOutcome } from '../scan/summary.js';
import { limitText } from '../text/sanitize.js';

/**
 * The event of the CheckBackend, ObserveLocks and ConfirmLocks handlers: one state bucket of the
 * registry per invocation (a Map item per bucket, so a bucket shared by fifty workspaces is listed
 * once, not fifty times).
 */
export const bucketEvent = z.object({
  ...scanEventShape,
  bucket: z.string().check(z.regex(BUCKET_SHAPE, 'an S3 bucket name of the registry')),
});
export type BucketEvent = z.infer<typeof bucketEvent>;

/**
 * What a bucket handler returns to the state machine: per scope, the open findings it recorded. A
 * bucket shared by thousands of workspaces has a scope each: the first MAX_LISTED are listed, the rest
 * counted in `scopesNotListed` (stage-result.ts: Step Functions refuses results over 256 KiB).
 */
export function bucketResult(event: BucketEvent, outcomes: readonly ScopeCheckOutcome[]) {
  const open = (outcome: ScopeCheckOutcome) =>
    outcome.findings.filter((finding) => finding.status !== 'resolved').length;
  const { listed, notListed } = listAtMost(outcomes);
  return {
    scanId: event.scanId,
    bucket: event.bucket,
    scopes: listed.map((outcome) => ({
      scope: outcome.scope,
      check: outcome.check,
      findings: open(outcome),
      ...(outcome.error ? { error: limitText(outcome.error, MAX_REASON_CHARS) } : {}),
    })),
    ...(notListed > 0 ? { scopesNotListed: notListed } : {}),
    findings: outcomes.reduce((total, outcome) => total + open(outcome), 0),
  };
}
