import { setTimeout as sleep } from 'node:timers/promises';
import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { bucketStageFor } from '../adapters/backend/bucket-stage.js';
import { type BucketEvent, bucketEvent, bucketResult } from '../core/backend/bucket-event.js';
import { notChecked } from '../core/backend/failure-cause.js';
import { confirmAndRecordLocks } from '../core/backend/stages.js';
import { scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger, scannerFindingsStore } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
const findings = scannerFindingsStore(objects);
const logger = handlerLogger('confirm-locks');
const LATE_WINDOW_MAX_MS = 5 * 60_000;
const WORK_RESERVE_MS = 2 * 60_000;

/**
 * ConfirmLocks stage: the second look at one bucket's locks and the stale-lock proof. Invoked more
 * than a few minutes before the observation's `confirmAt` it fails (ConfirmationTooEarlyError)
 * rather than guess.
 */
export const handler = middy<BucketEvent>()
  .use(validateEvent(bucketEvent))
  .use(logErrors(logger))
  .handler(async (event, context) => {
    const { target, deps } = await bucketStageFor(event, { s3, findings, objects });
    // Wait out a window that ends within minutes, leaving the invocation time to do the work.
    const maxMs = Math.min(LATE_WINDOW_MAX_MS, context.getRemainingTimeInMillis() - WORK_RESERVE_MS);
    const { outcomes, confirmation } = await confirmAndRecordLocks(target, deps, scanRefOf(event), {
      maxMs,
      sleep,
    });
    logger.info('locks confirmed', {
      bucket: event.bucket,
      verdicts: confirmation.verdicts,
      ...notChecked(confirmation.preflight),
    });
    return bucketResult(event, outcomes);
  });
