import * as z from 'zod/mini';
import type { ScanRef } from '../findings/findings-store.js';
import type { ScopeCheckOutcome } from '../scan/summary.js';

/**
 * The event of the CheckBackend, ObserveLocks and ConfirmLocks handlers: one state bucket of the
 * registry per invocation (a Map item per bucket, so a bucket shared by fifty workspaces is listed
 * once, not fifty times).
 */
export const bucketEvent = z.object({
  scanId: z
    .string()
    .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9\-_.]{0,79}$/, 'letters, digits, - _ . (at most 80)')),
  startedAt: z.iso.datetime('an ISO 8601 timestamp, e.g. 2026-11-29T02:00:00Z'),
  /** s3://bucket/driftwatch.yaml (deployed) or a path (local invoke). */
  registry: z.string().check(z.minLength(1, 's3://bucket/driftwatch.yaml or a file path')),
  bucket: z
    .string()
    .check(z.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name of the registry')),
});
export type BucketEvent = z.infer<typeof bucketEvent>;

export function scanRefOf(event: BucketEvent): ScanRef {
  return { scanId: event.scanId, startedAt: new Date(event.startedAt) };
}

/** What a bucket handler returns to the state machine: per scope, the open findings it recorded. */
export function bucketResult(event: BucketEvent, outcomes: readonly ScopeCheckOutcome[]) {
  const open = (outcome: ScopeCheckOutcome) =>
    outcome.findings.filter((finding) => finding.status !== 'resolved').length;
  return {
    scanId: event.scanId,
    bucket: event.bucket,
    scopes: outcomes.map((outcome) => ({
      scope: outcome.scope,
      check: outcome.check,
      findings: open(outcome),
      ...(outcome.error ? { error: outcome.error } : {}),
    })),
    findings: outcomes.reduce((total, outcome) => total + open(outcome), 0),
  };
}
