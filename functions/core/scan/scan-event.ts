import * as z from 'zod/mini';
import type { ScanRef } from '../findings/findings-store.js';
import { SCAN_ID } from '../findings/layout.js';

/** Event fields every pipeline stage shares: the scan it belongs to, and the registry. */
export const scanEventShape = {
  scanId: z.string().check(z.regex(SCAN_ID, 'letters, digits, - _ . (at most 80)')),
  startedAt: z.iso.datetime('an ISO 8601 timestamp, e.g. 2026-11-29T02:00:00Z'),
  /** s3://bucket/driftwatch.yaml (deployed) or a path (local invoke). */
  registry: z.string().check(z.minLength(1, 's3://bucket/driftwatch.yaml or a file path')),
};

export function scanRefOf(event: { scanId: string; startedAt: string }): ScanRef {
  return { scanId: event.scanId, startedAt: new Date(event.startedAt) };
}
