import type { AttributeChange, JsonValue } from '../findings/model.js';
import {
  containsCredential,
  isSensitiveName,
  type SensitiveHasher,
  secretCommandMembers,
} from '../redaction/secrets.js';
import { formatPath } from '../terraform/attribute-path.js';
import { deepEqual } from '../terraform/json-values.js';
import { isPlainObject, type KubeObject } from './kube-object.js';
import { isSecret } from './normalize.js';
import { quantitiesEqual } from './quantity.js';

/**
 * Field-level differences between the desired and the live version of one Kubernetes object, as
 * finding changes (`before` = desired, `after` = live, like Terraform drift's declared → actual).
 *
 * - `full`: every field of both sides (Argo CD's predicted live state already holds the server's
 *   defaults, so anything that differs is drift);
 * - `declared`: only the fields the desired manifest sets (a rendered manifest omits the defaults
 *   the server fills in, and those are not drift).
 *
 * Lists of named things (containers, env, volumes, ports) are matched by name, so one inserted
 * element does not shift every other one into a change. Secret data, env values under secret names
 * and secret-looking keys leave this module only as `(sensitive:<hash>)`.
 */

export type DiffMode = 'full' | 'declared';

export interface ObjectDiffOptions {
  mode: DiffMode;
  hashSensitive: SensitiveHasher;
  /** What the cluster's schema says about a path; where it answers, the name tables below are not used. */
  schema?: DiffSchema;
}

export type Segment = string | number;

/** Answers from the cluster's OpenAPI schema of the object's kind (openapi-normalizer.ts). */
export interface DiffSchema {
  /**
   * The keys that identify an element of the list at this path (`x-kubernetes-list-map-keys`), []
   * for a set or atomic list, undefined when the schema does not describe the path.
   */
  listKeys(path: readonly Segment[]): readonly string[] | undefined;
  /** Whether the value at this path is a resource.Quantity; undefined when the schema does not say. */
  isQuantity(path: readonly Segment[]): boolean | undefined;
  /** Whether the server drops an empty string here (a field, not a map entry): "" and absent agree. */
  emptyIsAbsent(path: readonly Segment[]): boolean;
  /** Whether the list at this path is a set (`x-kubernetes-list-type: set`); undefined when the schema does not say. */
  isSet(path: readonly Segment[]): boolean | undefined;
}

/** Without a schema: lists whose elements are identified by a key, with the keys to try in order. */
const KEYED_LISTS: Readonly<Record<string, readonly string[]>> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  ports: ['name', 'containerPort', 'port'],
  imagePullSecrets: ['name'],
  hostAliases: ['ip'],
};

/** Kubernetes field names that contain a secret word but hold references, not secrets. */
const SECRET_REFERENCES: ReadonlySet<string> = new Set([
  'secret',
  'secrets',
  'secretName',
  'secretRef',
  'secretKeyRef',
  'imagePullSecrets',
  'automountServiceAccountToken',
  'serviceAccountToken',
  'expirationSeconds',
]);

/**
 * The sets of every object (ObjectMeta `finalizers` is `+listType=set`), with or without a schema
 * (a server may publish finalizers with only `x-kubernetes-patch-strategy: merge`): a controller adds
 * its finalizer, and anyone may reorder them.
 */
const SET_PATHS: ReadonlySet<string> = new Set(['metadata.finalizers']);

/** Without a schema: parents whose values are resource quantities (`500m` = `0.5`, `1Gi` = `1024Mi`). */
const QUANTITY_PARENTS: ReadonlySet<string> = new Set(['limits', 'requests', 'hard', 'capacity']);

interface DiffState {
  readonly options: ObjectDiffOptions;
  readonly secret: boolean;
  readonly out: AttributeChange[];
}

export function diffKubeObjects(
  desired: KubeObject,
  live: KubeObject,
  options: ObjectDiffOptions,
): AttributeChange[] {
  const state: DiffState = { options, secret: isSecret(desired) || isSecret(live), out: [] };
  diffNode(state, [], desired, live, false);
  return state.out;
}

function isSecretKey(key: string): boolean {
  return !SECRET_REFERENCES.has(key) && isSensitiveName(key);
}

/**
 * Secret data, a ConfigMap's binaryData, and any value whose own key looks secret. binaryData is
 * base64 of bytes nobody reads in a finding, and what it holds (keystores, certificates with their
 * keys, kubeconfigs) is often secret, unseen by the value rules that read text: shown by hash only.
 */
function isSensitiveAt(state: DiffState, path: readonly Segment[]): boolean {
  const top = path[0];
  if (state.secret && (top === 'data' || top === 'stringData')) return true;
  if (top === 'binaryData') return true;
  const last = path[path.length - 1];
  return typeof last === 'string' && isSecretKey(last);
}

