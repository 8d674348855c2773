import { redactText } from '../redaction/secrets.js';
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
  /** Redacted: safe to log and store. */
  readonly reason: string;
  readonly status: number | undefined;
  /** Set by an adapter that knows every other read would fail alike (see isServerWide). */
  readonly serverWide: boolean;
  /** The request ran out of time (`unreachable`): the server may be stuck, or this one answer slow. */
  readonly timedOut: boolean;

  constructor(
    readonly failure: SourceFailure,
    reason: string,
    options?: { cause?: unknown; status?: number; serverWide?: boolean; timedOut?: boolean },
  ) {
    // Redacted here, whoever builds it: a server's error message may quote what it refused.
    const redacted = redactText(reason);
    super(redacted, options);
    this.reason = redacted;
    this.name = 'ClusterSourceError';
    this.status = options?.status;
    this.serverWide = options?.serverWide ?? false;
    this.timedOut = options?.timedOut ?? false;
  }
}

/**
 * A failure that stops the whole scan wherever it happens (the server is unreachable, refuses the
 * credentials, is not configured, or is no Kubernetes API server at all): every other read would
 * fail the same way.
 */
export function isServerWide(error: unknown): boolean {
  return (
    error instanceof ClusterSourceError &&
    (error.serverWide ||
      error.failure === 'unreachable' ||
      error.failure === 'unauthorized' ||
      error.failure === 'configuration')
  );
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

/**
 * A server-side apply dry-run of one manifest: what the API server would store if it were applied
 * (`applied`, with `created` when the object does not exist yet), or why the server would not say
 * (`refused`: forbidden, too old for apply patches, a webhook without dry-run support...).
 */
export type DryRunResult =
  | { outcome: 'applied'; object: KubeObject; created: boolean }
  | { outcome: 'refused'; status: number; reason: string };

export interface KubernetesApi {
  /** The API server's address, for evidence and messages. */
  readonly server: string;
  /**
   * The desired manifests as multi-document YAML (a kustomize or Helm render, or CI's render in
   * S3), and notes on what the render could not do as the GitOps tool does (e.g. Helm without the
   * cluster's capabilities because discovery failed): logged, never a failure.
   */
  desiredManifests(): Promise<{ text: string; source: string; notes?: string[] }>;
  readLive(request: LiveObjectRequest): Promise<LiveObjectResult>;
  /**
   * `PATCH <object>?dryRun=All&fieldManager=<manager>&force=true` with an apply patch: the server
   * answers what it would store and stores nothing.
   */
  dryRunApply(request: LiveObjectRequest, manifest: KubeObject, fieldManager: string): Promise<DryRunResult>;
  /**
   * The cluster's OpenAPI v3 document of one group version (`GET /openapi/v3`, then the path it
   * names), raw; undefined when the server publishes none (older than 1.24, or not allowed).
   */
  openApiDocument(apiVersion: string): Promise<unknown | undefined>;
  /**
   * `GET` of a collection (`…/namespaces/<ns>/<resource>?labelSelector=…`): its items with
   * `apiVersion` and `kind` filled in; undefined when the server does not serve the kind. Optional:
   * without it, direct mode does not look for extraneous objects.
   */
  listObjects?(target: ListRequest): Promise<KubeObject[] | undefined>;
}

/** A LIST of one kind, in one namespace (or cluster-wide), optionally by label (`key=value,...`). */
export interface ListRequest {
  apiVersion: string;
  kind: string;
  namespace?: string;
  labelSelector?: string;
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
