import { createContext, Script } from 'node:vm';
import jq from '@michaelhomer/jqjs';
import type { AttributeChange } from '../findings/model.js';
import { jqPathExpressionProblem } from '../registry/cluster-formats.js';
import type { IgnoreDifferencesRule } from '../registry/model.js';
import { createGlobMatcher } from '../terraform/glob.js';
import { deepEqual } from '../terraform/json-values.js';
import type { activeIgnoreRules } from '../terraform/noise.js';
import { objectAddress } from './cluster-rules.js';
import { isPlainObject, type KubeObject, type ObjectIdentity } from './kube-object.js';
import { withoutFieldsOwnedBy } from './managed-fields.js';

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

export type { IgnoreDifferencesRule };

/** A rule and where it was stated (`Application argocd/shop ignoreDifferences`), for `evidence.ignored`. */
export interface SourcedIgnoreRule extends IgnoreDifferencesRule {
  source: string;
}

/** A change an ignore rule hid: its path and which rule, in the finding's `evidence.ignored`. */
export interface IgnoredChange {
  path: string;
  reason: string;
}

/**
 * Whether a rule covers an object, as Argo CD's ignore normaliser matches: `group` and `kind` as
 * globs (`*` is every group or kind; an absent group is the core group), `name` and `namespace`
 * exactly when the rule sets them.
 */
export function ruleCovers(rule: IgnoreDifferencesRule, identity: ObjectIdentity): boolean {
  return (
    createGlobMatcher(rule.kind)(identity.kind) &&
    createGlobMatcher(rule.group ?? '')(identity.group) &&
    (rule.name === undefined || rule.name === '' || rule.name === identity.name) &&
    (rule.namespace === undefined || rule.namespace === '' || rule.namespace === identity.namespace)
  );
}

/** The two sides of a comparison: what Git would make of the object, and the live object. */
export interface ComparedSides {
  desired: KubeObject;
  live: KubeObject;
}

/** One removal of ignored fields from both sides, and how `evidence.ignored` names it. */
interface Normalisation {
  reason: string;
  apply(sides: ComparedSides): ComparedSides;
}

function normalisationsOf(rules: readonly SourcedIgnoreRule[]): Normalisation[] {
  const steps: Normalisation[] = [];
  for (const rule of rules) {
    const fieldRule = (what: Partial<IgnoreDifferencesRule>) => ({ kind: rule.kind, ...what });
    for (const pointer of rule.jsonPointers ?? [])
      steps.push({
        reason: `${rule.source}: jsonPointers ${pointer}`,
        apply: (sides) => eachSide(sides, [fieldRule({ jsonPointers: [pointer] })]),
      });
    for (const expression of rule.jqPathExpressions ?? [])
      steps.push({
        reason: `${rule.source}: jqPathExpressions ${expression}`,
        apply: (sides) => eachSide(sides, [fieldRule({ jqPathExpressions: [expression] })]),
      });
    const managers = rule.managedFieldsManagers ?? [];
    if (managers.length > 0)
      steps.push({
        reason: `${rule.source}: managedFieldsManagers ${managers.join(', ')}`,
        apply: (sides) => withoutFieldsOwnedBy(sides, managers),
      });
  }
  return steps;
}

/** Argo CD normalises each side on its own: an expression is evaluated against that side. */
function eachSide(sides: ComparedSides, rules: readonly IgnoreDifferencesRule[]): ComparedSides {
  return {
    desired: withoutIgnoredFields(sides.desired, rules),
    live: withoutIgnoredFields(sides.live, rules),
  };
}

/**
 * The changes between the two sides once the rules that cover the object removed what they ignore
 * from both (as Argo CD normalises desired and live before it diffs), and which changes each rule
 * hid. `diff` is the comparison method's own diff, so removals (fields Git no longer declares) are
 * normalised with the rest: a removed field a rule covers is not drift either.
 */
export function changesIgnoringDifferences(
  sides: ComparedSides,
  rules: readonly SourcedIgnoreRule[],
  diff: (sides: ComparedSides) => AttributeChange[],
): { kept: AttributeChange[]; ignored: IgnoredChange[] } {
  let current = sides;
  let changes = diff(current);
  const ignored: IgnoredChange[] = [];
  for (const step of normalisationsOf(rules)) {
    if (changes.length === 0) break;
    const next = step.apply(current);
    if (deepEqual(next, current)) continue;
    const nextChanges = diff(next);
    ignored.push(
      ...vanished(changes, nextChanges).map((change) => ({ path: change.path, reason: step.reason })),
    );
    current = next;
    changes = nextChanges;
  }
  return { kept: changes, ignored };
}

/**
 * Changes of `before` that `after` no longer has. Removing a list element from both sides renumbers
 * the elements after it, so a change that only moved (same values, another index) did not vanish:
 * changes are paired by path and values, then by values, then by path; the unpaired ones vanished.
 */
function vanished(before: readonly AttributeChange[], after: readonly AttributeChange[]): AttributeChange[] {
  const remaining = [...after];
  let unpaired = [...before];
  const pairings: Array<(a: AttributeChange, b: AttributeChange) => boolean> = [
    (a, b) => a.path === b.path && valuesOf(a) === valuesOf(b),
    (a, b) => valuesOf(a) === valuesOf(b),
    (a, b) => a.path === b.path,
  ];
  for (const paired of pairings)
    unpaired = unpaired.filter((change) => {
      const index = remaining.findIndex((candidate) => paired(change, candidate));
      if (index < 0) return true;
      remaining.splice(index, 1);
      return false;
    });
  return unpaired;
}

