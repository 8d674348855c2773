import type { FindingDraft, FindingKind } from '../findings/model.js';
import type { Destination, Registry, RouteConfig, WorkspaceConfig } from '../registry/model.js';
import { formatPath } from '../registry/problems.js';
import { placeholderProblems } from '../registry/starter.js';
import { createGlobMatcher } from '../terraform/glob.js';
import { bucketOwnership } from './scopes.js';

/**
 * A workspace's routes, their globs compiled once: the first route that matches a resource address
 * glob, or a tag of the resource as the plan shows it, decides the owner; else the workspace's owner.
 */
export function createRouter(workspace: WorkspaceConfig) {
  const routes = workspace.routes.map((route) => ({ route, matches: routeMatcher(route) }));
  const routeOf = (address: string | undefined, tags?: Record<string, unknown>) =>
    routes.find((candidate) => candidate.matches(address, tags))?.route;
  return {
    /** The finding with the owner its route gives it (and which route did). */
    route(draft: FindingDraft): FindingDraft {
      const address = draft.resource && 'address' in draft.resource ? draft.resource.address : undefined;
      const route = routeOf(address, draft.evidence.tags as Record<string, unknown> | undefined);
      if (!route || route.owner === draft.owner) return draft;
      return {
        ...draft,
        owner: route.owner,
        evidence: { ...draft.evidence, routedBy: describeRoute(route) },
      };
    },
    /** The owner of a resource address (no tags known). */
    ownerOf(address: string): string {
      return routeOf(address)?.owner ?? workspace.owner;
    },
  };
}

/** One finding's owner; use `createRouter` for many findings of one workspace. */
export function routeFinding(draft: FindingDraft, workspace: WorkspaceConfig): FindingDraft {
  return createRouter(workspace).route(draft);
}

function routeMatcher(
  route: RouteConfig,
): (address: string | undefined, tags?: Record<string, unknown>) => boolean {
  if (route.address !== undefined) {
    const matches = createGlobMatcher(route.address);
    return (address) => address !== undefined && matches(address);
  }
  if (route.tag !== undefined) {
    const { key } = route.tag;
    const matches = createGlobMatcher(route.tag.value);
    return (_address, tags) => {
      const value = tags?.[key];
      return typeof value === 'string' && matches(value);
    };
  }
  return () => false;
}

function describeRoute(route: RouteConfig): string {
  return route.address !== undefined
    ? `address ${route.address}`
    : `tag ${route.tag?.key}=${route.tag?.value}`;
}

/** The destinations of a team that take findings of an environment (no filter: every environment). */
export function destinationsFor(
  registry: Registry,
  owner: string,
  environment: string | undefined,
): Destination[] {
  const team = registry.owners.teams.find((candidate) => candidate.id === owner);
  return (team?.destinations ?? []).filter(
    (destination) =>
      destination.environments === undefined ||
      (environment !== undefined && destination.environments.includes(environment)),
  );
}

export interface RouteProblem {
  scope: string;
  environment?: string;
  kinds: FindingKind[];
  owner: string;
  problem: string;
}

/** What a workspace's own findings can be, and what its state bucket's findings can be. */
const WORKSPACE_KINDS: FindingKind[] = [
  'terraform-drift',
  'pending-change',
  'scan-failed',
  'workspace-busy',
  'state-integrity',
  'stale-lock',
];
const BUCKET_KINDS: FindingKind[] = ['backend-policy', 'state-integrity', 'stale-lock', 'scan-failed'];
const CLUSTER_KINDS: FindingKind[] = ['cluster-drift', 'ownership-conflict', 'scan-failed'];

/**
 * `driftwatch routes --check`: every workspace (with each of its route owners), every state bucket,
 * every cluster (and application owner) and the fallback owner must reach at least one destination
 * for the environment concerned.
 * The fallback also receives scan-missing alerts, which have no environment.
 */
export function checkRoutes(registry: Registry): RouteProblem[] {
  const problems: RouteProblem[] = [];
  const require = (scope: string, owner: string, environment: string | undefined, kinds: FindingKind[]) => {
    if (!registry.owners.teams.some((team) => team.id === owner)) {
      problems.push({ scope, environment, kinds, owner, problem: `owner ${owner} is not a team` });
    } else if (destinationsFor(registry, owner, environment).length === 0) {
      const where = environment === undefined ? 'without an environment' : `for environment ${environment}`;
      problems.push({ scope, environment, kinds, owner, problem: `${owner} has no destination ${where}` });
    }
  };
  for (const workspace of registry.workspaces) {
    require(workspace.id, workspace.owner, workspace.environment, WORKSPACE_KINDS);
    for (const route of workspace.routes) {
      require(`${workspace.id} (${describeRoute(route)})`, route.owner, workspace.environment, [
        'terraform-drift',
        'pending-change',
      ]);
    }
  }
  for (const bucket of new Set(registry.workspaces.map((workspace) => workspace.backend.bucket))) {
    const { owner, environment } = bucketOwnership(registry, bucket);
    require(`s3://${bucket}`, owner, environment, BUCKET_KINDS);
  }
  for (const cluster of registry.clusters) {
    require(cluster.id, cluster.owner, cluster.environment, CLUSTER_KINDS);
    for (const application of cluster.applications) {
      require(`${cluster.id} (application ${application.name})`, application.owner, cluster.environment, CLUSTER_KINDS);
    }
  }
  require('(scan health)', registry.owners.fallback, undefined, ['scan-failed']);
  // A starter registry (`driftwatch init`) routes everything to a placeholder team at a placeholder
  // address: routable on paper, read by nobody. Each placeholder left is a problem, with its place.
  for (const placeholder of placeholderProblems(registry)) {
    const workspace = registry.workspaces.find((candidate) => candidate.id === placeholder.scope);
    problems.push({
      scope: placeholder.scope,
      ...(workspace ? { environment: workspace.environment } : {}),
      kinds: [],
      owner: workspace?.owner ?? registry.owners.fallback,
      problem: `placeholder at ${formatPath(placeholder.path)} (${placeholder.value}): replace it with ${placeholder.fix}`,
    });
  }
  return problems;
}