function diffNode(
  state: DiffState,
  path: Segment[],
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  sensitive: boolean,
  secretEntry = false,
): void {
  const secretHere = sensitive || isSensitiveAt(state, path);
  if (isAbsent(desired) && isAbsent(live)) return;
  // A null in a manifest (a chart's empty `annotations:`) declares nothing: server-side apply drops
  // it where the applier owns nothing, so what other managers wrote there stays, and Argo CD's diff
  // drops it too. A field the applier owned and Git now leaves null is a removal (managed-fields.ts).
  if (desired === null && state.options.mode === 'declared') return;
  if (emptyMeetsAbsent(desired, live) && state.options.schema?.emptyIsAbsent(path)) return;
  if (isPlainObject(desired) && isPlainObject(live)) {
    diffObjects(state, path, desired, live, secretHere, secretEntry);
    return;
  }
  if (Array.isArray(desired) && Array.isArray(live)) {
    diffLists(state, path, desired, live, secretHere);
    return;
  }
  if (scalarsEqual(state, path, desired, live)) return;
  emit(state, path, desired, live, secretHere);
}

/** `secretEntry`: a named entry (an env variable) whose name looks secret, so its `value` is one. */
function diffObjects(
  state: DiffState,
  path: Segment[],
  desired: KubeObject,
  live: KubeObject,
  sensitive: boolean,
  secretEntry: boolean,
): void {
  // `command: ["mysql"]` with `args: ["-pS3cret"]`: the command line is secret, not either list.
  const secretCommand = secretCommandMembers(desired, live);
  const secretMember = (key: string) =>
    sensitive || (secretEntry && key === 'value') || secretCommand.has(key);
  for (const key of Object.keys(desired)) {
    path.push(key);
    diffNode(state, path, desired[key], live[key], secretMember(key));
    path.pop();
  }
  if (state.options.mode === 'declared') return;
  for (const key of Object.keys(live)) {
    if (Object.hasOwn(desired, key)) continue;
    path.push(key);
    diffNode(state, path, undefined, live[key], secretMember(key));
    path.pop();
  }
}

function diffLists(
  state: DiffState,
  path: Segment[],
  desired: JsonValue[],
  live: JsonValue[],
  sensitive: boolean,
): void {
  const keys = listKeys(state, path, desired, live);
  if (keys !== undefined) {
    diffKeyedList(state, path, keys, desired, live, sensitive);
    return;
  }
  if (isSetList(state, path)) {
    // Server-side apply merges a set's values from every manager, in any order: in declared mode
    // Git's values must be there (one Git removed is found from what the applier owned).
    const contains = (list: JsonValue[], values: JsonValue[]) =>
      values.every((value) => list.some((element) => deepEqual(element, value)));
    const same = contains(live, desired) && (state.options.mode === 'declared' || contains(desired, live));
    if (!same) emit(state, path, desired, live, sensitive);
    return;
  }
  const sameShape =
    desired.length === live.length && desired.every(isPlainObject) && live.every(isPlainObject);
  if (sameShape) {
    for (const [index, element] of desired.entries()) {
      path.push(index);
      diffNode(state, path, element, live[index], sensitive);
      path.pop();
    }
    return;
  }
  if (!deepEqual(desired, live)) emit(state, path, desired, live, sensitive);
}

/**
 * The keys of a list of named things: the schema's `x-kubernetes-list-map-keys` when it knows the
 * path, else the first name-table key every element of both lists has; undefined otherwise.
 */
function listKeys(
  state: DiffState,
  path: readonly Segment[],
  desired: JsonValue[],
  live: JsonValue[],
): readonly string[] | undefined {
  const elements = [...desired, ...live];
  const fromSchema = state.options.schema?.listKeys(path);
  if (fromSchema !== undefined) {
    const keyed = fromSchema.length > 0 && elements.every(isPlainObject);
    return keyed ? fromSchema : undefined;
  }
  const field = path[path.length - 1];
  const candidates = typeof field === 'string' ? KEYED_LISTS[field] : undefined;
  if (candidates === undefined) return undefined;
  // A key must identify one element per side: ports 53/TCP and 53/UDP share `containerPort`.
  const key = candidates.find(
    (candidate) =>
      elements.every((element) => isPlainObject(element) && isScalar(element[candidate])) &&
      unique(desired, candidate) &&
      unique(live, candidate),
  );
  return key === undefined ? undefined : [key];
}

/** A set by the schema, or one ObjectMeta declares whatever a server's published schema says. */
function isSetList(state: DiffState, path: readonly Segment[]): boolean {
  return state.options.schema?.isSet(path) === true || SET_PATHS.has(path.join('.'));
}

