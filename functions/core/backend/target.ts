import { appendTo } from '../collections.js';
import {
  DEFAULT_LOCK_SETTINGS,
  DEFAULT_POLICIES,
  type LockSettings,
  type Registry,
  type WorkspaceConfig,
} from '../registry/model.js';
import { stateObjectKey } from '../registry/state-key.js';
import { bucketOwnership, bucketScope } from '../routing/scopes.js';

/** Where a finding goes: its scope (a registry workspace or a bucket scope) and who answers for it. */
export interface Placement {
  workspace: string;
  owner?: string;
  environment?: string;
}

export type StaleAfter = LockSettings['staleAfterMs'];

/** A registry workspace whose state lives in the checked bucket. */
export interface StateOwner {
  placement: Placement;
  stateKey: string;
  /** Terraform CLI workspace of the state, when not `default` (for `terraform workspace select`). */
  cliWorkspace?: string;
  staleAfterMs: StaleAfter;
  /** The state must be SSE-KMS encrypted (the workspace's `requireKms`, or the policy's). */
  expectKms: boolean;
  /** Part of this run: findings of workspaces outside the run are neither recorded nor resolved. */
  selected: boolean;
}

/** One state bucket to check, with everything the checks need to know about it. */
export interface BackendTarget {
  bucket: string;
  /** The bucket's region; undefined lets the SDK's own chain decide (AWS_REGION). */
  region?: string;
  /** Only state objects and locks under this key prefix ('' for the whole bucket). */
  prefix: string;
  /** `workspace_key_prefix` values in use (`env:` and custom ones), for CLI workspace states. */
  workspaceKeyPrefixes: string[];
  /** State objects whose content and recent versions are read (registry workspaces, `--key`). */
  contentKeys: string[];
  lockTables: Array<{ table: string; configuredBy: string[] }>;
  /** Default encryption must be SSE-KMS (registry `requireKms`). */
  expectKms: boolean;
  /** Thresholds for locks of states no registry workspace owns. */
  staleAfterMs: StaleAfter;
  confirmAfterMs: number;
  /** The bucket scope: bucket-wide findings, and those about states no registry workspace owns. */
  bucketPlacement: Placement;
  owners: StateOwner[];
  /** The workspace whose read-only role reads this bucket (the first one that has a role). */
  access?: WorkspaceConfig;
}

export const DEFAULT_WORKSPACE_KEY_PREFIX = 'env:';

export interface AdhocTargetOptions {
  bucket: string;
  region?: string;
  prefix?: string;
  keys?: string[];
  lockTables?: string[];
  /** One threshold for every operation, over the registry's (`--stale-after`). */
  staleAfterMs?: number;
  confirmAfterMs?: number;
}

/** The state buckets of a scan: one target per bucket of the selected workspaces. */
export function registryTargets(registry: Registry, selected: readonly WorkspaceConfig[]): BackendTarget[] {
  const buckets = [...new Set(selected.map((workspace) => workspace.backend.bucket))];
  const ids = new Set(selected.map((workspace) => workspace.id));
  return buckets.map((bucket) => buildTarget(registry, { bucket }, ids));
}

export class UnknownStateBucketError extends Error {
  constructor(bucket: string) {
    super(`bucket ${bucket} holds the state of no workspace in the registry`);
    this.name = 'UnknownStateBucketError';
  }
}

/** The target of one registry bucket with all its workspaces (one Lambda invocation per bucket). */
export function registryTargetForBucket(registry: Registry, bucket: string): BackendTarget {
  const workspaces = registry.workspaces.filter((workspace) => workspace.backend.bucket === bucket);
  if (workspaces.length === 0) throw new UnknownStateBucketError(bucket);
  return buildTarget(registry, { bucket }, new Set(workspaces.map((workspace) => workspace.id)));
}

/**
 * A bucket named on the command line. With a registry, its workspaces in the bucket are owners
 * (scopes, thresholds, KMS expectation, lock tables); without one, everything lands in the bucket scope.
 */
export function adhocTarget(options: AdhocTargetOptions, registry?: Registry): BackendTarget {
  const selected = new Set(
    registry?.workspaces
      .filter((workspace) => workspace.backend.bucket === options.bucket)
      .map((workspace) => workspace.id),
  );
  return buildTarget(registry, options, selected);
}

