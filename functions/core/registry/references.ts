/**
 * Rules that span entries: ids are unique, and every owner named anywhere is a team. They run on
 * the raw YAML value, not the schema's output, so they are reported together with shape problems
 * (the schema yields no output at all while any problem remains).
 */
import { SAFE_ID } from './model.js';
import { formatPath, quotedName, type RegistryProblem } from './problems.js';
import { stateObjectKey } from './state-key.js';
import { closestMatch } from './suggest.js';
import type { PathSegment, YamlSource } from './yaml-source.js';

interface IdAt {
  id: string;
  path: PathSegment[];
}

export function checkReferences(raw: unknown, source: YamlSource): RegistryProblem[] {
  const root = asRecord(raw);
  const owners = asRecord(root?.owners);
  const teams = idsOf(owners?.teams, ['owners', 'teams']);
  const workspaces = idsOf(root?.workspaces, ['workspaces']);
  const clusters = idsOf(root?.clusters, ['clusters']);
  const problems = [
    ...duplicates(teams, 'team', source),
    ...duplicates(workspaces, 'workspace', source),
    // A cluster's id is its findings scope, as a workspace's is: the two must not share one.
    ...duplicates([...workspaces, ...clusters], 'workspace or cluster', source).filter((problem) =>
      problem.path.startsWith('clusters'),
    ),
    ...clusterWorkspaceReferences(root, new Set(workspaces.map((workspace) => workspace.id)), source),
    ...sharedStates(root, source),
  ];
  // Unless every team has a readable id, any reference could name the unreadable one: the schema
  // reports the broken teams, and reporting references as dangling too would be noise.
  if (everyEntryHasId(owners?.teams)) {
    const teamIds = [...new Set(teams.map((team) => team.id))];
    for (const reference of ownerReferences(root)) {
      const problem = danglingReference(reference, teamIds, source);
      if (problem !== undefined) problems.push(problem);
    }
  }
  return problems;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function everyEntryHasId(list: unknown): boolean {
  return Array.isArray(list) && list.every((entry) => typeof asRecord(entry)?.id === 'string');
}

/** The string ids of a list's entries, with where each sits. */
function idsOf(list: unknown, listPath: PathSegment[]): IdAt[] {
  return asList(list).flatMap((entry, index) => {
    const id = asRecord(entry)?.id;
    return typeof id === 'string' ? [{ id, path: [...listPath, index, 'id'] }] : [];
  });
}

function duplicates(entries: IdAt[], kind: string, source: YamlSource): RegistryProblem[] {
  const firstLineOf = new Map<string, number>();
  const problems: RegistryProblem[] = [];
  for (const entry of entries) {
    const { line, column } = source.positionOf(entry.path);
    const firstLine = firstLineOf.get(entry.id);
    if (firstLine === undefined) {
      firstLineOf.set(entry.id, line);
      continue;
    }
    const message = `duplicate ${kind} id ${quotedName(entry.id)} (first defined at line ${firstLine})`;
    problems.push({ path: formatPath(entry.path), line, column, message });
  }
  return problems;
}

/**
 * Two workspaces naming one state object: an entry copied to add a workspace, its key left as it was.
 * The state would be planned twice, its drift reported twice under two ids (and owners), and the
 * state the copy was meant for never read. Bucket names are global, so the region does not matter.
 */
function sharedStates(root: Record<string, unknown> | undefined, source: YamlSource): RegistryProblem[] {
  const firstLineOf = new Map<string, number>();
  const ids = new Set<unknown>();
  const problems: RegistryProblem[] = [];
  for (const [index, workspace] of asList(root?.workspaces).entries()) {
    // A whole entry repeated is reported once, as a duplicate id.
    const id = asRecord(workspace)?.id;
    if (ids.has(id)) continue;
    ids.add(id);
    const backend = asRecord(asRecord(workspace)?.backend);
    const { bucket, key, workspace: cliWorkspace, workspaceKeyPrefix } = backend ?? {};
    // Shapes the schema refuses are reported there; an optional setting of another type is left out.
    if (typeof bucket !== 'string' || typeof key !== 'string') continue;
    const state = `s3://${bucket}/${stateObjectKey({
      backend: {
        bucket,
        key,
        region: '',
        ...(typeof cliWorkspace === 'string' ? { workspace: cliWorkspace } : {}),
        ...(typeof workspaceKeyPrefix === 'string' ? { workspaceKeyPrefix } : {}),
      },
    })}`;
    const path = ['workspaces', index, 'backend', 'key'];
    const { line, column } = source.positionOf(path);
    const firstLine = firstLineOf.get(state);
    if (firstLine === undefined) {
      firstLineOf.set(state, line);
      continue;
    }
    problems.push({
      path: formatPath(path),
      line,
      column,
      // The values are not repeated (problems never quote what they read): the line says where they are.
      message: `the same state object (bucket and key) as the workspace at line ${firstLine}: each workspace has its own state; give the key of the state this workspace's root writes`,
    });
  }
  return problems;
}

/** owners.fallback, workspaces[].owner and workspaces[].routes[].owner, where they are strings. */
function ownerReferences(root: Record<string, unknown> | undefined): IdAt[] {
  const references: IdAt[] = [];
  const fallback = asRecord(root?.owners)?.fallback;
  if (typeof fallback === 'string') references.push({ id: fallback, path: ['owners', 'fallback'] });
  for (const [index, workspace] of asList(root?.workspaces).entries()) {
    const owner = asRecord(workspace)?.owner;
    if (typeof owner === 'string') references.push({ id: owner, path: ['workspaces', index, 'owner'] });
    for (const [routeIndex, route] of asList(asRecord(workspace)?.routes).entries()) {
      const routeOwner = asRecord(route)?.owner;
      const path = ['workspaces', index, 'routes', routeIndex, 'owner'];
      if (typeof routeOwner === 'string') references.push({ id: routeOwner, path });
    }
  }
  for (const [index, cluster] of asList(root?.clusters).entries()) {
    const owner = asRecord(cluster)?.owner;
    if (typeof owner === 'string') references.push({ id: owner, path: ['clusters', index, 'owner'] });
    for (const [appIndex, application] of asList(asRecord(cluster)?.applications).entries()) {
      const appOwner = asRecord(application)?.owner;
      const path = ['clusters', index, 'applications', appIndex, 'owner'];
      if (typeof appOwner === 'string') references.push({ id: appOwner, path });
    }
  }
  return references;
}

/** clusters[].workspaces name registry workspaces (whose state is read for ownership conflicts). */
function clusterWorkspaceReferences(
  root: Record<string, unknown> | undefined,
  workspaceIds: ReadonlySet<string>,
  source: YamlSource,
): RegistryProblem[] {
  if (!everyEntryHasId(root?.workspaces ?? [])) return [];
  const problems: RegistryProblem[] = [];
  for (const [index, cluster] of asList(root?.clusters).entries()) {
    for (const [position, id] of asList(asRecord(cluster)?.workspaces).entries()) {
      if (typeof id !== 'string' || !SAFE_ID.test(id) || workspaceIds.has(id)) continue;
      const path = ['clusters', index, 'workspaces', position];
      const suggestion = closestMatch(id, [...workspaceIds]);
      const hint = suggestion !== undefined ? `; did you mean '${suggestion}'?` : '';
      const { line, column } = source.positionOf(path);
      problems.push({
        path: formatPath(path),
        line,
        column,
        message: `no workspace '${id}' in workspaces${hint}`,
      });
    }
  }
  return problems;
}

function danglingReference(
  reference: IdAt,
  teamIds: string[],
  source: YamlSource,
): RegistryProblem | undefined {
  // An id that is not even well-formed is already reported by the schema: one problem is enough.
  if (!SAFE_ID.test(reference.id) || teamIds.includes(reference.id)) return undefined;
  const suggestion = closestMatch(reference.id, teamIds);
  const hint =
    suggestion !== undefined
      ? `; did you mean '${suggestion}'?`
      : teamIds.length > 0
        ? ` (teams: ${teamIds.join(', ')})`
        : '';
  const { line, column } = source.positionOf(reference.path);
  return {
    path: formatPath(reference.path),
    line,
    column,
    message: `no team '${reference.id}' in owners.teams${hint}`,
  };
}
