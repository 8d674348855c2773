import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { freshScanId } from '../adapters/scan-id.js';
import { scratchPrefix } from '../core/findings/layout.js';
import { stateBuckets } from '../core/routing/scopes.js';
import { scanEventShape } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { findingsStoreLocation } from './env.js';
import { logErrors, validateEvent } from './middleware.js';

export const loadRegistryEvent = z.object({
  /** Defaults to REGISTRY_URI (the registry deployed with the stack). */
  registry: z.optional(z.string().check(z.minLength(1))),
  /** Defaults to a new id; the state machine passes its execution name. */
  scanId: z.optional(scanEventShape.scanId),
  startedAt: z.optional(scanEventShape.startedAt),
});
export type LoadRegistryEvent = z.infer<typeof loadRegistryEvent>;

const s3 = new S3Client({});
const objects = findingsObjectStore(s3);
const location = findingsStoreLocation();
const logger = handlerLogger('load-registry');
/** Observing locks takes a few seconds per bucket before the window starts: wait a little longer. */
const CONFIRM_MARGIN_MS = 60_000;

/**
 * LoadRegistry stage: validates the registry, writes the lists the Distributed Maps read (workspaces,
 * state buckets, clusters) to the findings bucket's scratch prefix, and returns only pointers —
 * never the lists themselves (Step Functions payloads stop at 256 KiB).
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
    const lists = {
      workspaces: registry.workspaces.map((workspace) => ({ ...context, workspace: workspace.id })),
      buckets: stateBuckets(registry).map(({ bucket }) => ({ ...context, bucket })),
      clusters: registry.clusters.map((cluster) => ({ ...context, cluster: cluster.id })),
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
      buckets: lists.buckets.length,
      clusters: lists.clusters.length,
    };
    logger.info('registry loaded', { scanId, ...counts });
    return { ...context, items, counts, confirmAt };
  });
