import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { bucketStageFor } from '../adapters/backend/bucket-stage.js';
import { type BucketEvent, bucketEvent, bucketResult } from '../core/backend/bucket-event.js';
import { notChecked } from '../core/backend/failure-cause.js';
import { checkAndRecordBackend } from '../core/backend/stages.js';
import { scanRefOf } from '../core/scan/scan-event.js';
import { findingsObjectStore, handlerLogger, scannerFindingsStore } from './common.js';
import { logErrors, validateEvent } from './middleware.js';

const s3 = new S3Client(withHttpTimeouts());
const objects = findingsObjectStore(s3);
const findings = scannerFindingsStore(objects);
const logger = handlerLogger('check-backend');

/** CheckBackend stage: policy and state rules of one state bucket of the registry. */
export const handler = middy<BucketEvent>()
  .use(validateEvent(bucketEvent))
  .use(logErrors(logger))
  .handler(async (event) => {
    const { target, deps } = await bucketStageFor(event, { s3, findings, objects });
    const { outcomes, result } = await checkAndRecordBackend(target, deps, scanRefOf(event));
    logger.info('backend checked', {
      bucket: event.bucket,
      stateObjects: result.stateObjects,
      locks: result.locks,
      ...notChecked(result.preflight),
    });
    return bucketResult(event, outcomes);
  });
