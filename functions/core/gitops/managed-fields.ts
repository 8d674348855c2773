import type { JsonValue } from '../findings/model.js';
import { deepEqual } from '../terraform/json-values.js';
import { isPlainObject, type KubeObject } from './kube-object.js';

/**
 * Fields the applier set on a live object that the manifest in Git no longer declares: a label
 * removed from Git, a ConfigMap key removed, a `type: NodePort` removed. Declared-field comparisons
 * only look at what the manifest sets, so without this they never see a removal.
 *
 * What the applier owns comes from, in order:
 * - its server-side apply entry in `metadata.managedFields` (`manager` = the configured field
 *   manager, `operation: Apply`), whose `fieldsV1` is a tree: `f:<field>` a field, `k:<json>` the
 *   element of a list-map with those key values, `v:<json>` the element of a set with that value,
 *   `i:<n>` a list index, `.` the node itself;
 * - for client-side apply, `kubectl.kubernetes.io/last-applied-configuration` (the manifest kubectl
 *   applied last): its fields are the owned ones. Lists in it are compared as a whole (present in the
 *   manifest or not), since client-side apply's list merge keys are not recorded there.
 *
 * Fields other managers own (a controller, a webhook, an HPA's `replicas`) are never in the
 * applier's entry, so they are never reported here. With a server-side dry-run none of this is
 * needed: the server itself removes the fields the applier alone owned from its answer.
 */

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** A fieldsV1 tree (`{"f:metadata": {"f:labels": {"f:app": {}}}}`). */
export type FieldsTree = { readonly [key: string]: FieldsTree };

export type AppliedFieldsSource = 'managed-fields' | 'last-applied-configuration';

export interface AppliedFields {
  source: AppliedFieldsSource;
  tree: FieldsTree;
}

/** Identity fields: the request names them, so a manifest that leaves them out did not remove them. */
const IDENTITY_PATHS: ReadonlySet<string> = new Set([
  'f:apiVersion',
  'f:kind',
  'f:metadata/f:name',
  'f:metadata/f:namespace',
]);

