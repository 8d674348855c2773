import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { createSnsPublisher } from '../adapters/sns-publisher.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import { recordWorkspaceScan } from '../core/findings/lifecycle.js';
import { digestInput } from '../core/notify/digest.js';
import { DigestsNotSentError, notifyOwners } from '../core/notify/notify-owners.js';
import { scanAlertAfterMs } from '../core/registry/model.js';
import { scanHealth, scanMissingAlertId, scanMissingFinding } from '../core/scan/health.js';
import { scanEventShape } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { requireEnv } from './env.js';
import { logErrors, validateEvent } from './middleware.js';

export const checkHealthEvent = z.object({ registry: scanEventShape.registry });
export type CheckHealthEvent = z.infer<typeof checkHealthEvent>;

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
// Read-only: this role writes only notifications/ (RecordFindings quarantines corrupt history).
const store = createFindingsStore(objects, { readOnly: true });
const publisher = createSnsPublisher(new SNSClient(withHttpTimeouts()), {
  topicArn: requireEnv('TOPIC_ARN'),
});
const logger = handlerLogger('check-health');

/**
 * Runs on its own schedule, outside the state machine: a nightly scan that never started or never
 * finished is an alert to the fallback owner, again every alertAfter period it lasts (scanMissingAlertId).
 */
export const handler = middy<CheckHealthEvent>()
  .use(validateEvent(checkHealthEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry } = await loadRegistrySource(event.registry, s3);
    const now = new Date();
    const alertAfterMs = scanAlertAfterMs(registry);
    const health = scanHealth(await store.recentSummaries(now), now, alertAfterMs);
    if (!health.missing) return { missing: false, lastScanId: health.lastCompleted?.scanId };
    const alertId = scanMissingAlertId(health, alertAfterMs);
    const draft = scanMissingFinding(health, registry.owners.fallback, alertAfterMs);
    const [finding] = recordWorkspaceScan(undefined, [draft], {
      workspace: draft.workspace,
      scanId: alertId,
      now,
      outcome: 'failed',
      check: 'terraform',
    }).history;
    const input = digestInput(registry, { scanId: alertId, now }, [finding!]);
    const result = await notifyOwners(input, { publisher, store: objects });
    logger.warn('scan missing', {
      lastScanId: health.lastCompleted?.scanId,
      alerted: result.sent.length > 0,
    });
    // The alert itself could not be sent: the invocation fails, so its errors say so.
    if (result.deferred.length > 0) throw new DigestsNotSentError(result.deferred);
    return {
      missing: true,
      lastScanId: health.lastCompleted?.scanId,
      alerted: result.sent.map((digest) => digest.digestId),
    };
  });
