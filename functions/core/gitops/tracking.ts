import { TRACKING_METHODS, type TrackingMethod } from '../registry/model.js';
import {
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
  INSTANCE_LABEL,
  isPlainObject,
  type KubeObject,
  metadataOf,
  type ObjectIdentity,
  stringMap,
  TRACKING_ID_ANNOTATION,
} from './kube-object.js';

/**
 * Who applies a live object. Argo CD's claim is read the way the Argo CD instance itself reads it
 * (argo-cd util/argo/resource_tracking.go `GetAppName`): with annotation tracking (the default since
 * Argo CD 3.0) only a `argocd.argoproj.io/tracking-id` that names the object itself counts; the
 * `app.kubernetes.io/instance` label counts only when the instance is configured for label tracking,
 * because Helm puts that label on every object of every release.
 */

export { TRACKING_METHODS, type TrackingMethod };

export interface ArgoTracking {
  method: TrackingMethod;
  /** argocd-cm `application.instanceLabelKey` (label tracking), default `app.kubernetes.io/instance`. */
  labelKey: string;
  /** argocd-cm `installationID`: when set, Argo CD only claims objects annotated with the same id. */
  installationId?: string;
  /** Where the method came from, for evidence: the instance's settings, the registry, or the default. */
  from: 'argocd-settings' | 'argocd-cm' | 'registry' | 'default';
}

export const INSTALLATION_ID_ANNOTATION = 'argocd.argoproj.io/installation-id';

/** Argo CD 3.x's default when argocd-cm names no method. */
export const DEFAULT_TRACKING: ArgoTracking = {
  method: 'annotation',
  // Spelled out, not INSTANCE_LABEL: kube-object.ts imports this module, so its constants may not be
  // initialised yet while this one is evaluated.
  labelKey: 'app.kubernetes.io/instance',
  from: 'default',
};

export function isTrackingMethod(value: unknown): value is TrackingMethod {
  return typeof value === 'string' && (TRACKING_METHODS as readonly string[]).includes(value);
}

/** The registry's choice, else Argo CD 3.x's default. */
export function registryTracking(method: TrackingMethod | undefined): ArgoTracking {
  return method === undefined ? DEFAULT_TRACKING : { ...DEFAULT_TRACKING, method, from: 'registry' };
}

/**
 * Tracking settings from the instance: argocd-cm's `data` (direct mode reads the ConfigMap) or
 * Argo CD's `GET /api/v1/settings` (`trackingMethod`, `appLabelKey`, `installationID`). An empty
 * method is Argo CD's default (annotation); an unknown one falls back to `fallback`.
 */
export function trackingFromArgoCd(
  settings: { method?: unknown; labelKey?: unknown; installationId?: unknown },
  from: 'argocd-settings' | 'argocd-cm',
  fallback: ArgoTracking,
): ArgoTracking {
  const method = settings.method === undefined || settings.method === '' ? 'annotation' : settings.method;
  if (!isTrackingMethod(method)) return fallback;
  const labelKey =
    typeof settings.labelKey === 'string' && settings.labelKey !== '' ? settings.labelKey : INSTANCE_LABEL;
  const installationId =
    typeof settings.installationId === 'string' && settings.installationId !== ''
      ? settings.installationId
      : undefined;
  return { method, labelKey, from, ...(installationId ? { installationId } : {}) };
}

/** argocd-cm's `data` as the ConfigMap holds it. */
export function trackingFromConfigMap(configMap: KubeObject, fallback: ArgoTracking): ArgoTracking {
  const data = isPlainObject(configMap.data) ? configMap.data : {};
  return trackingFromArgoCd(
    {
      method: data['application.resourceTrackingMethod'],
      labelKey: data['application.instanceLabelKey'],
      installationId: data.installationID,
    },
    'argocd-cm',
    fallback,
  );
}

