import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import * as z from 'zod/mini';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { writeNightlyReports } from '../core/report/nightly-reports.js';
import { scanEventShape } from '../core/scan/scan-event.js';
import { listAtMost } from '../core/scan/stage-result.js';
import { findingsObjectStore, handlerLogger } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

export const writeReportsEvent = z.object(scanEventShape);
export type WriteReportsEvent = z.infer<typeof writeReportsEvent>;

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
const logger = handlerLogger('write-reports');

/**
 * WriteReports stage: the night's HTML reports (everybody, and one per owner) under
 * `reports/scan=<scanId>/`, for the digests NotifyOwners sends next to link to. Its role reads
 * current/ and history and writes only reports/; the state machine goes on to NotifyOwners when
 * this fails, so a report never costs a night its digests.
 */
export const handler = middy<WriteReportsEvent>()
  .use(validateEvent(writeReportsEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const reports = await writeNightlyReports(objects, event.scanId);
    for (const failure of reports.failed) logger.warn('owner report not written', failure);
    const summary = { everyone: reports.everyone, owners: Object.keys(reports.owners).length };
    logger.info('reports written', summary);
    // Listed up to a bound: Step Functions refuses a result over 256 KiB (stage-result.ts).
    const { listed, notListed } = listAtMost(reports.failed.map((failure) => failure.owner));
    return { ...summary, failed: listed, ...(notListed > 0 ? { failedNotListed: notListed } : {}) };
  });
