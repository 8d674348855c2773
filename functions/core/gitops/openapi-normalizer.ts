import type { JsonValue } from '../findings/model.js';
import { isPlainObject, type KubeObject } from './kube-object.js';
import type { DiffSchema, Segment } from './object-diff.js';

/**
 * The fallback when the API server will not dry-run an apply: the cluster's own OpenAPI v3 schema of
 * a kind (`GET /openapi/v3/apis/<group>/<version>`) says how to compare a manifest with the live
 * object, instead of tables kept by hand:
 * - lists: `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` (ports are keyed by
 *   `containerPort` + `protocol`), `set` lists by their values in any order (a controller's
 *   finalizer added to Git's is no drift), `atomic` lists compared whole; strategic-merge
 *   `x-kubernetes-patch-merge-key` where an older server publishes no list type;
 * - a list-map key the manifest omits takes the schema's `default` (`protocol: TCP`), as the
 *   server does before it merges by key; other defaults are not filled: a field the manifest
 *   does not set is not compared in this mode, so a server default can never be drift;
 * - quantities (`io.k8s.apimachinery.pkg.api.resource.Quantity`, or a CRD's
 *   `x-kubernetes-int-or-string` with the quantity pattern) compare by value (`0.5` = `500m`);
 *   other int-or-string values keep their type, as the server does (`8080` is not `"8080"`);
 * - empty strings: a built-in kind's field that is "" is dropped by the server (Go omitempty), so
 *   "" and absent agree there; a map entry (`Secret data: {k: ""}`) keeps its "", and a null map
 *   entry of a string map is stored as "" (how the server decodes it).
 */

type SchemaNode = KubeObject;

export interface SchemaView extends DiffSchema {
  /** The schema's name, e.g. `io.k8s.api.apps.v1.Deployment`, for evidence. */
  readonly name: string;
  /** The manifest as the server would read it before merging: list-map keys defaulted, null string-map entries "". */
  prepareDesired(desired: KubeObject): KubeObject;
}

const REF_PREFIX = '#/components/schemas/';
const QUANTITY_SCHEMA = /(^|\.)api\.resource\.Quantity$/;
/** controller-gen's pattern for resource.Quantity fields of CRDs (anyOf integer/string). */
const QUANTITY_PATTERN_HINT = /\[KMGTPE\]i/;

