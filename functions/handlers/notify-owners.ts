import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { loadRegistrySource } from '../adapters/registry-source.js';
import { reportLinkerAt, reportLinkHours } from '../adapters/report-links.js';
import { createSnsPublisher } from '../adapters/sns-publisher.js';
import { createFindingsStore } from '../core/findings/findings-store.js';
import { digestInput } from '../core/notify/digest.js';
import { DigestsNotSentError, notifyOwners, notifySummary } from '../core/notify/notify-owners.js';
import { reportUrlsOf } from '../core/report/nightly-reports.js';
import { scanEventShape, scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { findingsStoreLocation, requireEnv } from './env.js';
import { logErrors, validateEvent } from './middleware.js';

export const notifyOwnersEvent = z.object(scanEventShape);
export type NotifyOwnersEvent = z.infer<typeof notifyOwnersEvent>;

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
// Read-only: this role writes only notifications/ (RecordFindings quarantines corrupt history).
const store = createFindingsStore(objects, { readOnly: true });
const publisher = createSnsPublisher(new SNSClient(withHttpTimeouts()), {
  topicArn: requireEnv('TOPIC_ARN'),
});
const logger = handlerLogger('notify-owners');
// The store as the team's CLI names it, for the commands in digests: `--store s3://<findings bucket>`.
const location = findingsStoreLocation();
const storeOption = 'bucket' in location ? `s3://${location.bucket}` : location.dir;
const linkReport = reportLinkerAt(objects.location, () => s3, {
  hours: reportLinkHours(process.env.REPORT_LINK_HOURS),
});

/** NotifyOwners stage: one digest per owner with news, from every history line the scan wrote. */
export const handler = middy<NotifyOwnersEvent>()
  .use(validateEvent(notifyOwnersEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { registry } = await loadRegistrySource(event.registry, s3);
    const findings = await store.scanHistory(scanRefOf(event));
    // Each owner's report of this scan (WriteReports ran just before): a link that works for a click.
    const owners = [registry.owners.fallback, ...findings.flatMap((finding) => finding.owner ?? [])];
    const reportUrls = await reportUrlsOf(event.scanId, owners, linkReport);
    const input = digestInput(registry, { scanId: event.scanId, now: new Date() }, findings, {
      store: storeOption,
      reportUrls,
    });
    const result = await notifyOwners(input, { publisher, store: objects });
    for (const failure of result.deferred) logger.warn('digest deferred to the next run', failure);
    for (const corrupt of result.quarantined) logger.warn('corrupt object quarantined', { ...corrupt });
    const summary = notifySummary(result);
    logger.info('owners notified', summary);
    // Kept in the outbox for the next run, but a failed execution is what raises the alarm.
    if (result.deferred.length > 0) throw new DigestsNotSentError(result.deferred);
    return summary;
  });
