import type { WorkspaceConfig } from '../registry/model.js';
import type { ConfigurationFacts } from '../terraform/configuration.js';
import type { CompactPlan } from '../terraform/index.js';
import type { FailedRead } from '../terraform/provider-log.js';

/** Temporary AWS credentials for one workspace (from STS AssumeRole when the registry names a role). */
export interface WorkspaceCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** What identifies one version of the state object; equal versions mean nobody wrote state in between. */
export interface StateVersion {
  versionId?: string;
  etag?: string;
  lastModified?: string;
}

export type IdentityCheck = { ok: true; account: string; arn: string } | { ok: false; reason: string };

export type RunStage = 'credentials' | 'source' | 'init' | 'plan' | 'show' | 'evaluate';

/** A Terraform run that failed before it produced a plan we can read. */
export class TerraformRunError extends Error {
  constructor(
    readonly stage: RunStage,
    /** Already redacted: safe to log and store. */
    readonly reason: string,
    options?: { cause?: unknown; timedOut?: boolean },
  ) {
    super(`${stage} failed: ${reason}`, options);
    this.name = 'TerraformRunError';
    this.timedOut = options?.timedOut ?? false;
  }

  /** Terraform was stopped by the scan's time budget (recorded as `scan.timeout`). */
  readonly timedOut: boolean;
}

export interface PlanRun {
  plan: CompactPlan;
  /** Terraform's own exit code, kept as evidence only: decisions come from the plan JSON. */
  exitCode: number | null;
  /** Redacted summary of Terraform's error diagnostics, if it printed any. */
  errorSummary?: string;
  durationMs: number;
}

/** A workspace checked out and initialised in its own temporary directory. */
export interface PreparedWorkspace {
  plan(): Promise<PlanRun>;
  /**
   * Refreshes these addresses once more and returns the API calls that got no answer proving
   * absence (a 403, no response at all), read from the provider's debug log: the AWS provider
   * reports a resource it may not read, or cannot reach, as deleted. Absent: the runner cannot tell.
   */
  readFailures?(addresses: readonly string[]): Promise<FailedRead[]>;
  /** Deletes the working directory (and with it any plan file that survived). */
  close(): Promise<void>;
  readonly initDurationMs: number;
  /** What the checked-out configuration says that plans do not (ignore_changes, removed blocks). */
  readonly configuration?: ConfigurationFacts;
}

/** Everything a workspace scan needs from the outside world. */
export interface ScanPorts {
  credentials(workspace: WorkspaceConfig): Promise<WorkspaceCredentials | undefined>;
  identity(workspace: WorkspaceConfig, credentials: WorkspaceCredentials | undefined): Promise<IdentityCheck>;
  /**
   * undefined when there is no state object (yet); throws when it could not be read (the scan then
   * fails: without the version a concurrent apply cannot be detected).
   */
  stateVersion(
    workspace: WorkspaceConfig,
    credentials: WorkspaceCredentials | undefined,
  ): Promise<StateVersion | undefined>;
  prepare(
    workspace: WorkspaceConfig,
    credentials: WorkspaceCredentials | undefined,
  ): Promise<PreparedWorkspace>;
}
