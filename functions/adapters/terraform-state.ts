import type { S3Client } from '@aws-sdk/client-s3';
import {
  kubernetesObjectsInState,
  type TerraformKubernetesObject,
} from '../core/gitops/terraform-objects.js';
import type { WorkspaceConfig } from '../core/registry/model.js';
import { stateObjectKey } from '../core/registry/state-key.js';
import type { WorkspaceCredentials } from '../core/scan/ports.js';
import { isNoSuchKey, readS3Text } from './s3-bundle.js';

export class TerraformStateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerraformStateError';
  }
}

/**
 * Reads a workspace's Terraform state from its S3 backend and keeps only the identities of the
 * Kubernetes objects it manages. State holds plaintext secrets: the body is parsed here and dropped;
 * errors name the bucket and key, never content.
 */
export function createTerraformStateReader(access: {
  credentials: (workspace: WorkspaceConfig) => Promise<WorkspaceCredentials | undefined>;
  s3: (region: string, credentials: WorkspaceCredentials | undefined) => S3Client;
}) {
  return async (workspace: WorkspaceConfig): Promise<TerraformKubernetesObject[]> => {
    const { bucket, region } = workspace.backend;
    const key = stateObjectKey(workspace);
    const s3 = access.s3(region, await access.credentials(workspace));
    let body: string;
    try {
      body = await readS3Text(s3, bucket, key);
    } catch (error) {
      // No state yet: the workspace manages nothing.
      if (isNoSuchKey(error)) return [];
      throw new TerraformStateError(`cannot read s3://${bucket}/${key}: ${(error as Error).name}`, {
        cause: error,
      });
    }
    return parseStateText(body, workspace.id, `s3://${bucket}/${key}`);
  };
}

/** Parses state text and reduces it at once; a parse error says where, never what (it is state). */
export function parseStateText(text: string, workspace: string, where: string): TerraformKubernetesObject[] {
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new TerraformStateError(`${where} is not JSON`);
  }
  return kubernetesObjectsInState(state, workspace);
}
