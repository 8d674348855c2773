import { nonEmptyString } from '../terraform/json-values.js';
import { groupOf, identityOf, isPlainObject, type KubeObject, type ObjectIdentity } from './kube-object.js';

/**
 * The Kubernetes objects a Terraform state (format v4, `resources[].instances[].attributes`)
 * manages: `kubernetes_*` resources, `kubernetes_manifest`, and `helm_release` releases. Only
 * identities are read (names, namespaces, kinds): state holds plaintext secrets, and nothing else
 * of it is kept.
 */

export interface TerraformKubernetesObject {
  workspace: string;
  /** Terraform address, e.g. `module.app.kubernetes_deployment_v1.api[0]`. */
  address: string;
  /** `object`: Terraform creates and owns it; `fields`: it patches an object someone else created. */
  manages: 'object' | 'fields';
  identity?: ObjectIdentity;
  /** For `helm_release`: the objects of the release are labelled/annotated with its name. */
  helmRelease?: { name: string; namespace: string };
}

/** `kubernetes_<name>` (with or without `_v1`/`_v2`) → group and kind. */
const KUBERNETES_TYPES: Readonly<Record<string, { group: string; kind: string; clusterScoped?: true }>> = {
  namespace: { group: '', kind: 'Namespace', clusterScoped: true },
  config_map: { group: '', kind: 'ConfigMap' },
  secret: { group: '', kind: 'Secret' },
  service: { group: '', kind: 'Service' },
  service_account: { group: '', kind: 'ServiceAccount' },
  default_service_account: { group: '', kind: 'ServiceAccount' },
  pod: { group: '', kind: 'Pod' },
  persistent_volume_claim: { group: '', kind: 'PersistentVolumeClaim' },
  persistent_volume: { group: '', kind: 'PersistentVolume', clusterScoped: true },
  replication_controller: { group: '', kind: 'ReplicationController' },
  limit_range: { group: '', kind: 'LimitRange' },
  resource_quota: { group: '', kind: 'ResourceQuota' },
  endpoints: { group: '', kind: 'Endpoints' },
  deployment: { group: 'apps', kind: 'Deployment' },
  stateful_set: { group: 'apps', kind: 'StatefulSet' },
  daemonset: { group: 'apps', kind: 'DaemonSet' },
  daemon_set: { group: 'apps', kind: 'DaemonSet' },
  job: { group: 'batch', kind: 'Job' },
  cron_job: { group: 'batch', kind: 'CronJob' },
  horizontal_pod_autoscaler: { group: 'autoscaling', kind: 'HorizontalPodAutoscaler' },
  ingress: { group: 'networking.k8s.io', kind: 'Ingress' },
  ingress_class: { group: 'networking.k8s.io', kind: 'IngressClass', clusterScoped: true },
  network_policy: { group: 'networking.k8s.io', kind: 'NetworkPolicy' },
  role: { group: 'rbac.authorization.k8s.io', kind: 'Role' },
  role_binding: { group: 'rbac.authorization.k8s.io', kind: 'RoleBinding' },
  cluster_role: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', clusterScoped: true },
  cluster_role_binding: {
    group: 'rbac.authorization.k8s.io',
    kind: 'ClusterRoleBinding',
    clusterScoped: true,
  },
  pod_disruption_budget: { group: 'policy', kind: 'PodDisruptionBudget' },
  priority_class: { group: 'scheduling.k8s.io', kind: 'PriorityClass', clusterScoped: true },
  storage_class: { group: 'storage.k8s.io', kind: 'StorageClass', clusterScoped: true },
  csi_driver: { group: 'storage.k8s.io', kind: 'CSIDriver', clusterScoped: true },
  mutating_webhook_configuration: {
    group: 'admissionregistration.k8s.io',
    kind: 'MutatingWebhookConfiguration',
    clusterScoped: true,
  },
  validating_webhook_configuration: {
    group: 'admissionregistration.k8s.io',
    kind: 'ValidatingWebhookConfiguration',
    clusterScoped: true,
  },
  api_service: { group: 'apiregistration.k8s.io', kind: 'APIService', clusterScoped: true },
  certificate_signing_request: {
    group: 'certificates.k8s.io',
    kind: 'CertificateSigningRequest',
    clusterScoped: true,
  },
  runtime_class: { group: 'node.k8s.io', kind: 'RuntimeClass', clusterScoped: true },
  endpoint_slice: { group: 'discovery.k8s.io', kind: 'EndpointSlice' },
  config_map_data: { group: '', kind: 'ConfigMap' },
};

