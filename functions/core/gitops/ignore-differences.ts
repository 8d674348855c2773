import jq from '@michaelhomer/jqjs';
import type { AttributeChange } from '../findings/model.js';
import type { activeIgnoreRules } from '../terraform/noise.js';
import { objectAddress } from './cluster-rules.js';
import type { ObjectIdentity } from './kube-object.js';

export type ActiveIgnoreRule = ReturnType<typeof activeIgnoreRules>[number];

/**
 * The registry's `policies.ignore` rules applied to direct-mode drift, as Terraform findings apply
 * them (terraform/noise.ts): `address` globs the object as severity overrides do (`Kind/namespace/name`,
 * `Kind/name` when cluster-scoped), `path` globs the change's path (`spec.replicas`,
 * `metadata.annotations.*`); a path also covers what is under it. An expired rule (`until`) hides
 * nothing. Argo CD mode needs none of this: Argo CD applied the application's ignoreDifferences.
 */
export function withoutIgnoredChanges(
  changes: readonly AttributeChange[],
  identity: ObjectIdentity,
  rules: readonly ActiveIgnoreRule[],
): { kept: AttributeChange[]; ignored: { path: string; reason: string }[] } {
  const address = objectAddress(identity);
  const applicable = rules.filter((rule) => rule.matchesAddress(address));
  if (applicable.length === 0) return { kept: [...changes], ignored: [] };
  const kept: AttributeChange[] = [];
  const ignored: { path: string; reason: string }[] = [];
  for (const change of changes) {
    const paths = [...ancestorsOf(change.path), change.path];
    const rule = applicable.find((candidate) => paths.some((path) => candidate.matchesPath(path)));
    if (rule === undefined) kept.push(change);
    else ignored.push({ path: change.path, reason: rule.reason });
  }
  return { kept, ignored };
}

/** `spec.template.spec.containers[0].image` → `spec`, `spec.template`, …, `…containers`, `…containers[0]`. */
export function ancestorsOf(path: string): string[] {
  const result: string[] = [];
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < path.length; index++) {
    const char = path[index];
    if (quoted) {
      if (char === '\\') index++;
      else if (char === '"') quoted = false;
      continue;
    }
    if (char === '"') quoted = true;
    else if (char === '[') {
      if (depth === 0 && index > 0) result.push(path.slice(0, index));
      depth++;
    } else if (char === ']') depth--;
    else if (char === '.' && depth === 0) result.push(path.slice(0, index));
  }
  return result;
}

/**
 * An Argo CD `ignoreDifferences` entry (Application spec or argocd-cm
 * `resource.customizations.ignoreDifferences`): which objects it covers and which of their fields.
 */
export interface IgnoreDifferencesRule {
  group?: string;
  kind: string;
  name?: string;
  namespace?: string;
  jsonPointers?: string[];
  jqPathExpressions?: string[];
}

/** Whether a rule covers an object: kind and group always, name and namespace when the rule sets them. */
export function ruleCovers(rule: IgnoreDifferencesRule, identity: ObjectIdentity): boolean {
  return (
    rule.kind === identity.kind &&
    (rule.group ?? '') === identity.group &&
    (rule.name === undefined || rule.name === identity.name) &&
    (rule.namespace === undefined || rule.namespace === identity.namespace)
  );
}

type Segment = string | number;

/**
 * A copy of the object without the fields the rules name, as Argo CD normalises both sides before it
 * compares: `jsonPointers` (RFC 6901, `~1` is `/`, `~0` is `~`) and `jqPathExpressions` (evaluated
 * with jqjs as `path(<expression>)`, which is what Argo CD's `del(<expression>)` removes). A pointer
 * or expression that names nothing removes nothing; an expression jq cannot compile is an error
 * that names it.
 */
export function withoutIgnoredFields<T>(object: T, rules: readonly IgnoreDifferencesRule[]): T {
  const copy = structuredClone(object);
  const paths: Segment[][] = [];
  for (const rule of rules) {
    for (const pointer of rule.jsonPointers ?? []) paths.push(parsePointer(pointer));
    for (const expression of rule.jqPathExpressions ?? []) paths.push(...jqPaths(copy, expression));
  }
  // Deepest and highest list index first, so removing one path never shifts another.
  paths.sort((a, b) => comparePaths(b, a));
  for (const path of paths) removePath(copy, path);
  return copy;
}

function parsePointer(pointer: string): Segment[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function jqPaths(object: unknown, expression: string): Segment[][] {
  let filter: (input: unknown) => Iterable<unknown>;
  try {
    filter = jq.compile(`path(${expression})`);
  } catch (error) {
    throw new Error(
      `jqPathExpressions: cannot read ${JSON.stringify(expression)}: ${(error as Error).message}`,
    );
  }
  const result: Segment[][] = [];
  try {
    for (const path of filter(object)) if (Array.isArray(path)) result.push(path as Segment[]);
  } catch {
    // Argo CD skips an expression that fails on an object (e.g. iterating over a missing field).
  }
  return result;
}

function comparePaths(a: Segment[], b: Segment[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const left = a[index]!;
    const right = b[index]!;
    if (left === right) continue;
    if (typeof left === 'number' && typeof right === 'number') return left - right;
    return String(left) < String(right) ? -1 : 1;
  }
  return a.length - b.length;
}

function removePath(root: unknown, path: readonly Segment[]): void {
  if (path.length === 0) return;
  let node: unknown = root;
  for (const segment of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string, unknown>)[String(segment)];
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) {
    const index = typeof last === 'number' ? last : Number(last);
    if (Number.isInteger(index) && index >= 0 && index < node.length) node.splice(index, 1);
  } else if (node !== null && typeof node === 'object')
    delete (node as Record<string, unknown>)[String(last)];
}
