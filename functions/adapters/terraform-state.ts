import { GetObjectCommand, type GetObjectCommandOutput, type S3Client } from '@aws-sdk/client-s3';
import { classifyReadFailure } from '../core/backend/failure-cause.js';
import { parseJsonObject } from '../core/backend/json-body.js';
import {
  kubernetesObjectsInState,
  type TerraformKubernetesObject,
} from '../core/gitops/terraform-objects.js';
import type { WorkspaceConfig } from '../core/registry/model.js';
import { stateObjectKey } from '../core/registry/state-key.js';
import type { WorkspaceCredentials } from '../core/scan/ports.js';
import { byteSize } from '../core/text/byte-size.js';
import { readFailure } from './aws-read-failure.js';
import { isNoSuchKey, refuseLargerThan } from './s3-bundle.js';

export class TerraformStateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerraformStateError';
  }
}

/** The largest state parsed whole (JSON.parse holds it several times over in memory). */
export const MAX_STATE_BYTES = 256 * 1024 * 1024;

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
    const where = `s3://${bucket}/${key}`;
    let response: GetObjectCommandOutput;
    try {
      response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      // No state yet: the workspace manages nothing.
      if (isNoSuchKey(error)) return [];
      // The cause and its fix (a KMS key the role may not use, a denial, a wrong region), not a bare name.
      const cause = classifyReadFailure(readFailure(where, 's3:GetObject', error));
      throw new TerraformStateError(`cannot read ${where}: ${cause.summary}. ${cause.advice}`, {
        cause: error,
      });
    }
    // The whole state is parsed here (the Kubernetes objects are in its resources): a state larger
    // than this is refused before its body is read, instead of filling the memory of the scan.
    refuseLargerThan(
      response,
      MAX_STATE_BYTES,
      (length) =>
        new TerraformStateError(
          `${where} is ${byteSize(length)}, more than the ${byteSize(MAX_STATE_BYTES)} driftwatch parses to find the Kubernetes objects Terraform manages: split the workspace, or leave it out of the cluster's workspaces`,
        ),
    );
    const body = (await response.Body?.transformToString('utf8')) ?? '';
    return parseStateText(body, workspace.id, where);
  };
}

/** Parses state text and reduces it at once; a parse error says where, never what (it is state). */
export function parseStateText(text: string, workspace: string, where: string): TerraformKubernetesObject[] {
  // The reason names what is wrong (empty, gzip, a byte order mark), never the content.
  const parsed = parseJsonObject(text, where);
  if (!parsed.ok) throw new TerraformStateError(parsed.reason);
  return kubernetesObjectsInState(parsed.value, workspace);
}