/** Resources that patch fields of an object they did not create (labels, annotations, data, env). */
const FIELD_MANAGERS: ReadonlySet<string> = new Set([
  'labels',
  'annotations',
  'env',
  'config_map_data',
  'node_taint',
]);

interface StateResource {
  mode?: unknown;
  type?: unknown;
  name?: unknown;
  module?: unknown;
  instances?: unknown;
}

export class UnreadableStateError extends Error {
  constructor(reason: string) {
    super(`not a Terraform state: ${reason}`);
    this.name = 'UnreadableStateError';
  }
}

export function kubernetesObjectsInState(state: unknown, workspace: string): TerraformKubernetesObject[] {
  if (!isPlainObject(state)) throw new UnreadableStateError('expected a JSON object');
  if (state.version !== 4)
    throw new UnreadableStateError(`state format version ${String(state.version)}, expected 4`);
  const resources = Array.isArray(state.resources) ? state.resources : [];
  const objects: TerraformKubernetesObject[] = [];
  for (const entry of resources) {
    const resource = entry as StateResource;
    if (resource.mode !== 'managed' || typeof resource.type !== 'string' || typeof resource.name !== 'string')
      continue;
    const instances = Array.isArray(resource.instances) ? resource.instances : [];
    for (const instance of instances) {
      if (!isPlainObject(instance) || !isPlainObject(instance.attributes)) continue;
      const address = instanceAddress(resource, instance.index_key);
      const object = objectOf(resource.type, instance.attributes, { workspace, address });
      if (object !== undefined) objects.push(object);
    }
  }
  return objects;
}

function instanceAddress(resource: StateResource, indexKey: unknown): string {
  const module = typeof resource.module === 'string' && resource.module !== '' ? `${resource.module}.` : '';
  const index =
    typeof indexKey === 'number'
      ? `[${indexKey}]`
      : typeof indexKey === 'string'
        ? `[${JSON.stringify(indexKey)}]`
        : '';
  return `${module}${String(resource.type)}.${String(resource.name)}${index}`;
}

function objectOf(
  type: string,
  attributes: Record<string, unknown>,
  at: { workspace: string; address: string },
): TerraformKubernetesObject | undefined {
  if (type === 'helm_release') {
    const name = nonEmptyString(attributes.name);
    if (name === undefined) return undefined;
    return {
      ...at,
      manages: 'object',
      helmRelease: { name, namespace: nonEmptyString(attributes.namespace) ?? 'default' },
    };
  }
  if (type === 'kubernetes_manifest') {
    const manifest = unwrapDynamic(attributes.manifest);
    return manifest === undefined ? undefined : fromManifest(manifest, at);
  }
  if (!type.startsWith('kubernetes_')) return undefined;
  const base = type.slice('kubernetes_'.length).replace(/_v\d+$/, '');
  const metadata = firstBlock(attributes.metadata);
  const name = nonEmptyString(metadata?.name);
  if (name === undefined) return undefined;
  const manages = FIELD_MANAGERS.has(base) ? 'fields' : 'object';
  const known = KUBERNETES_TYPES[base];
  // kubernetes_labels, _annotations and _env name their target's apiVersion and kind.
  const apiVersion = nonEmptyString(attributes.api_version);
  const kind = nonEmptyString(attributes.kind) ?? known?.kind;
  if (kind === undefined) return undefined;
  const group = apiVersion !== undefined ? groupOf(apiVersion) : (known?.group ?? '');
  const namespace = known?.clusterScoped ? undefined : nonEmptyString(metadata?.namespace);
  return {
    ...at,
    manages,
    identity: { group, kind, name, ...(namespace === undefined ? {} : { namespace }) },
  };
}

function fromManifest(
  manifest: Record<string, unknown>,
  at: { workspace: string; address: string },
): TerraformKubernetesObject | undefined {
  const identity = identityOf(manifest as KubeObject);
  return identity && { ...at, manages: 'object', identity };
}

/** Dynamic attributes (kubernetes_manifest's `manifest`) are stored as `{ value, type }` in state. */
function unwrapDynamic(value: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(value) && 'value' in value && 'type' in value) return unwrapDynamic(value.value);
  if (typeof value === 'string') {
    try {
      return unwrapDynamic(JSON.parse(value));
    } catch {
      return undefined;
    }
  }
  return isPlainObject(value) ? value : undefined;
}

/** Blocks are lists of one object in state (`metadata[0]`). */
function firstBlock(value: unknown): Record<string, unknown> | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return isPlainObject(first) ? first : undefined;
}
