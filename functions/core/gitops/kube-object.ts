import type { ClusterResourceRef, JsonValue } from '../findings/model.js';
import { nonEmptyString } from '../terraform/json-values.js';
// tracking.ts imports this module too: both use each other's bindings inside functions only.
import { type ArgoTracking, argoApplicationOf, argoAppName, DEFAULT_TRACKING } from './tracking.js';

/** A Kubernetes object as JSON (a rendered manifest, a live object, an Argo CD state string parsed). */
export type KubeObject = { [key: string]: JsonValue };

/** What identifies an object in a cluster; `group` is '' for the core API (Service, Secret...). */
export interface ObjectIdentity {
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}

export const TRACKING_ID_ANNOTATION = 'argocd.argoproj.io/tracking-id';
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const HELM_RELEASE_NAME_ANNOTATION = 'meta.helm.sh/release-name';
export const HELM_RELEASE_NAMESPACE_ANNOTATION = 'meta.helm.sh/release-namespace';

export function isPlainObject(value: unknown): value is KubeObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `apps/v1` → `apps`, `v1` → '' (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function metadataOf(object: KubeObject): KubeObject {
  const metadata = object.metadata;
  return isPlainObject(metadata) ? metadata : {};
}

/** Labels or annotations as a string map (non-string values are not labels and are skipped). */
export function stringMap(object: KubeObject, key: 'labels' | 'annotations'): Record<string, string> {
  const map = metadataOf(object)[key];
  const result: Record<string, string> = {};
  if (!isPlainObject(map)) return result;
  for (const [name, value] of Object.entries(map)) if (typeof value === 'string') result[name] = value;
  return result;
}

/** The identity of a manifest or live object; undefined when it lacks apiVersion, kind or name. */
export function identityOf(object: KubeObject): ObjectIdentity | undefined {
  const apiVersion = nonEmptyString(object.apiVersion);
  const kind = nonEmptyString(object.kind);
  const metadata = metadataOf(object);
  const name = nonEmptyString(metadata.name);
  if (apiVersion === undefined || kind === undefined || name === undefined) return undefined;
  const namespace = nonEmptyString(metadata.namespace);
  return { group: groupOf(apiVersion), kind, name, ...(namespace === undefined ? {} : { namespace }) };
}

/** The finding's resource: an object, and the Argo CD application that manages it when known. */
export function resourceRef(identity: ObjectIdentity, app?: string): ClusterResourceRef {
  const ref: ClusterResourceRef = { group: identity.group, kind: identity.kind, name: identity.name };
  if (app !== undefined) ref.app = app;
  if (identity.namespace !== undefined) ref.namespace = identity.namespace;
  return ref;
}

/** `Deployment payments/api`, `apps/Deployment`-free wording for titles and details. */
export function describeObject(identity: ObjectIdentity): string {
  const where = identity.namespace ? `${identity.namespace}/` : '';
  return `${identity.kind} ${where}${identity.name}`;
}

/**
 * Kinds the API server served in the `extensions` group before their own, where the same stored
 * object is read through either: a Terraform state written years ago keeps `extensions/v1beta1` for
 * an Ingress that git now declares as `networking.k8s.io/v1`, and it is still one object.
 */
const EXTENSIONS_SUCCESSORS: Readonly<Record<string, string>> = {
  Deployment: 'apps',
  DaemonSet: 'apps',
  ReplicaSet: 'apps',
  Ingress: 'networking.k8s.io',
  NetworkPolicy: 'networking.k8s.io',
  PodSecurityPolicy: 'policy',
};

/** The group an identity's kind lives in today (`extensions` Ingress → `networking.k8s.io`). */
function currentGroup(identity: ObjectIdentity): string {
  return identity.group === 'extensions'
    ? (EXTENSIONS_SUCCESSORS[identity.kind] ?? identity.group)
    : identity.group;
}

/**
 * The same object, whatever side described it; an unset namespace matches any (cluster-scoped,
 * defaulted), and a kind's old `extensions` group matches its current one.
 */
export function sameObject(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return (
    currentGroup(a) === currentGroup(b) &&
    a.kind === b.kind &&
    a.name === b.name &&
    (a.namespace === undefined || b.namespace === undefined || a.namespace === b.namespace)
  );
}

/** Key for lookups that ignores the namespace (compare with `sameObject` afterwards). */
export function lookupKey(identity: ObjectIdentity): string {
  return `${currentGroup(identity)}/${identity.kind}/${identity.name}`;
}

/**
 * The Argo CD application that tracks a live object, under the instance's tracking method (default:
 * annotation, Argo CD 3.x's). The `app.kubernetes.io/instance` label alone is no proof: Helm sets it
 * on every object of every release. See tracking.ts.
 */
export function trackingApplication(
  object: KubeObject,
  tracking: ArgoTracking = DEFAULT_TRACKING,
): string | undefined {
  const identity = identityOf(object);
  const owner = identity === undefined ? undefined : argoApplicationOf(object, identity, tracking);
  return owner === undefined ? undefined : argoAppName(owner);
}
