import { createHash } from 'node:crypto';
import { isProductionEnvironment, type Registry } from '../registry/model.js';

/**
 * Findings live in scopes (`current/<scope>.json`). A Terraform workspace is its own scope; what
 * belongs to a whole state bucket (its versioning, encryption, locks of unknown workspaces) lives in
 * the bucket's scope, so one bucket shared by fifty workspaces gives one finding, not fifty.
 */
export function bucketScope(bucket: string): string {
  const scope = `s3.${bucket}`;
  if (scope.length <= 63) return scope;
  // Bucket names are up to 63 characters: keep the readable start, make it unique with a hash.
  const hash = createHash('sha256').update(bucket).digest('hex').slice(0, 8);
  return `${scope.slice(0, 54)}-${hash}`;
}

export interface ScopeOwnership {
  owner: string;
  environment?: string;
  /** Registry workspaces whose state lives in the bucket. */
  workspaces: string[];
}

/**
 * Who answers for a state bucket: the owner of its workspaces when they agree, else the fallback
 * owner (typically the platform team that runs the state buckets). The environment is the most
 * production-like one among them, so a bucket holding prod state is treated as prod.
 */
export function bucketOwnership(registry: Registry, bucket: string): ScopeOwnership {
  const workspaces = registry.workspaces.filter((workspace) => workspace.backend.bucket === bucket);
  const owners = new Set(workspaces.map((workspace) => workspace.owner));
  const owner = owners.size === 1 ? [...owners][0]! : registry.owners.fallback;
  const environments = workspaces.map((workspace) => workspace.environment);
  const environment =
    environments.find((name) => isProductionEnvironment(name, registry.policies)) ?? environments[0];
  return { owner, environment, workspaces: workspaces.map((workspace) => workspace.id) };
}

/** The state buckets of the registry, each once, with the region of its first workspace. */
export function stateBuckets(
  registry: Registry,
): Array<{ bucket: string; region: string; lockTables: string[] }> {
  const buckets = new Map<string, { bucket: string; region: string; lockTables: Set<string> }>();
  for (const workspace of registry.workspaces) {
    const { bucket, region, lockTable } = workspace.backend;
    const entry = buckets.get(bucket) ?? { bucket, region, lockTables: new Set<string>() };
    if (lockTable) entry.lockTables.add(lockTable);
    buckets.set(bucket, entry);
  }
  return [...buckets.values()].map((entry) => ({ ...entry, lockTables: [...entry.lockTables].sort() }));
}

/**
 * The scopes a registry's scans record: each workspace, each cluster and the state bucket of each
 * workspace's backend. A scope of the store outside this set is one no scan will record again.
 */
export function registeredScopes(registry: Registry): Set<string> {
  return new Set([
    ...registry.workspaces.map((workspace) => workspace.id),
    ...stateBuckets(registry).map((entry) => bucketScope(entry.bucket)),
    ...registry.clusters.map((cluster) => cluster.id),
  ]);
}
