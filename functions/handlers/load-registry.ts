import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { freshScanId } from '../adapters/scan-id.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import { scratchPrefix } from '../core/findings/layout.js';
import { SAFE_ID } from '../core/registry/model.js';
import { stateBuckets } from '../core/routing/scopes.js';
import { mapConcurrently } from '../core/scan/map-concurrently.js';
import {
  DEFAULT_ACCOUNT,
  groupByAccount,
  planWorkspace,
  selectWorkspaces,
  timedOutRecently,
} from '../core/scan/runner-plan.js';
import { scanEventShape } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { ConfigurationError, findingsStoreLocation } from './env.js';
import { logErrors, validateEvent } from './middleware.js';

export const scanFilterShape = z.union([
  z.strictObject({ workspace: z.string().check(z.regex(SAFE_ID, 'a workspace id of the registry')) }),
  z.strictObject({
    account: z
      .string()
      .check(z.regex(new RegExp(`^(\\d{12}|${DEFAULT_ACCOUNT})$`), 'a 12-digit AWS account id')),
  }),
]);

export const loadRegistryEvent = z.object({
  /** Defaults to REGISTRY_URI (the registry deployed with the stack). */
  registry: z.optional(z.string().check(z.minLength(1))),
  /** Defaults to a new id; the state machine passes its execution name. */
  scanId: z.optional(scanEventShape.scanId),
  startedAt: z.optional(scanEventShape.startedAt),
  /** Re-scan on demand (`driftwatch invoke --workspace/--account`): only these workspaces, no clusters. */
  filter: z.optional(scanFilterShape),
});
export type LoadRegistryEvent = z.infer<typeof loadRegistryEvent>;

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
// Reads only: a corrupt current document is RecordFindings' to quarantine and report.
const findings = createFindingsStore(objects, { readOnly: true });
const location = findingsStoreLocation();
const logger = handlerLogger('load-registry');
/** Observing locks takes a few seconds per bucket before the window starts: wait a little longer. */
const CONFIRM_MARGIN_MS = 60_000;
const READ_CONCURRENCY = 16;
const accountConcurrency = positiveInt('ACCOUNT_CONCURRENCY', 5);

/**
 * LoadRegistry stage: validates the registry, writes the lists the Distributed Maps read (workspaces
 * grouped by account, state buckets, clusters) to the findings bucket's scratch prefix, and returns
 * only pointers — never the lists themselves (Step Functions payloads stop at 256 KiB). Each
 * workspace item says where it runs: the registry's `runner`, else CodeBuild when its last Lambda
 * scans timed out (its `scan.timeout` finding is open or recently resolved), else Lambda.
 */
export const handler = middy<LoadRegistryEvent>()
  .use(validateEvent(loadRegistryEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const registryUri = event.registry ?? process.env.REGISTRY_URI;
    if (!registryUri) throw new Error('no registry: pass `registry` or set REGISTRY_URI');
    const { registry } = await loadRegistrySource(registryUri, s3);
    const startedAt = event.startedAt ? new Date(event.startedAt) : new Date();
    const scanId = event.scanId ?? freshScanId(startedAt);
    const context = { scanId, startedAt: startedAt.toISOString(), registry: registryUri };
    const selected = selectWorkspaces(registry.workspaces, event.filter);
    const planned = await mapConcurrently(selected, READ_CONCURRENCY, async (workspace) =>
      planWorkspace(
        workspace,
        timedOutRecently(workspace.id, (await findings.readCurrent(workspace.id))?.document, startedAt),
      ),
    );
    const lists = {
      workspaces: planned.map(({ runnerReason: _reason, ...item }) => ({ ...context, ...item })),
      accounts: groupByAccount(planned, accountConcurrency).map((group) => ({ ...context, ...group })),
      buckets: stateBuckets({ ...registry, workspaces: selected }).map(({ bucket }) => ({
        ...context,
        bucket,
      })),
      clusters: event.filter ? [] : registry.clusters.map((cluster) => ({ ...context, cluster: cluster.id })),
    };
    const items: Record<string, { bucket: string; key: string }> = {};
    for (const [name, list] of Object.entries(lists)) {
      const key = `${scratchPrefix(scanId)}${name}.json`;
      await objects.put(key, JSON.stringify(list));
      items[name] = { bucket: 'bucket' in location ? location.bucket : location.dir, key };
    }
    const confirmAt = new Date(Date.now() + registry.locks.confirmAfterMs + CONFIRM_MARGIN_MS).toISOString();
    const counts = {
      workspaces: lists.workspaces.length,
      accounts: new Set(planned.map((item) => item.account)).size,
      codebuild: planned.filter((item) => item.runner === 'codebuild').length,
      buckets: lists.buckets.length,
      clusters: lists.clusters.length,
    };
    const movedToCodebuild = planned
      .filter((item) => item.runnerReason === 'timed-out')
      .map((item) => item.workspace);
    if (movedToCodebuild.length > 0)
      logger.info('timed out in Lambda recently: scanning in CodeBuild', { workspaces: movedToCodebuild });
    logger.info('registry loaded', { scanId, ...counts, ...(event.filter ? { filter: event.filter } : {}) });
    // A Map's Catch puts its error under `failures`.
    // `failures` and `filter` are read by RecordFindings by path: they must exist in the state.
    return { ...context, items, counts, confirmAt, failures: {}, filter: event.filter ?? null };
  });

function positiveInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigurationError(`environment variable ${name} must be a positive integer, got ${text}`);
  return value;
}
