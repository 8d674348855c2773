import { parse as parseYaml } from 'yaml';
import { isEncryptedState, isLegacyStateVersion, jsonTypeName } from '../backend/state-document.js';
import { nonEmptyString } from '../terraform/json-values.js';
import { groupOf, identityOf, isPlainObject, type KubeObject, type ObjectIdentity } from './kube-object.js';

/**
 * The Kubernetes objects a Terraform state (format v4, `resources[].instances[].attributes`)
 * manages: `kubernetes_*` resources (the patch resources as claims on fields of their target),
 * `kubernetes_manifest`, `kubectl_manifest` and `helm_release` releases. Only
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
  /** For `manages: 'fields'`: which fields of the target it writes (names only, never values). */
  fields?: FieldClaim;
  /**
   * For `helm_release`: its release name and namespace from the state. Helm 3 annotates every object
   * of the release with `meta.helm.sh/release-name` and `meta.helm.sh/release-namespace`.
   */
  helmRelease?: { name: string; namespace: string };
}

/**
 * The fields a patch resource (`kubernetes_labels`, `_annotations`, `_env`, `_config_map_v1_data`,
 * `_node_taint`) writes into an object it did not create. Keys only: state holds their values.
 */
export interface FieldClaim {
  labels?: string[];
  annotations?: string[];
  /** Annotations of the pod template (`kubernetes_annotations.template_annotations`). */
  templateAnnotations?: string[];
  /** ConfigMap (or Secret) data keys. */
  data?: string[];
  /** Environment variables of one container. */
  env?: { container: string; names: string[] };
  /** Node taints by key. */
  taints?: string[];
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
  pod_security_policy: { group: 'policy', kind: 'PodSecurityPolicy', clusterScoped: true },
  // Patch resources: the kind of their target when the type fixes it.
  config_map_data: { group: '', kind: 'ConfigMap' },
  secret_data: { group: '', kind: 'Secret' },
  node_taint: { group: '', kind: 'Node', clusterScoped: true },
};

/** Resources that patch fields of an object they did not create (labels, annotations, data, env). */
const FIELD_MANAGERS: ReadonlySet<string> = new Set([
  'labels',
  'annotations',
  'env',
  'config_map_data',
  'secret_data',
  'node_taint',
]);

/**
 * `kubernetes_config_map_v1_data` → `config_map_data`, `kubernetes_deployment_v1` → `deployment`,
 * `kubernetes_horizontal_pod_autoscaler_v2beta2` → `horizontal_pod_autoscaler` (the provider keeps
 * beta-versioned types too: `_v2beta2`, `kubernetes_pod_security_policy_v1beta1`).
 */
export function kubernetesTypeBase(type: string): string {
  return type.slice('kubernetes_'.length).replace(/_v\d+(?:(?:alpha|beta)\d+)?(?=_|$)/g, '');
}

interface StateResource {
  mode?: unknown;
  type?: unknown;
  name?: unknown;
  module?: unknown;
  instances?: unknown;
}

export class UnreadableStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableStateError';
  }
}

