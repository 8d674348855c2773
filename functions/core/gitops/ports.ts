import type { ClusterConfig, WorkspaceConfig } from '../registry/model.js';
import type { KubeObject } from './kube-object.js';
import type { TerraformKubernetesObject } from './terraform-objects.js';

/**
 * What a cluster scan needs from the outside world. Adapters return raw JSON; the core validates
 * it. Every failure is a ClusterSourceError whose message is already safe to store (no token, no
 * state content).
 */

/** Why a source could not be read; decides the rule id of the scan-failed finding. */
export type SourceFailure =
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'invalid-response'
  | 'configuration'
  | 'failed';

export class ClusterSourceError extends Error {
  constructor(
    readonly failure: SourceFailure,
    /** Redacted: safe to log and store. */
    readonly reason: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(reason, options);
    this.name = 'ClusterSourceError';
    this.status = options?.status;
  }
  readonly status: number | undefined;
}

export interface ArgoCdApi {
  /** The server's address, for evidence and messages. */
  readonly url: string;
  /** `GET /api/v1/applications` filtered by the registry's project and selector. */
  listApplications(): Promise<unknown>;
  getApplication(name: string, appNamespace?: string): Promise<unknown>;
  managedResources(name: string, appNamespace?: string): Promise<unknown>;
}

/** What a live read asks for: the API version and kind come from the desired manifest. */
export interface LiveObjectRequest {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export type LiveObjectResult =
  | { found: true; object: KubeObject }
  | { found: false; reason: 'not-found' | 'kind-not-served' };

export interface KubernetesApi {
  /** The API server's address, for evidence and messages. */
  readonly server: string;
  /** The desired manifests as multi-document YAML (a kustomize render, or CI's render in S3). */
  desiredManifests(): Promise<{ text: string; source: string }>;
  readLive(request: LiveObjectRequest): Promise<LiveObjectResult>;
}

export interface ClusterScanPorts {
  argocd(cluster: ClusterConfig): ArgoCdApi;
  kubernetes(cluster: ClusterConfig): KubernetesApi;
  /**
   * The Kubernetes objects a workspace's Terraform state manages. The adapter reduces the state to
   * identities as it reads it: state content (plaintext secrets) never leaves the adapter.
   */
  terraformObjects(workspace: WorkspaceConfig): Promise<TerraformKubernetesObject[]>;
}
