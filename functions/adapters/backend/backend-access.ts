import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { BackendReader } from '../../core/backend/ports.js';
import type { BackendTarget } from '../../core/backend/target.js';
import { withHttpTimeouts } from '../aws-http-timeouts.js';
import { createAwsWorkspaceAccess } from '../aws-workspace.js';
import { createAwsBackendReader } from './aws-backend-reader.js';

/**
 * Readers for state buckets: in the bucket's region, with the read-only role of a workspace whose
 * state lives there (when the registry names one). Clients are built once per region and role.
 */
export function createBackendAccess(options: { scanId: string }) {
  const workspaceAccess = createAwsWorkspaceAccess({ scanId: options.scanId });
  const readers = new Map<string, Promise<BackendReader>>();

  async function build(target: BackendTarget): Promise<BackendReader> {
    const credentials = target.access ? await workspaceAccess.credentials(target.access) : undefined;
    const config = withHttpTimeouts({
      ...(target.region ? { region: target.region } : {}),
      ...(credentials ? { credentials } : {}),
    });
    return createAwsBackendReader({
      s3: new S3Client({ ...config, followRegionRedirects: true }),
      dynamodb: new DynamoDBClient(config),
    });
  }

  return {
    readerFor(target: BackendTarget): Promise<BackendReader> {
      const cacheKey = `${target.region ?? ''}|${target.access?.roleArn ?? ''}`;
      let reader = readers.get(cacheKey);
      if (!reader) {
        reader = build(target);
        readers.set(cacheKey, reader);
      }
      return reader;
    },
  };
}
