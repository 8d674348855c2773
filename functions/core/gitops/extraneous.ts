import type { ArgoApplication } from './argo-api.js';
import { ignoresExtraneous } from './argo-options.js';
import { isHook } from './hooks.js';
import {
  identityOf,
  type KubeObject,
  lookupKey,
  metadataOf,
  type ObjectIdentity,
  sameObject,
} from './kube-object.js';
import { type ArgoTracking, argoApplicationOf, argoAppName } from './tracking.js';

/**
 * Live objects an application's tracking claims that its render no longer has (Argo CD's
 * "requires pruning" / extraneous resources): Git removed them, the cluster kept them. Direct mode
 * lists them (kubernetes-client.ts `listObjects`) and this module decides, as Argo CD's
 * `GetAppName` + `IgnoreExtraneous` do:
 * - only objects whose tracking names one of the render's applications, read under the instance's
 *   tracking method (the `app.kubernetes.io/instance` label alone proves nothing with annotation
 *   tracking: Helm sets it on every release's objects);
 * - not objects annotated `argocd.argoproj.io/compare-options: IgnoreExtraneous`;
 * - not objects owned by another object (`ownerReferences`: a ReplicaSet of a Deployment copies the
 *   pod template's labels, it is the controller's, not Git's).
 */

/** What to list: the kinds and namespaces of the render (and of its Applications' managed resources). */
export interface ListTarget {
  apiVersion: string;
  kind: string;
  namespace?: string;
}

/**
 * Kinds listed even when the render has none of them: the kinds a Git change most often leaves
 * behind (a ConfigMap or Secret renamed by a generator hash, a Service or Ingress dropped with its
 * app). Kept short because every kind costs one LIST per namespace; the render's own kinds are
 * always listed.
 */
export const DEFAULT_EXTRANEOUS_KINDS: readonly { apiVersion: string; kind: string }[] = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
];

/**
 * One LIST per kind and namespace of the render, plus the default kinds in the render's namespaces,
 * plus `managed`: the kinds and namespaces the tracking Applications list (managedListTargets).
 */
export function listTargets(
  rendered: readonly KubeObject[],
  managed: readonly ListTarget[] = [],
): ListTarget[] {
  const targets = new Map<string, ListTarget>();
  const namespaces = new Set<string>();
  const add = (target: ListTarget) =>
    targets.set(`${target.apiVersion}|${target.kind}|${target.namespace ?? ''}`, target);
  for (const object of rendered) {
    const identity = identityOf(object);
    if (identity === undefined) continue;
    if (identity.namespace !== undefined) namespaces.add(identity.namespace);
    add({
      apiVersion: String(object.apiVersion),
      kind: identity.kind,
      ...(identity.namespace === undefined ? {} : { namespace: identity.namespace }),
    });
  }
  for (const namespace of namespaces)
    for (const kind of DEFAULT_EXTRANEOUS_KINDS) add({ ...kind, namespace });
  for (const target of managed) add(target);
  return [...targets.values()];
}

/**
 * The kinds and namespaces an Application manages, from its `status.resources` (argo-cd
 * pkg/apis/application/v1alpha1/types.go `ResourceStatus`: group, version, kind, namespace, name,
 * each `omitempty`; the core group is empty, a cluster-scoped resource has no namespace). Argo CD
 * keeps an object there until it is pruned (`requiresPruning`), so a kind Git dropped entirely is
 * still listed: its leftovers are found even though the render has no object of that kind. An
 * entry without a version cannot be listed and is left out.
 */
export function managedListTargets(application: ArgoApplication | undefined): ListTarget[] {
  return (application?.status?.resources ?? []).flatMap((resource) => {
    if (!resource.version) return [];
    return [
      {
        apiVersion: resource.group ? `${resource.group}/${resource.version}` : resource.version,
        kind: resource.kind,
        ...(resource.namespace ? { namespace: resource.namespace } : {}),
      },
    ];
  });
}

/**
 * The render with each object's namespace as the cluster resolved it. An object the render leaves
 * without `metadata.namespace` (a kustomization without `namespace:`) is read and applied in the
 * kubeconfig context's default namespace: its live object says which, and the same namespace holds
 * every other such object, so it is listed there (not cluster-wide, and with the default kinds).
 * `liveIdentity` is the live object's identity, undefined when it was not read (missing, failed);
 * a live object without a namespace is cluster-scoped and stays so.
 */
export function withResolvedNamespaces(
  rendered: readonly KubeObject[],
  liveIdentity: (object: KubeObject) => ObjectIdentity | undefined,
): KubeObject[] {
  const unset = rendered.filter(
    (object) => identityOf(object) !== undefined && identityOf(object)?.namespace === undefined,
  );
  const defaultNamespace = unset
    .map((object) => liveIdentity(object)?.namespace)
    .find((namespace) => namespace !== undefined);
  return rendered.map((object) => {
    if (!unset.includes(object)) return object;
    const live = liveIdentity(object);
    const namespace = live === undefined ? defaultNamespace : live.namespace;
    if (namespace === undefined) return object;
    return { ...object, metadata: { ...metadataOf(object), namespace } };
  });
}

export interface ExtraneousObject {
  identity: ObjectIdentity;
  app: string;
  /** The application's namespace when its tracking names one (Argo CD's apps in any namespace). */
  appNamespace?: string;
  object: KubeObject;
}

/**
 * The label selectors that list the objects of these applications (names as findings give them,
 * argoAppName) under label tracking: the instance label holds Argo CD's instance name,
 * `<namespace>_<name>` for `<namespace>/<name>` (a label value cannot hold '/').
 */
export function instanceLabelSelectors(apps: Iterable<string>, tracking: ArgoTracking): string[] {
  return [...apps].map((app) => `${tracking.labelKey}=${app.replace('/', '_')}`);
}

/** The listed objects an application of the render tracks but the render does not contain. */
export function extraneousObjects(
  listed: readonly KubeObject[],
  rendered: readonly ObjectIdentity[],
  apps: ReadonlySet<string>,
  tracking: ArgoTracking,
): ExtraneousObject[] {
  const renderedByKey = new Map<string, ObjectIdentity[]>();
  for (const identity of rendered) {
    const key = lookupKey(identity);
    renderedByKey.set(key, [...(renderedByKey.get(key) ?? []), identity]);
  }
  const seen = new Set<string>();
  const result: ExtraneousObject[] = [];
  for (const object of listed) {
    const identity = identityOf(object);
    if (identity === undefined) continue;
    const id = `${lookupKey(identity)}|${identity.namespace ?? ''}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (renderedByKey.get(lookupKey(identity))?.some((other) => sameObject(other, identity))) continue;
    const owner = argoApplicationOf(object, identity, tracking);
    // `apps` holds the names findings use (argoAppName), as the render's tracked objects carry them.
    if (owner === undefined || !apps.has(argoAppName(owner))) continue;
    if (ignoresExtraneous(object)) continue;
    // A hook left by its delete policy is not extraneous (Argo CD neither prunes nor reports it).
    if (isHook(object)) continue;
    const metadata = object.metadata as { ownerReferences?: unknown } | undefined;
    if (Array.isArray(metadata?.ownerReferences) && metadata.ownerReferences.length > 0) continue;
    result.push({
      identity,
      app: owner.app,
      ...(owner.appNamespace ? { appNamespace: owner.appNamespace } : {}),
      object,
    });
  }
  return result;
}