function unique(list: JsonValue[], key: string): boolean {
  const seen = new Set(list.map((element) => (isPlainObject(element) ? element[key] : undefined)));
  return seen.size === list.length;
}

/** One element's identity under composite keys (a port is `containerPort` + `protocol`). */
function elementId(element: KubeObject, keys: readonly string[]): string {
  return JSON.stringify(keys.map((key) => element[key] ?? null));
}

function diffKeyedList(
  state: DiffState,
  path: Segment[],
  keys: readonly string[],
  desired: JsonValue[],
  live: JsonValue[],
  sensitive: boolean,
): void {
  const liveByKey = new Map<string, { index: number; element: KubeObject }>();
  live.forEach((element, index) => {
    if (isPlainObject(element)) liveByKey.set(elementId(element, keys), { index, element });
  });
  const matched = new Set<string>();
  for (const [index, element] of desired.entries()) {
    if (!isPlainObject(element)) continue;
    const id = elementId(element, keys);
    matched.add(id);
    path.push(index);
    // An env entry named DB_PASSWORD holds a secret in its `value`, whatever that field is called.
    diffNode(state, path, element, liveByKey.get(id)?.element, sensitive, isSecretEntry(element));
    path.pop();
  }
  if (state.options.mode === 'declared') return;
  for (const [id, { index, element }] of liveByKey) {
    if (matched.has(id)) continue;
    path.push(index);
    diffNode(state, path, undefined, element, sensitive, isSecretEntry(element));
    path.pop();
  }
}

function isSecretEntry(element: KubeObject): boolean {
  return typeof element.name === 'string' && isSecretKey(element.name);
}

function emit(
  state: DiffState,
  path: readonly Segment[],
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  sensitive: boolean,
): void {
  const hash = state.options.hashSensitive;
  const before = desired ?? null;
  const after = live ?? null;
  if (sensitive || isCredentialText(before) || isCredentialText(after)) {
    state.out.push({
      path: formatPath(path),
      before: hashUnlessNull(before, hash),
      after: hashUnlessNull(after, hash),
      sensitive: true,
    });
    return;
  }
  // A whole block keeps its shape; a secret inside it is hashed, and the change is marked sensitive.
  const redacted = { count: 0 };
  const change = {
    path: formatPath(path),
    before: redactNested(state, path, before, redacted),
    after: redactNested(state, path, after, redacted),
    sensitive: false,
  };
  change.sensitive = redacted.count > 0;
  state.out.push(change);
}

/** A string value holding a credential (`postgres://u:p@db`, a token): hashed whole wherever it sits. */
function isCredentialText(value: JsonValue | undefined): boolean {
  return typeof value === 'string' && containsCredential(value);
}

function hashUnlessNull(value: JsonValue, hash: SensitiveHasher): JsonValue {
  return value === null ? null : hash(value);
}

/** A whole element or block that holds a secret somewhere inside keeps its shape, not the secret. */
function redactNested(
  state: DiffState,
  path: readonly Segment[],
  value: JsonValue,
  redacted: { count: number },
): JsonValue {
  if (Array.isArray(value))
    return value.map((element, index) => redactNested(state, [...path, index], element, redacted));
  if (isCredentialText(value)) {
    redacted.count++;
    return state.options.hashSensitive(value);
  }
  if (!isPlainObject(value)) return value;
  const secretEntry = isSecretEntry(value);
  const secretCommand = secretCommandMembers(value);
  const result: KubeObject = {};
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, key];
    if (isSensitiveAt(state, childPath) || (secretEntry && key === 'value') || secretCommand.has(key)) {
      redacted.count++;
      result[key] = hashUnlessNull(child, state.options.hashSensitive);
    } else result[key] = redactNested(state, childPath, child, redacted);
  }
  return result;
}

/** Absent, null, and empty maps or lists are one declaration: "nothing here". */
function isAbsent(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** One side an empty string, the other nothing at all. */
function emptyMeetsAbsent(desired: JsonValue | undefined, live: JsonValue | undefined): boolean {
  return (desired === '' && isAbsent(live)) || (live === '' && isAbsent(desired));
}

function isScalar(value: JsonValue | undefined): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function scalarsEqual(
  state: DiffState,
  path: readonly Segment[],
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
) {
  if (desired === live) return true;
  if (!isScalar(desired) || !isScalar(live)) return false;
  const parent = path[path.length - 2];
  const quantity =
    state.options.schema?.isQuantity(path) ?? (typeof parent === 'string' && QUANTITY_PARENTS.has(parent));
  return quantity && quantitiesEqual(desired, live);
}