export function kubernetesObjectsInState(state: unknown, workspace: string): TerraformKubernetesObject[] {
  if (!isPlainObject(state)) throw new UnreadableStateError('not a Terraform state: expected a JSON object');
  if (isEncryptedState(state))
    throw new UnreadableStateError(
      "the state is encrypted (OpenTofu state encryption), so driftwatch cannot read which Kubernetes objects it manages: remove the workspace from the cluster's workspaces, or leave its state unencrypted",
    );
  if (state.version !== 4) throw new UnreadableStateError(unreadableVersion(state.version));
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

/**
 * Formats 1-3 are state too (Terraform 0.11 and older keep resources under `modules` with flattened
 * attributes), and a later format is a newer Terraform's: each says so and how to get format 4,
 * instead of calling the workspace's real state "not a Terraform state".
 */
function unreadableVersion(version: unknown): string {
  if (isLegacyStateVersion(version))
    return `the state is in format ${version}, written by Terraform 0.11 or older, and driftwatch reads the Kubernetes objects of format 4 states only: the workspace's next apply with Terraform 0.12 or later writes format 4`;
  if (typeof version === 'number' && Number.isInteger(version) && version > 4)
    return `the state is in format ${version}, newer than the format 4 driftwatch reads: update driftwatch, or leave the workspace out of the cluster's workspaces until it does`;
  const shown =
    typeof version === 'number'
      ? String(version)
      : version === undefined
        ? 'missing'
        : `a JSON ${jsonTypeName(version)}`;
  return `not a Terraform state: state format version ${shown}, expected 4`;
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
  if (type === 'helm_release') return helmRelease(attributes, at);
  if (type === 'kubernetes_manifest') {
    // `object` is what the provider read back (the whole live object); `manifest` what was declared.
    const manifest = unwrapDynamic(attributes.manifest) ?? unwrapDynamic(attributes.object);
    return manifest === undefined ? undefined : fromManifest(manifest, at);
  }
  if (type === 'kubectl_manifest') return kubectlManifest(attributes, at);
  if (!type.startsWith('kubernetes_')) return undefined;
  const base = kubernetesTypeBase(type);
  const metadata = firstBlock(attributes.metadata);
  const name = nonEmptyString(metadata?.name);
  if (name === undefined) return undefined;
  const known = KUBERNETES_TYPES[base];
  // kubernetes_labels, _annotations and _env name their target's apiVersion and kind.
  const apiVersion = nonEmptyString(attributes.api_version);
  const kind = nonEmptyString(attributes.kind) ?? known?.kind;
  if (kind === undefined) return undefined;
  const group = apiVersion !== undefined ? groupOf(apiVersion) : (known?.group ?? '');
  const namespace = known?.clusterScoped ? undefined : nonEmptyString(metadata?.namespace);
  const identity: ObjectIdentity = { group, kind, name, ...(namespace === undefined ? {} : { namespace }) };
  if (!FIELD_MANAGERS.has(base)) return { ...at, manages: 'object', identity };
  return { ...at, manages: 'fields', identity, fields: fieldClaim(base, attributes) };
}

function fieldClaim(base: string, attributes: Record<string, unknown>): FieldClaim {
  switch (base) {
    case 'labels':
      return { labels: keysOf(attributes.labels) };
    case 'annotations': {
      const template = keysOf(attributes.template_annotations);
      return {
        annotations: keysOf(attributes.annotations),
        ...(template.length > 0 ? { templateAnnotations: template } : {}),
      };
    }
    case 'config_map_data':
    case 'secret_data':
      return { data: [...new Set([...keysOf(attributes.data), ...keysOf(attributes.binary_data)])] };
    case 'env': {
      const container =
        nonEmptyString(attributes.container) ?? nonEmptyString(attributes.init_container) ?? '';
      const names = (Array.isArray(attributes.env) ? attributes.env : [])
        .map((entry) => (isPlainObject(entry) ? nonEmptyString(entry.name) : undefined))
        .filter((name): name is string => name !== undefined);
      return { env: { container, names } };
    }
    case 'node_taint': {
      const taints = (Array.isArray(attributes.taint) ? attributes.taint : [])
        .map((entry) => (isPlainObject(entry) ? nonEmptyString(entry.key) : undefined))
        .filter((key): key is string => key !== undefined);
      return { taints };
    }
    default:
      return {};
  }
}

function keysOf(value: unknown): string[] {
  return isPlainObject(value) ? Object.keys(value) : [];
}

/**
 * `helm_release`: the release's name and namespace from the state (`metadata[0]` holds what Helm
 * reported; the arguments are the fallback). Its objects are found by Helm's annotations, not here.
 */
function helmRelease(
  attributes: Record<string, unknown>,
  at: { workspace: string; address: string },
): TerraformKubernetesObject | undefined {
  const metadata = firstBlock(attributes.metadata);
  const name = nonEmptyString(metadata?.name) ?? nonEmptyString(attributes.name);
  if (name === undefined) return undefined;
  const namespace = nonEmptyString(metadata?.namespace) ?? nonEmptyString(attributes.namespace) ?? 'default';
  return { ...at, manages: 'object', helmRelease: { name, namespace } };
}

/**
 * `kubectl_manifest` of gavinbunney/kubectl and alekc/kubectl: both keep `api_version`, `kind`,
 * `name` and `namespace` in state; `yaml_body_parsed`/`yaml_body` are the fallback (read for the
 * identity only: the body may hold a Secret). `override_namespace`, when set, is where the provider
 * applied the object, whatever its YAML says.
 */
function kubectlManifest(
  attributes: Record<string, unknown>,
  at: { workspace: string; address: string },
): TerraformKubernetesObject | undefined {
  const apiVersion = nonEmptyString(attributes.api_version);
  const kind = nonEmptyString(attributes.kind);
  const name = nonEmptyString(attributes.name);
  if (apiVersion !== undefined && kind !== undefined && name !== undefined) {
    const group = groupOf(apiVersion);
    const namespace =
      nonEmptyString(attributes.override_namespace) ??
      nonEmptyString(attributes.namespace) ??
      kubectlDefaultNamespace(group, kind);
    return {
      ...at,
      manages: 'object',
      identity: { group, kind, name, ...(namespace ? { namespace } : {}) },
    };
  }
  for (const key of ['yaml_body_parsed', 'yaml_body']) {
    const text = nonEmptyString(attributes[key]);
    if (text === undefined) continue;
    let body: unknown;
    try {
      body = parseYaml(text);
    } catch {
      continue;
    }
    if (isPlainObject(body)) {
      const object = fromManifest(body, at);
      const override = nonEmptyString(attributes.override_namespace);
      if (object?.identity && override !== undefined)
        return { ...object, identity: { ...object.identity, namespace: override } };
      if (object?.identity && object.identity.namespace === undefined) {
        const namespace = kubectlDefaultNamespace(object.identity.group, object.identity.kind);
        if (namespace) return { ...object, identity: { ...object.identity, namespace } };
      }
      if (object !== undefined) return object;
    }
  }
  return undefined;
}

/** Built-in kinds that live in a namespace (`apps/Deployment`), from the kubernetes_* types above. */
const NAMESPACED_KINDS: ReadonlySet<string> = new Set(
  Object.values(KUBERNETES_TYPES)
    .filter((type) => !type.clusterScoped)
    .map((type) => `${type.group}/${type.kind}`),
);

/**
 * Where kubectl_manifest put a namespaced object whose YAML names no namespace: the provider applies
 * it as `kubectl apply` does, into its context's namespace (`default` unless the provider's kubeconfig
 * context names another, which the state does not record), and keeps `namespace = ""` in state. Left
 * unset, the identity matched an object of that name in every namespace, so an Argo CD ConfigMap
 * `shop/app-config` was a conflict with Terraform's `default/app-config`. Only for built-in kinds: a
 * custom resource may be cluster-scoped, and then an unset namespace is right.
 */
function kubectlDefaultNamespace(group: string, kind: string): string | undefined {
  return NAMESPACED_KINDS.has(`${group}/${kind}`) ? 'default' : undefined;
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