/** `GET /api/v1/settings` of Argo CD (server/settings/settings.proto). */
export function trackingFromSettings(settings: unknown, fallback: ArgoTracking): ArgoTracking {
  if (!isPlainObject(settings)) return fallback;
  return trackingFromArgoCd(
    {
      method: settings.trackingMethod,
      labelKey: settings.appLabelKey,
      installationId: settings.installationID,
    },
    'argocd-settings',
    fallback,
  );
}

export interface TrackingIdValue {
  /** The instance name: `<app>`, or `<namespace>_<app>` for applications outside Argo CD's namespace. */
  instance: string;
  app: string;
  appNamespace?: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * `<app>:<group>/<kind>:<namespace>/<name>`, parsed as Argo CD's `ParseAppInstanceValue` does
 * (split on the first two colons, then each part on '/', exactly two pieces each).
 */
export function parseTrackingIdValue(value: string): TrackingIdValue | undefined {
  const first = value.indexOf(':');
  const second = first < 0 ? -1 : value.indexOf(':', first + 1);
  if (first < 0 || second < 0) return undefined;
  const instance = value.slice(0, first);
  const groupKind = value.slice(first + 1, second).split('/');
  const namespaceName = value.slice(second + 1).split('/');
  if (groupKind.length !== 2 || namespaceName.length !== 2 || instance === '') return undefined;
  return {
    instance,
    ...applicationOfInstance(instance),
    group: groupKind[0]!,
    kind: groupKind[1]!,
    namespace: namespaceName[0]!,
    name: namespaceName[1]!,
  };
}

/**
 * The Argo CD application that tracks a live object under the instance's tracking method, or
 * undefined. With annotation tracking the id must name this very object (Argo CD's
 * `isSelfReferencedObj`: a controller that copies annotations onto the objects it creates does not
 * make them Argo CD's), and carry the instance's installation id when it has one.
 */
export function argoApplicationOf(
  object: KubeObject,
  identity: ObjectIdentity,
  tracking: ArgoTracking,
): { app: string; appNamespace?: string; via: 'tracking-id' | 'label' } | undefined {
  if (tracking.method === 'label') {
    const label = stringMap(object, 'labels')[tracking.labelKey];
    // The label holds the instance name too: `<namespace>_<name>` outside Argo CD's namespace.
    return label === undefined || label === ''
      ? undefined
      : { ...applicationOfInstance(label), via: 'label' };
  }
  const annotations = stringMap(object, 'annotations');
  if (
    tracking.installationId !== undefined &&
    annotations[INSTALLATION_ID_ANNOTATION] !== tracking.installationId
  )
    return undefined;
  const raw = annotations[TRACKING_ID_ANNOTATION];
  const value = raw === undefined ? undefined : parseTrackingIdValue(raw);
  if (value === undefined) return undefined;
  const selfReferenced =
    value.group === identity.group &&
    value.kind === identity.kind &&
    value.name === identity.name &&
    // Argo CD writes the destination namespace for cluster-scoped objects; compare only namespaced ones.
    (identity.namespace === undefined || value.namespace === identity.namespace);
  if (!selfReferenced) return undefined;
  return {
    app: value.app,
    ...(value.appNamespace ? { appNamespace: value.appNamespace } : {}),
    via: 'tracking-id',
  };
}

/**
 * The application an instance name (Argo CD's `InstanceName`, in a tracking id or the instance
 * label) names: `<name>`, or `<namespace>_<name>` for one outside Argo CD's namespace (an
 * application name cannot hold '_', so the first one separates them).
 */
function applicationOfInstance(instance: string): { app: string; appNamespace?: string } {
  const separator = instance.indexOf('_');
  return separator < 0
    ? { app: instance }
    : { app: instance.slice(separator + 1), appNamespace: instance.slice(0, separator) };
}

/**
 * How findings name the application a tracking id names: `<namespace>/<name>` for one outside Argo
 * CD's namespace (its instance `<namespace>_<name>`), as Argo CD mode names it (applicationName).
 */
export function argoAppName(owner: { app: string; appNamespace?: string }): string {
  return owner.appNamespace ? `${owner.appNamespace}/${owner.app}` : owner.app;
}

/** Who writes an object, for findings in clusters where Argo CD does not (or cannot prove it does). */
export type Applier =
  | { type: 'argocd'; app: string; via: 'tracking-id' | 'label' }
  | { type: 'helm'; release: string; namespace?: string }
  | { type: 'field-manager'; manager: string; operation: string }
  | { type: 'kubectl-client-side-apply' };

/**
 * The applier of a live object: Argo CD when its tracking proves it, else the Helm release its
 * `meta.helm.sh/release-*` annotations name (Helm 3 sets them on every object of a release), else
 * the managedFields manager that owns most of it outside `status` (server-side apply winning a tie),
 * else kubectl's client-side apply (the last-applied annotation).
 */
export function applierOf(
  object: KubeObject,
  identity: ObjectIdentity,
  tracking: ArgoTracking,
): Applier | undefined {
  const argo = argoApplicationOf(object, identity, tracking);
  if (argo !== undefined) return { type: 'argocd', app: argoAppName(argo), via: argo.via };
  const annotations = stringMap(object, 'annotations');
  const release = annotations[HELM_RELEASE_NAME_ANNOTATION];
  if (release !== undefined && release !== '') {
    const namespace = annotations[HELM_RELEASE_NAMESPACE_ANNOTATION];
    return { type: 'helm', release, ...(namespace ? { namespace } : {}) };
  }
  const manager = mainFieldManager(object);
  if (manager !== undefined) return { type: 'field-manager', ...manager };
  if (annotations['kubectl.kubernetes.io/last-applied-configuration'] !== undefined)
    return { type: 'kubectl-client-side-apply' };
  return undefined;
}

export function describeApplier(applier: Applier | undefined): string {
  if (applier === undefined) return 'an unknown applier';
  switch (applier.type) {
    case 'argocd':
      return `Argo CD application ${applier.app}`;
    case 'helm':
      return `Helm release ${applier.namespace ? `${applier.namespace}/` : ''}${applier.release}`;
    case 'field-manager':
      return `field manager ${applier.manager} (${applier.operation === 'Apply' ? 'server-side apply' : 'update'})`;
    case 'kubectl-client-side-apply':
      return 'kubectl apply (client-side)';
  }
}

function mainFieldManager(object: KubeObject): { manager: string; operation: string } | undefined {
  const entries = metadataOf(object).managedFields;
  if (!Array.isArray(entries)) return undefined;
  let best: { manager: string; operation: string; fields: number } | undefined;
  for (const entry of entries) {
    if (!isPlainObject(entry) || typeof entry.manager !== 'string') continue;
    // Status writers (controllers reporting) do not apply the object.
    if (entry.subresource === 'status') continue;
    const operation = typeof entry.operation === 'string' ? entry.operation : 'Update';
    const fields = countFields(isPlainObject(entry.fieldsV1) ? withoutStatus(entry.fieldsV1) : {});
    if (fields === 0) continue;
    // The applier owns most of the object; a tool that applies one annotation (argo-cd's
    // controller/testdata/live-deployment-env-vars.yaml has such a `janitor`) is not it.
    const candidate = { manager: entry.manager, operation, fields };
    const better =
      best === undefined ||
      fields > best.fields ||
      (fields === best.fields && operation === 'Apply' && best.operation !== 'Apply');
    if (better) best = candidate;
  }
  return best && { manager: best.manager, operation: best.operation };
}

function withoutStatus(fields: KubeObject): KubeObject {
  const { 'f:status': _status, ...rest } = fields;
  return rest;
}

function countFields(fields: KubeObject): number {
  let count = 0;
  for (const value of Object.values(fields)) {
    count += 1;
    if (isPlainObject(value)) count += countFields(value);
  }
  return count;
}
