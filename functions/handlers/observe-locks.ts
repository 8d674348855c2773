import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { bucketStageFor } from '../adapters/backend/bucket-stage.js';
import { type BucketEvent, bucketEvent } from '../core/backend/bucket-event.js';
import { notChecked } from '../core/backend/failure-cause.js';
import { observeAndStoreLocks } from '../core/backend/stages.js';
import { scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger, scannerFindingsStore } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
const findings = scannerFindingsStore(objects);
const logger = handlerLogger('observe-locks');

/**
 * ObserveLocks stage: the first look at one bucket's locks, stored for ConfirmLocks. `confirmAt`
 * is for the state machine's Wait (TimestampPath): it is now when no lock could become stale.
 */
export const handler = middy<BucketEvent>()
  .use(validateEvent(bucketEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { target, deps } = await bucketStageFor(event, { s3, findings, objects });
    const { key, observation } = await observeAndStoreLocks(target, deps, scanRefOf(event));
    const { locks, confirmAt } = observation;
    logger.info('locks observed', {
      bucket: event.bucket,
      locks: locks.length,
      confirmAt,
      ...notChecked(observation.preflight),
    });
    return { ...event, observationKey: key, locks: locks.length, confirmAt };
  });
