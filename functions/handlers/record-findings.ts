import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import {
  emitMetric,
  emitMetrics,
  emitNightMetrics,
  METRICS_NAMESPACE,
  SCAN_COMPLETED_METRIC,
  WORKSPACE_METRICS,
} from '../adapters/metrics.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import { applyPendingRecords } from '../core/findings/pending-records.js';
import { SCAN_TIMEOUT_RULE_ID } from '../core/scan/runner-plan.js';
import { scanEventShape, scanRefOf } from '../core/scan/scan-event.js';
import { summarizeScan } from '../core/scan/summary.js';
import { recordUnfinishedScopes } from '../core/scan/unfinished.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

export const recordFindingsEvent = z.object({
  ...scanEventShape,
  /** Each Map stage that failed as a whole (its Catch's `{Error, Cause}`): its unrecorded scopes fail. */
  failures: z.optional(
    z.record(z.string(), z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
  ),
  /** A re-scan of one workspace or account: recorded, but not counted as a night in the metrics. */
  filter: z.optional(z.nullable(z.record(z.string(), z.string()))),
});
export type RecordFindingsEvent = z.infer<typeof recordFindingsEvent>;

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
const store = createFindingsStore(objects);
const logger = handlerLogger('record-findings');

/**
 * RecordFindings stage: applies the scanners' pending records (deployed, the only writer of
 * current/ and history; a local run's scopes recorded directly), then writes the scan's summary
 * from the history files and emits the heartbeat metric the scan-missing alarm watches.
 */
export const handler = middy<RecordFindingsEvent>()
  .use(validateEvent(recordFindingsEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry } = await loadRegistrySource(event.registry, s3);
    const scan = scanRefOf(event);
    // Deployed scanners leave pending records: this role alone writes current/ and history.
    const pending = await applyPendingRecords(store, objects, scan);
    for (const corrupt of pending.corrupt) logger.warn('corrupt pending record quarantined', { ...corrupt });
    // A Map that failed as a whole still leaves a scan-failed finding for every scope it did not record.
    const unfinished = await recordUnfinishedScopes(
      registry,
      event.failures,
      { store, objects },
      {
        ...scan,
        now: new Date(),
      },
    );
    if (unfinished.length > 0)
      logger.warn('scopes not recorded by a failed Map', {
        stages: Object.keys(event.failures ?? {}),
        scopes: unfinished.length,
      });
    const [files, runs] = await Promise.all([store.scanHistoryFiles(scan), store.scanRuns(scan)]);
    const workspaceIds = new Set(registry.workspaces.map((workspace) => workspace.id));
    const outcomes = files
      .filter((file) => file.check === 'terraform' && workspaceIds.has(file.scope))
      .map((file) => ({ workspace: file.scope, findings: file.findings, run: runs.get(file.scope) }));
    const checks = files
      .filter((file) => file.check !== 'terraform' || !workspaceIds.has(file.scope))
      .map((file) => ({ scope: file.scope, check: file.check, findings: file.findings, durationMs: 0 }));
    const summary = summarizeScan(
      { ...scan, finishedAt: new Date(), totalWorkspaces: registry.workspaces.length },
      outcomes,
      checks,
    );
    const summaryKey = await store.writeSummary(scan, summary);
    // Quarantined history files are already in the summary as store.corrupt-object findings.
    for (const corrupt of store.takeCorruptions()) logger.warn('corrupt object quarantined', { ...corrupt });
    // A re-scan of one workspace or account is no night: it must not quiet the night's alarms.
    if (!event.filter) {
      emitMetric(METRICS_NAMESPACE, SCAN_COMPLETED_METRIC, 1);
      emitMetrics(METRICS_NAMESPACE, {
        [WORKSPACE_METRICS.scanned]: summary.workspaces.scanned,
        [WORKSPACE_METRICS.failed]: summary.workspaces.failed,
        [WORKSPACE_METRICS.timedOut]: timedOutWorkspaces(outcomes),
        [WORKSPACE_METRICS.total]: summary.workspaces.total,
      });
      emitNightMetrics(summary);
    }
    logger.info('scan recorded', {
      scanId: event.scanId,
      ...summary.workspaces,
      findings: summary.findings.total,
    });
    return { summaryKey, workspaces: summary.workspaces, findings: summary.findings.total };
  });

/** Workspaces whose scan this night ended in its time budget (an open `scan.timeout` finding). */
function timedOutWorkspaces(
  outcomes: Array<{ findings: Array<{ ruleId: string; status: string }> }>,
): number {
  return outcomes.filter((outcome) =>
    outcome.findings.some(
      (finding) => finding.ruleId === SCAN_TIMEOUT_RULE_ID && finding.status !== 'resolved',
    ),
  ).length;
}