function valuesOf(change: AttributeChange): string {
  return JSON.stringify([change.before, change.after]);
}

/**
 * Rules as Argo CD states them in an Application's `spec.ignoreDifferences` or in argocd-cm, read
 * leniently: a malformed entry or a jq expression that does not compile is left out and named in
 * `problems` (the finding's evidence says so), never a failure of the scan.
 */
export function parseIgnoreDifferences(
  value: unknown,
  source: string,
  defaults: { group?: string; kind?: string } = {},
): { rules: SourcedIgnoreRule[]; problems: string[] } {
  const rules: SourcedIgnoreRule[] = [];
  const problems: string[] = [];
  const entries = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  for (const entry of entries) {
    if (!isPlainObject(entry)) {
      problems.push(`${source}: an entry is not an object`);
      continue;
    }
    const kind = typeof entry.kind === 'string' && entry.kind !== '' ? entry.kind : defaults.kind;
    if (kind === undefined) {
      problems.push(`${source}: an entry has no kind`);
      continue;
    }
    const group = typeof entry.group === 'string' ? entry.group : defaults.group;
    const jqPathExpressions: string[] = [];
    for (const expression of stringsOf(entry.jqPathExpressions)) {
      const problem = jqPathExpressionProblem(expression);
      if (problem === undefined) jqPathExpressions.push(expression);
      else problems.push(`${source}: ${problem}`);
    }
    const rule: SourcedIgnoreRule = {
      source,
      kind,
      ...(group ? { group } : {}),
      ...(typeof entry.name === 'string' && entry.name !== '' ? { name: entry.name } : {}),
      ...(typeof entry.namespace === 'string' && entry.namespace !== ''
        ? { namespace: entry.namespace }
        : {}),
      jsonPointers: stringsOf(entry.jsonPointers),
      jqPathExpressions,
      managedFieldsManagers: stringsOf(entry.managedFieldsManagers),
    };
    rules.push(rule);
  }
  return { rules, problems };
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string' && item !== '')
    : [];
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

type JqFilter = (input: unknown) => Iterable<unknown>;

/**
 * Each expression compiled once: a scan applies the same rules to both sides of every object they
 * cover. (A compiled filter keeps no state between inputs; the expressions come from configuration.)
 */
const compiledPaths = new Map<string, JqFilter>();

function jqPaths(object: unknown, expression: string): Segment[][] {
  let filter = compiledPaths.get(expression);
  if (filter === undefined) {
    try {
      filter = jq.compile(`path(${expression})`);
    } catch (error) {
      // jqjs throws its parse errors as strings.
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`jqPathExpressions: cannot read ${JSON.stringify(expression)}: ${message}`);
    }
    compiledPaths.set(expression, filter);
  }
  const stopped = stoppedExpressions.get(expression);
  if (stopped !== undefined) throw new Error(stopped);
  const result: Segment[][] = [];
  let outcome: 'done' | 'too-many' = 'done';
  try {
    jqRun.filter = filter;
    jqRun.input = object;
    jqRun.max = MAX_JQ_PATHS;
    JQ_RUN.runInContext(jqRun, { timeout: JQ_TIMEOUT_MS });
    outcome = jqRun.outcome as 'done' | 'too-many';
    for (const path of jqRun.paths as unknown[]) if (Array.isArray(path)) result.push(path as Segment[]);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      const reason = `jqPathExpressions: ${JSON.stringify(expression)} did not finish within ${JQ_TIMEOUT_MS / 1000}s: the object's drift cannot be told without it; simplify the expression`;
      stoppedExpressions.set(expression, reason);
      throw new Error(reason);
    }
    // Argo CD skips an expression that fails on an object (e.g. iterating over a missing field).
    return [];
  } finally {
    jqRun.filter = jqRun.input = jqRun.paths = undefined;
  }
  if (outcome === 'too-many') {
    const reason = `jqPathExpressions: ${JSON.stringify(expression)} names more than ${MAX_JQ_PATHS} paths: the object's drift cannot be told without it; simplify the expression`;
    stoppedExpressions.set(expression, reason);
    throw new Error(reason);
  }
  return result;
}

/**
 * An expression is configuration someone else writes (an Application's ignoreDifferences), and jq
 * can spin: `.spec.containers[range(0; 1e9)] | select(false)` ran 86 s of CPU per object side,
 * synchronously, so no request deadline could fire and the scan stood still. jqjs runs in this
 * thread, so the evaluation is bounded the one way synchronous code can be: a vm script's timeout
 * (it stops whatever runs while the script is on the stack, jqjs's generators included), and a
 * count of paths (memory). An expression stopped once is not tried again in the scan: each object
 * it covers fails at once, naming it, instead of costing the limit again.
 */
const JQ_TIMEOUT_MS = 1000;
const MAX_JQ_PATHS = 100_000;
const stoppedExpressions = new Map<string, string>();
const jqRun = createContext({}) as {
  filter?: JqFilter;
  input?: unknown;
  max?: number;
  paths?: unknown;
  outcome?: unknown;
};
const JQ_RUN = new Script(
  "paths = []; outcome = 'done'; for (const path of filter(input)) { if (paths.length >= max) { outcome = 'too-many'; break; } paths.push(path); }",
);

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
