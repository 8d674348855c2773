import type { S3Client } from '@aws-sdk/client-s3';
import type { BucketEvent } from '../../core/backend/bucket-event.js';
import type { BackendStageDeps } from '../../core/backend/stages.js';
import { type BackendTarget, registryTargetForBucket } from '../../core/backend/target.js';
import type { FindingsStore } from '../../core/findings/findings-store.js';
import type { ObjectStore } from '../../core/findings/object-store.js';
import { loadRegistrySource } from '../registry-source.js';
import { createBackendAccess } from './backend-access.js';

/** What a bucket handler needs for one event: the bucket's target from the registry, and real deps. */
export async function bucketStageFor(
  event: BucketEvent,
  shared: { s3: S3Client; findings: FindingsStore; objects: ObjectStore },
): Promise<{ target: BackendTarget; deps: BackendStageDeps }> {
  const { registry } = await loadRegistrySource(event.registry, shared.s3);
  const access = createBackendAccess({ scanId: event.scanId });
  return {
    target: registryTargetForBucket(registry, event.bucket),
    deps: {
      readerFor: access.readerFor,
      findings: shared.findings,
      objects: shared.objects,
      now: () => new Date(),
      // The state machine checks every registry bucket with the backend check too.
      backendCheckedAlongside: true,
    },
  };
}