function buildTarget(
  registry: Registry | undefined,
  options: AdhocTargetOptions,
  selected: ReadonlySet<string>,
): BackendTarget {
  const { bucket } = options;
  const locks = registry?.locks ?? DEFAULT_LOCK_SETTINGS;
  const policies = registry?.policies ?? DEFAULT_POLICIES;
  const workspaces = registry?.workspaces.filter((workspace) => workspace.backend.bucket === bucket) ?? [];
  const override = options.staleAfterMs;
  const uniform = (ms: number): StaleAfter => ({ plan: ms, apply: ms, default: ms });
  const staleAfterMs = override === undefined ? locks.staleAfterMs : uniform(override);
  const ownership = registry ? bucketOwnership(registry, bucket) : undefined;
  const requiresKms = (workspace: WorkspaceConfig) =>
    workspace.backend.requireKms ?? policies.backend.requireKms;

  const owners = workspaces.map((workspace): StateOwner => {
    const owner: StateOwner = {
      placement: { workspace: workspace.id, owner: workspace.owner, environment: workspace.environment },
      stateKey: stateObjectKey(workspace),
      staleAfterMs:
        override === undefined
          ? { ...locks.staleAfterMs, ...workspace.locks?.staleAfterMs }
          : uniform(override),
      expectKms: requiresKms(workspace),
      selected: selected.has(workspace.id),
    };
    const cliWorkspace = workspace.backend.workspace;
    if (cliWorkspace && cliWorkspace !== 'default') owner.cliWorkspace = cliWorkspace;
    return owner;
  });

  const tables = new Map<string, string[]>();
  const configure = (table: string, by: string) => appendTo(tables, table, by);
  for (const workspace of workspaces) {
    if (workspace.backend.lockTable) configure(workspace.backend.lockTable, workspace.id);
  }
  for (const table of options.lockTables ?? []) configure(table, '--lock-table');

  const target: BackendTarget = {
    bucket,
    prefix: options.prefix ?? '',
    workspaceKeyPrefixes: unique([
      DEFAULT_WORKSPACE_KEY_PREFIX,
      ...workspaces.flatMap((workspace) => workspace.backend.workspaceKeyPrefix ?? []),
    ]),
    contentKeys: unique([
      ...owners.filter((owner) => owner.selected).map((owner) => owner.stateKey),
      ...(options.keys ?? []),
    ]),
    lockTables: [...tables].map(([table, configuredBy]) => ({ table, configuredBy })),
    expectKms: workspaces.length > 0 ? workspaces.some(requiresKms) : policies.backend.requireKms,
    staleAfterMs,
    confirmAfterMs: options.confirmAfterMs ?? locks.confirmAfterMs,
    bucketPlacement: {
      workspace: bucketScope(bucket),
      ...(ownership ? { owner: ownership.owner, environment: ownership.environment } : {}),
    },
    owners,
  };
  const region = options.region ?? workspaces[0]?.backend.region;
  if (region) target.region = region;
  const access = workspaces.find((workspace) => workspace.roleArn && selected.has(workspace.id));
  if (access) target.access = access;
  return target;
}

/** Whether a key belongs to the run: under the prefix, directly or below a CLI workspace prefix. */
export function inPrefix(
  target: Pick<BackendTarget, 'prefix' | 'workspaceKeyPrefixes'>,
  key: string,
): boolean {
  if (target.prefix === '' || key.startsWith(target.prefix)) return true;
  const split = splitWorkspaceKey(target.workspaceKeyPrefixes, key);
  return split?.key.startsWith(target.prefix) === true;
}

/** The prefixes to list: the whole bucket, or the prefix plus each CLI workspace key prefix. */
export function listingPrefixes(target: Pick<BackendTarget, 'prefix' | 'workspaceKeyPrefixes'>): string[] {
  if (target.prefix === '') return [''];
  const workspacePrefixes = target.workspaceKeyPrefixes
    .map((prefix) => `${prefix}/`)
    .filter((prefix) => !prefix.startsWith(target.prefix));
  return unique([target.prefix, ...workspacePrefixes]);
}

/** `env:/blue/payments.tfstate` → CLI workspace `blue`, key `payments.tfstate`. */
export function splitWorkspaceKey(
  workspaceKeyPrefixes: readonly string[],
  stateKey: string,
): { cliWorkspace: string; key: string } | undefined {
  for (const prefix of workspaceKeyPrefixes) {
    if (!stateKey.startsWith(`${prefix}/`)) continue;
    const rest = stateKey.slice(prefix.length + 1);
    const slash = rest.indexOf('/');
    if (slash > 0) return { cliWorkspace: rest.slice(0, slash), key: rest.slice(slash + 1) };
  }
  return undefined;
}

/** Where findings about one state object (or its lock) go, and the thresholds for its locks. */
export function stateOwnerOf(target: BackendTarget, stateKey: string): StateOwner {
  const owner = target.owners.find((candidate) => candidate.stateKey === stateKey);
  if (owner) return owner;
  const unowned: StateOwner = {
    placement: target.bucketPlacement,
    stateKey,
    staleAfterMs: target.staleAfterMs,
    expectKms: target.expectKms,
    selected: true,
  };
  const cliWorkspace = splitWorkspaceKey(target.workspaceKeyPrefixes, stateKey)?.cliWorkspace;
  if (cliWorkspace) unowned.cliWorkspace = cliWorkspace;
  return unowned;
}

/**
 * The scopes a run covers and records (even with no findings, so fixed problems resolve): the
 * bucket scope and every selected workspace whose state is under the prefix.
 */
export function targetScopes(target: BackendTarget): Placement[] {
  const owned = target.owners
    .filter((owner) => owner.selected && inPrefix(target, owner.stateKey))
    .map((owner) => owner.placement);
  return [target.bucketPlacement, ...owned];
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