/** The schema view of one kind in a group-version document; undefined when the document does not describe it. */
export function createSchemaView(
  document: unknown,
  apiVersion: string,
  kind: string,
): SchemaView | undefined {
  const listed =
    isPlainObject(document) && isPlainObject(document.components) ? document.components.schemas : undefined;
  if (!isPlainObject(listed)) return undefined;
  const schemas: KubeObject = listed;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const rootName = Object.keys(schemas).find((name) => {
    const node = schemas[name];
    const gvks = isPlainObject(node) ? node['x-kubernetes-group-version-kind'] : undefined;
    return (
      Array.isArray(gvks) &&
      gvks.some(
        (gvk) => isPlainObject(gvk) && gvk.group === group && gvk.version === version && gvk.kind === kind,
      )
    );
  });
  if (rootName === undefined) return undefined;
  const root = schemas[rootName] as SchemaNode;
  // CRD schemas are stored as written: only built-in kinds drop empty strings.
  const builtIn = rootName.startsWith('io.k8s.');

  /** The referenced schema's name of a node (`$ref`, or kube-openapi's `allOf: [{$ref}]` envelope). */
  function refName(node: SchemaNode): string | undefined {
    const direct = typeof node.$ref === 'string' ? node.$ref : undefined;
    const allOf = Array.isArray(node.allOf) && node.allOf.length === 1 ? node.allOf[0] : undefined;
    const wrapped = isPlainObject(allOf) && typeof allOf.$ref === 'string' ? allOf.$ref : undefined;
    const ref = direct ?? wrapped;
    return ref?.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
  }

  /** A node with its reference followed; the node's own keys (default, list type) win. */
  function resolve(node: JsonValue | undefined, depth = 0): SchemaNode | undefined {
    if (!isPlainObject(node)) return undefined;
    const name = refName(node);
    if (name === undefined || depth > 16) return node;
    const target = resolve(schemas[name], depth + 1);
    const { $ref: _ref, allOf: _allOf, ...own } = node;
    return { ...target, ...own };
  }

  interface Located {
    raw: SchemaNode;
    node: SchemaNode;
    /** How the last step was taken: a named field, a map entry, or a list element. */
    step: 'root' | 'field' | 'entry' | 'element';
  }

  function locate(path: readonly Segment[]): Located | undefined {
    let located: Located = { raw: root, node: root, step: 'root' };
    for (const segment of path) {
      const { node } = located;
      let raw: JsonValue | undefined;
      let step: Located['step'];
      if (typeof segment === 'number') {
        raw = node.items;
        step = 'element';
      } else if (isPlainObject(node.properties) && Object.hasOwn(node.properties, segment)) {
        raw = node.properties[segment];
        step = 'field';
      } else {
        raw = isPlainObject(node.additionalProperties) ? node.additionalProperties : undefined;
        step = 'entry';
      }
      const next = resolve(raw);
      if (!isPlainObject(raw) || next === undefined) return undefined;
      located = { raw, node: next, step };
    }
    return located;
  }

  function listKeysOf(node: SchemaNode): readonly string[] {
    const listType = node['x-kubernetes-list-type'];
    if (listType === 'map') {
      const keys = node['x-kubernetes-list-map-keys'];
      return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
    }
    if (listType === 'set' || listType === 'atomic') return [];
    const mergeKey = node['x-kubernetes-patch-merge-key'];
    return typeof mergeKey === 'string' ? [mergeKey] : [];
  }

  function isQuantityNode(located: Located): boolean {
    const name = refName(located.raw);
    if (name !== undefined && QUANTITY_SCHEMA.test(name)) return true;
    const node = located.node;
    return (
      node['x-kubernetes-int-or-string'] === true &&
      typeof node.pattern === 'string' &&
      QUANTITY_PATTERN_HINT.test(node.pattern)
    );
  }

  /** Fills list-map keys from defaults and null string-map entries, walking what the manifest declares. */
  function prepare(value: JsonValue, path: Segment[]): JsonValue {
    const located = locate(path);
    if (Array.isArray(value)) {
      const keys = located ? listKeysOf(located.node) : [];
      const item = located ? resolve(located.node.items) : undefined;
      return value.map((element, index) => {
        path.push(index);
        let prepared = prepare(element, path);
        path.pop();
        if (isPlainObject(prepared) && item && isPlainObject(item.properties)) {
          const properties = item.properties;
          for (const key of keys) {
            const fallback = resolve(properties[key])?.default;
            if (prepared[key] === undefined && fallback !== undefined && fallback !== null)
              prepared = { ...prepared, [key]: fallback };
          }
        }
        return prepared;
      });
    }
    if (!isPlainObject(value)) return value;
    const entry =
      located && isPlainObject(located.node.additionalProperties)
        ? resolve(located.node.additionalProperties)
        : undefined;
    const stringMap = entry?.type === 'string' && !(located && isPlainObject(located.node.properties));
    const result: KubeObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (child === null && stringMap) {
        result[key] = '';
        continue;
      }
      path.push(key);
      result[key] = prepare(child, path);
      path.pop();
    }
    return result;
  }

  return {
    name: rootName,
    listKeys(path) {
      const located = locate(path);
      return located ? listKeysOf(located.node) : undefined;
    },
    isQuantity(path) {
      const located = locate(path);
      return located ? isQuantityNode(located) : undefined;
    },
    isSet(path) {
      const located = locate(path);
      return located ? located.node['x-kubernetes-list-type'] === 'set' : undefined;
    },
    emptyIsAbsent(path) {
      if (!builtIn) return false;
      return locate(path)?.step === 'field';
    },
    prepareDesired(desired) {
      return prepare(desired, []) as KubeObject;
    },
  };
}