/** The fields the applier set on the live object, or undefined when the object does not record them. */
export function appliedFieldsOf(live: KubeObject, fieldManager: string): AppliedFields | undefined {
  const metadata = isPlainObject(live.metadata) ? live.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields : [];
  for (const entry of entries) {
    if (!isPlainObject(entry)) continue;
    if (entry.manager !== fieldManager || entry.operation !== 'Apply') continue;
    if (isPlainObject(entry.fieldsV1)) return { source: 'managed-fields', tree: asTree(entry.fieldsV1) };
  }
  const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
  const lastApplied = annotations[LAST_APPLIED_ANNOTATION];
  if (typeof lastApplied !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(lastApplied);
  } catch {
    // A hand-edited annotation that is not JSON records nothing we can trust.
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  return { source: 'last-applied-configuration', tree: treeOfObject(parsed as KubeObject) };
}

function asTree(value: JsonValue): FieldsTree {
  const tree: Record<string, FieldsTree> = {};
  if (!isPlainObject(value)) return tree;
  for (const [key, child] of Object.entries(value)) tree[key] = asTree(child as JsonValue);
  return tree;
}

/** A last-applied configuration as a fields tree: objects field by field, lists and scalars as leaves. */
function treeOfObject(object: KubeObject): FieldsTree {
  const tree: Record<string, FieldsTree> = {};
  for (const [key, value] of Object.entries(object)) {
    if (!isPlainObject(value)) tree[`f:${key}`] = {};
    // kubectl writes `annotations: {}` when a manifest has none: an empty map owns nothing.
    else if (Object.keys(value).length > 0) tree[`f:${key}`] = treeOfObject(value as KubeObject);
  }
  return tree;
}

/**
 * The live object without the fields the applier set and the manifest no longer declares (what an
 * apply of the manifest would remove), and how many were found. Diffing the live object against
 * this copy yields exactly those fields, with the diff's own path and secret handling.
 */
export function withoutRemovedFields(
  live: KubeObject,
  manifest: KubeObject,
  applied: AppliedFields,
): { pruned: KubeObject; removed: number } {
  const pruned = structuredClone(live);
  const counter = { removed: 0 };
  pruneObject(applied.tree, declaredView(manifest), pruned, [], counter);
  return { pruned, removed: counter.removed };
}

/** A Secret's `stringData` keys are its `data` keys once the server folds them. */
function declaredView(manifest: KubeObject): KubeObject {
  if (manifest.kind !== 'Secret' || !isPlainObject(manifest.stringData)) return manifest;
  const data = isPlainObject(manifest.data) ? manifest.data : {};
  return { ...manifest, data: { ...manifest.stringData, ...data } };
}

function pruneObject(
  tree: FieldsTree,
  declared: JsonValue | undefined,
  live: KubeObject,
  path: string[],
  counter: { removed: number },
): void {
  const declaredObject = isPlainObject(declared) ? declared : undefined;
  for (const [key, children] of Object.entries(tree)) {
    if (!key.startsWith('f:')) continue;
    const field = key.slice(2);
    if (!Object.hasOwn(live, field)) continue;
    const here = [...path, key];
    if (IDENTITY_PATHS.has(here.join('/'))) continue;
    const declaredChild = declaredObject?.[field];
    const liveChild = live[field];
    const owned = ownsParts(children);
    if ((declaredChild === undefined || declaredChild === null) && !owned) {
      // A leaf: the applier set this whole field, and Git no longer sets it.
      delete live[field];
      counter.removed += 1;
      continue;
    }
    // A map or list the applier set parts of: only those parts go (other managers' keys stay).
    if (isPlainObject(liveChild))
      pruneObject(children, declaredChild, liveChild as KubeObject, here, counter);
    else if (Array.isArray(liveChild)) pruneList(children, declaredChild, liveChild, here, counter);
  }
}

/** Whether a fields node lists owned children (`f:`, `k:`, `v:`, `i:`), not only itself (`.`). */
function ownsParts(tree: FieldsTree): boolean {
  return Object.keys(tree).some((key) => key !== '.');
}

function pruneList(
  tree: FieldsTree,
  declared: JsonValue | undefined,
  live: JsonValue[],
  path: string[],
  counter: { removed: number },
): void {
  const declaredList = Array.isArray(declared) ? declared : [];
  const drop = new Set<number>();
  for (const [key, children] of Object.entries(tree)) {
    if (key.startsWith('k:')) {
      const keys = parseJson(key.slice(2));
      if (!isPlainObject(keys)) continue;
      const liveIndex = live.findIndex((element) => matchesKeys(element, keys));
      if (liveIndex < 0) continue;
      const declaredElement = declaredList.find((element) => matchesKeys(element, keys));
      if (declaredElement === undefined) {
        drop.add(liveIndex);
        continue;
      }
      const liveElement = live[liveIndex];
      if (isPlainObject(liveElement))
        pruneObject(children, declaredElement, liveElement as KubeObject, [...path, key], counter);
    } else if (key.startsWith('v:')) {
      const value = parseJson(key.slice(2));
      if (value === undefined) continue;
      const liveIndex = live.findIndex((element) => deepEqual(element, value));
      if (liveIndex >= 0 && !declaredList.some((element) => deepEqual(element, value))) drop.add(liveIndex);
    }
    // `i:<n>` (a plain list owned by position) is left alone: a position says nothing about which
    // element Git removed.
  }
  if (drop.size === 0) return;
  counter.removed += drop.size;
  const kept = live.filter((_, index) => !drop.has(index));
  live.splice(0, live.length, ...kept);
}

/**
 * A list-map key matches when every key value is equal; the server writes a key it defaulted
 * (`protocol: TCP`) even when the manifest left it out, so an absent key in the manifest's element
 * counts as a match.
 */
function matchesKeys(element: JsonValue, keys: KubeObject): boolean {
  if (!isPlainObject(element)) return false;
  const entries = Object.entries(keys);
  if (!entries.some(([name]) => element[name] !== undefined)) return false;
  return entries.every(
    ([name, value]) => element[name] === undefined || deepEqual(element[name], value as JsonValue),
  );
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The manager the HorizontalPodAutoscaler controller writes as (it runs in kube-controller-manager). */
export const AUTOSCALER_MANAGER = 'kube-controller-manager';

/**
 * Whether `spec.replicas` of the live object is set by an autoscaler rather than by Git: an
 * `Update` entry owns it through the `scale` subresource or as kube-controller-manager (the HPA).
 * Argo CD's documentation asks to leave `replicas` to the HPA for the same reason; a replica count
 * that differs from Git's is then the autoscaler working, not drift.
 */
export function replicasOwnedByAutoscaler(live: KubeObject): boolean {
  const metadata = isPlainObject(live.metadata) ? live.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields : [];
  return entries.some((entry) => {
    if (!isPlainObject(entry) || entry.operation !== 'Update') return false;
    if (entry.subresource !== 'scale' && entry.manager !== AUTOSCALER_MANAGER) return false;
    const spec = isPlainObject(entry.fieldsV1) ? entry.fieldsV1['f:spec'] : undefined;
    return isPlainObject(spec) && Object.hasOwn(spec, 'f:replicas');
  });
}

/**
 * Both sides without the fields the named managers own in the live object's `managedFields` where
 * the two sides hold different values (Argo CD's `managedFieldsManagers`, argo-cd
 * util/argo/managedfields: the manager's field set intersected with the comparison's modified
 * fields, removed from desired and live). A field only one side has is not "modified" and stays.
 * Every entry of a named manager counts, whatever its operation or subresource.
 */
export function withoutFieldsOwnedBy<Sides extends { desired: KubeObject; live: KubeObject }>(
  sides: Sides,
  managers: readonly string[],
): Sides {
  const metadata = isPlainObject(sides.live.metadata) ? sides.live.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields : [];
  const trees = entries.flatMap((entry) =>
    isPlainObject(entry) &&
    typeof entry.manager === 'string' &&
    managers.includes(entry.manager) &&
    isPlainObject(entry.fieldsV1)
      ? [asTree(entry.fieldsV1)]
      : [],
  );
  if (trees.length === 0) return sides;
  const desired = structuredClone(sides.desired);
  const live = structuredClone(sides.live);
  for (const tree of trees) removeModifiedFields(tree, desired, live);
  return { ...sides, desired, live };
}

/** A fields node that owns a value as a whole (`f:replicas: {}`, an atomic list), not parts of it. */
function isLeaf(tree: FieldsTree): boolean {
  return !ownsParts(tree);
}

function removeModifiedFields(tree: FieldsTree, desired: KubeObject, live: KubeObject): void {
  for (const [key, children] of Object.entries(tree)) {
    if (!key.startsWith('f:')) continue;
    const field = key.slice(2);
    const desiredChild = desired[field];
    const liveChild = live[field];
    // Present on one side only: added or removed, not modified.
    if (desiredChild === undefined || liveChild === undefined) continue;
    if (isLeaf(children) || !sameContainer(desiredChild, liveChild)) {
      if (!deepEqual(desiredChild, liveChild)) {
        delete desired[field];
        delete live[field];
      }
    } else if (isPlainObject(desiredChild))
      removeModifiedFields(children, desiredChild, liveChild as KubeObject);
    else removeModifiedInList(children, desiredChild as JsonValue[], liveChild as JsonValue[]);
  }
}

function sameContainer(a: JsonValue, b: JsonValue): boolean {
  return (isPlainObject(a) && isPlainObject(b)) || (Array.isArray(a) && Array.isArray(b));
}

/** Inside a list: elements by their keys (`k:`) or position (`i:`); set values (`v:`) never differ. */
function removeModifiedInList(tree: FieldsTree, desired: JsonValue[], live: JsonValue[]): void {
  for (const [key, children] of Object.entries(tree)) {
    let pair: [JsonValue | undefined, JsonValue | undefined] | undefined;
    if (key.startsWith('k:')) {
      const keys = parseJson(key.slice(2));
      if (!isPlainObject(keys)) continue;
      pair = [
        desired.find((element) => matchesKeys(element, keys)),
        live.find((element) => matchesKeys(element, keys)),
      ];
    } else if (key.startsWith('i:')) {
      const index = Number(key.slice(2));
      pair = [desired[index], live[index]];
    }
    if (pair === undefined) continue;
    const [desiredElement, liveElement] = pair;
    // An element's own fields: removing a whole element would renumber the list.
    if (isPlainObject(desiredElement) && isPlainObject(liveElement))
      removeModifiedFields(children, desiredElement, liveElement);
  }
}
