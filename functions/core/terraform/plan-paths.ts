import type { PathSegment } from './plan-model.js';

/**
 * Which parts of a `terraform show -json` document the compactor reads. One table for both the
 * in-memory walk and the streaming selector, so the two paths cannot disagree. Everything not
 * listed — `configuration` apart from which variables and outputs are sensitive (constant_value holds
 * plaintext secrets), resource values of `planned_values` — is skipped and never materialised.
 * Resource entries (resource_drift, resource_changes, deferred_changes, prior_state) are captured one at a time, whole:
 * one native JSON.parse each is cheaper than picking attributes out byte by byte. Variable and output
 * values are read so that the sensitive ones can be redacted wherever they reappear.
 */

export type SelectDecision = 'capture' | 'descend' | 'skip';
/** What a value at a selected path opens with: readers know it before they read the value. */
export type JsonKind = 'object' | 'array' | 'scalar';

const SCALAR_KEYS: ReadonlySet<string> = new Set([
  'format_version',
  'terraform_version',
  'errored',
  'complete',
]);

export function selectPlanPath(path: readonly PathSegment[]): SelectDecision {
  const depth = path.length;
  if (depth === 0) return 'descend';
  const top = path[0];
  if (typeof top !== 'string') return 'skip';
  if (SCALAR_KEYS.has(top)) return depth === 1 ? 'capture' : 'skip';
  if (top === 'resource_drift' || top === 'resource_changes' || top === 'deferred_changes') {
    if (depth === 1) return 'descend';
    return depth === 2 && typeof path[1] === 'number' ? 'capture' : 'skip';
  }
  // Checkable objects (check blocks, conditions, validations) and their status, each taken whole.
  if (top === 'checks') {
    if (depth === 1) return 'descend';
    return depth === 2 && typeof path[1] === 'number' ? 'capture' : 'skip';
  }
  if (top === 'output_changes') {
    if (depth === 1) return 'descend';
    return depth === 2 && typeof path[1] === 'string' ? 'capture' : 'skip';
  }
  if (top === 'prior_state') {
    if (path[1] === 'values' && path[2] === 'outputs') return selectOutputsPath(path, 3);
    return selectPriorStatePath(path);
  }
  if (top === 'variables') return depth === 1 ? 'descend' : depth === 2 ? 'capture' : 'skip';
  if (top === 'planned_values') {
    if (depth === 1) return 'descend';
    return path[1] === 'outputs' ? selectOutputsPath(path, 2) : 'skip';
  }
  if (top === 'configuration') return selectConfigurationPath(path);
  return 'skip';
}

/**
 * Values of sensitive variables and outputs are read only to be redacted wherever they reappear
 * verbatim (provider diagnostics, attributes Terraform did not mask): `variables.<name>` (values),
 * `configuration.root_module.{variables,outputs}.<name>.sensitive` (which are sensitive), and the
 * `outputs.<name>` of planned_values and prior_state (value and sensitive flag).
 */
function selectOutputsPath(path: readonly PathSegment[], nameIndex: number): SelectDecision {
  const depth = path.length;
  if (depth === nameIndex) return 'descend';
  return depth === nameIndex + 1 && typeof path[nameIndex] === 'string' ? 'capture' : 'skip';
}

function selectConfigurationPath(path: readonly PathSegment[]): SelectDecision {
  const depth = path.length;
  if (depth === 1) return 'descend';
  if (path[1] !== 'root_module') return 'skip';
  if (depth === 2) return 'descend';
  if (path[2] !== 'variables' && path[2] !== 'outputs') return 'skip';
  if (depth <= 4) return typeof path[3] === 'string' || depth === 3 ? 'descend' : 'skip';
  return depth === 5 && path[4] === 'sensitive' ? 'capture' : 'skip';
}

/** prior_state.values.root_module(.child_modules[n])*.resources[n], each entry taken whole. */
function selectPriorStatePath(path: readonly PathSegment[]): SelectDecision {
  const depth = path.length;
  if (depth === 1) return 'descend';
  if (path[1] !== 'values') return 'skip';
  if (depth === 2) return 'descend';
  if (path[2] !== 'root_module') return 'skip';
  let index = 3;
  while (index < depth) {
    const segment = path[index];
    if (segment === 'child_modules') {
      if (index + 1 === depth) return 'descend';
      if (typeof path[index + 1] !== 'number') return 'skip';
      index += 2;
      continue;
    }
    if (segment !== 'resources') return 'skip';
    if (index + 1 === depth) return 'descend';
    return index + 2 === depth && typeof path[index + 1] === 'number' ? 'capture' : 'skip';
  }
  return 'descend';
}

const ROOT_KEYS: readonly string[] = [
  'format_version',
  'terraform_version',
  'errored',
  'complete',
  'resource_drift',
  'resource_changes',
  'deferred_changes',
  'output_changes',
  'checks',
  'prior_state',
  'variables',
  'planned_values',
  'configuration',
  // Skipped, but visited: with the members above they tell a plan from a state file (compact.ts).
  'lineage',
  'serial',
  'values',
  // A message of the log `terraform plan -json` streams.
  '@message',
];
const MODULE_KEYS: readonly string[] = ['resources', 'child_modules'];

/**
 * For the in-memory walk: the only members of the object at `path` that `selectPlanPath` may not
 * skip, so the walk need not visit every attribute of every prior_state resource. undefined: all.
 * (The streaming reader has to scan every member anyway and asks `selectPlanPath` for each.)
 */
export function wantedPlanKeys(path: readonly PathSegment[]): readonly string[] | undefined {
  const depth = path.length;
  if (depth === 0) return ROOT_KEYS;
  if (path[0] === 'planned_values') return depth === 1 ? ['outputs'] : undefined;
  if (path[0] === 'configuration') {
    if (depth === 1) return ['root_module'];
    if (depth === 2) return ['variables', 'outputs'];
    if (depth === 4) return ['sensitive'];
    return undefined;
  }
  if (path[0] !== 'prior_state') return undefined;
  if (depth === 1) return ['values'];
  if (depth === 2) return ['root_module', 'outputs'];
  const last = path[depth - 1];
  if (last === 'root_module' || (typeof last === 'number' && path[depth - 2] === 'child_modules'))
    return MODULE_KEYS;
  return undefined;
}

/** `prior_state.values.root_module(.child_modules[n])*.resources[n]` */
export function isPriorStateResourcePath(path: readonly PathSegment[]): boolean {
  const depth = path.length;
  if (depth < 5 || path[0] !== 'prior_state' || path[1] !== 'values' || path[2] !== 'root_module')
    return false;
  if (path[depth - 2] !== 'resources' || typeof path[depth - 1] !== 'number') return false;
  for (let index = 3; index < depth - 2; index += 2) {
    if (path[index] !== 'child_modules' || typeof path[index + 1] !== 'number') return false;
  }
  return (depth - 5) % 2 === 0;
}
