import { appendTo } from '../collections.js';
import type { FindingDraft } from '../findings/model.js';
import { formatPath } from '../terraform/attribute-path.js';
import { type ClusterFindingBuilder, clusterRemediation } from './cluster-findings.js';
import {
  describeObject,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
  isPlainObject,
  type KubeObject,
  lookupKey,
  metadataOf,
  sameObject,
} from './kube-object.js';
import type { FieldClaim, TerraformKubernetesObject } from './terraform-objects.js';
import type { TrackedObject } from './tracked-object.js';
import { type Applier, applierOf, describeApplier, registryTracking } from './tracking.js';

/**
 * DESIGN.md principle 9, one writer per field: an object that both Terraform and the GitOps side
 * manage is a finding. Terraform claims an object by identity (`kubernetes_*`, `kubernetes_manifest`,
 * `kubectl_manifest`) or, for `helm_release`, by the marks Helm 3 puts on every object of a release:
 * `meta.helm.sh/release-name` and `meta.helm.sh/release-namespace`. The `app.kubernetes.io/instance`
 * label is no proof (charts set it to the release name, Argo CD's label tracking to the application
 * name: the same label, two meanings).
 *
 * Patch resources (`kubernetes_labels`, `_annotations`, `_env`, `_config_map_v1_data`,
 * `_node_taint`) claim fields, not objects: they exist to add a label or a key to an object someone
 * else owns, and that is one writer per field as long as git does not declare the same field. They
 * conflict only when git's manifest sets one of the fields they write, and the finding names those
 * fields; when git's manifest is unknown, no overlap is proven and no finding is made.
 */

export interface TerraformClaim {
  object: TerraformKubernetesObject;
  owner: string;
  via: 'identity' | 'helm-release' | 'fields';
  /** For patch resources: the fields both sides write. */
  fields?: string[];
}

export function ownershipConflicts(
  tracked: readonly TrackedObject[],
  terraform: readonly (TerraformKubernetesObject & { owner: string })[],
  builder: ClusterFindingBuilder,
): FindingDraft[] {
  const byIdentity = new Map<string, (TerraformKubernetesObject & { owner: string })[]>();
  const releases: (TerraformKubernetesObject & { owner: string })[] = [];
  for (const object of terraform) {
    if (object.identity) {
      const key = lookupKey(object.identity);
      appendTo(byIdentity, key, object);
    }
    if (object.helmRelease) releases.push(object);
  }

  const drafts: FindingDraft[] = [];
  const reported = new Set<string>();
  for (const candidate of tracked) {
    const claims: TerraformClaim[] = [];
    for (const object of byIdentity.get(lookupKey(candidate.identity)) ?? []) {
      if (!sameObject(object.identity!, candidate.identity)) continue;
      if (object.manages === 'object') {
        claims.push({ object, owner: object.owner, via: 'identity' });
        continue;
      }
      const shared = candidate.declared ? sharedFields(object.fields ?? {}, candidate.declared) : [];
      if (shared.length > 0) claims.push({ object, owner: object.owner, via: 'fields', fields: shared });
    }
    for (const object of releases) {
      if (belongsToRelease(candidate, object.helmRelease!))
        claims.push({ object, owner: object.owner, via: 'helm-release' });
    }
    if (claims.length === 0) continue;
    const key = `${candidate.app ?? ''}|${lookupKey(candidate.identity)}|${candidate.identity.namespace ?? ''}`;
    if (reported.has(key)) continue;
    reported.add(key);
    drafts.push(conflictFinding(candidate, claims, builder));
  }
  return drafts;
}

/** Helm 3's own marks (pkg/action/validate.go checks the same two annotations before it adopts an object). */
function belongsToRelease(object: TrackedObject, release: { name: string; namespace: string }): boolean {
  const annotated = object.annotations[HELM_RELEASE_NAME_ANNOTATION];
  if (annotated === undefined) return false;
  const namespace = object.annotations[HELM_RELEASE_NAMESPACE_ANNOTATION];
  return annotated === release.name && (namespace === undefined || namespace === release.namespace);
}

/** The fields a patch resource writes that git's manifest declares too, as finding paths. */
export function sharedFields(claim: FieldClaim, declared: KubeObject): string[] {
  const shared: string[] = [];
  // Paths written like the drift findings' (`metadata.labels.team`, `data["app.conf"]`).
  const overlap = (keys: readonly string[] | undefined, map: unknown, path: string) => {
    if (!keys || !isPlainObject(map)) return;
    for (const key of keys) if (Object.hasOwn(map, key)) shared.push(formatPath([...path.split('.'), key]));
  };
  const metadata = metadataOf(declared);
  overlap(claim.labels, metadata.labels, 'metadata.labels');
  overlap(claim.annotations, metadata.annotations, 'metadata.annotations');
  const template = child(declared, 'spec', 'template');
  overlap(
    claim.templateAnnotations,
    child(template, 'metadata', 'annotations'),
    'spec.template.metadata.annotations',
  );
  overlap(claim.data, declared.data, 'data');
  overlap(claim.data, declared.binaryData, 'binaryData');
  overlap(claim.data, declared.stringData, 'stringData');
  if (claim.env) {
    for (const [path, container] of containersOf(declared)) {
      if (container.name !== claim.env.container || !Array.isArray(container.env)) continue;
      container.env.forEach((entry, index) => {
        if (isPlainObject(entry) && typeof entry.name === 'string' && claim.env!.names.includes(entry.name))
          shared.push(`${path}.env[${index}]`);
      });
    }
  }
  if (claim.taints) {
    const taints = child(declared, 'spec', 'taints');
    if (Array.isArray(taints))
      taints.forEach((taint, index) => {
        if (isPlainObject(taint) && typeof taint.key === 'string' && claim.taints!.includes(taint.key))
          shared.push(`spec.taints[${index}]`);
      });
  }
  return shared;
}

/**
 * Who applies a rendered manifest's live object: what direct mode found (managedFields included),
 * else what its labels and annotations prove under the cluster's tracking method.
 */
function manifestApplier(candidate: TrackedObject, builder: ClusterFindingBuilder): Applier | undefined {
  if (candidate.applier !== undefined) return candidate.applier;
  const object: KubeObject = { metadata: { labels: candidate.labels, annotations: candidate.annotations } };
  return applierOf(object, candidate.identity, registryTracking(builder.cluster.trackingMethod));
}

function child(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = isPlainObject(current) ? current[key] : undefined;
  return current;
}

/** Containers of a Pod, a workload's pod template, or a CronJob's job template, with their paths. */
function containersOf(object: KubeObject): Array<[string, KubeObject]> {
  const specs: Array<[string, unknown]> = [
    ['spec', object.spec],
    ['spec.template.spec', child(object, 'spec', 'template', 'spec')],
    ['spec.jobTemplate.spec.template.spec', child(object, 'spec', 'jobTemplate', 'spec', 'template', 'spec')],
  ];
  const result: Array<[string, KubeObject]> = [];
  for (const [path, spec] of specs) {
    for (const list of ['containers', 'initContainers'] as const) {
      const containers = child(spec, list);
      if (!Array.isArray(containers)) continue;
      containers.forEach((container, index) => {
        if (isPlainObject(container)) result.push([`${path}.${list}[${index}]`, container]);
      });
    }
  }
  return result;
}

function conflictFinding(
  candidate: TrackedObject,
  claims: readonly TerraformClaim[],
  builder: ClusterFindingBuilder,
): FindingDraft {
  const object = describeObject(candidate.identity);
  const cluster = builder.cluster.id;
  const workspaces = [...new Set(claims.map((claim) => claim.object.workspace))];
  const terraformSide = `Terraform (${workspaces.join(', ')})`;
  // Argo CD only where Argo CD said so (its API, or a tracking id the instance's method accepts);
  // in direct mode otherwise the manifests, with whoever applies them.
  const applier = candidate.source === 'argocd' ? undefined : manifestApplier(candidate, builder);
  const app =
    candidate.source === 'argocd' ? candidate.app : applier?.type === 'argocd' ? applier.app : undefined;
  const gitopsSide =
    candidate.source === 'argocd' && app !== undefined
      ? `Argo CD application ${app}`
      : applier?.type === 'argocd'
        ? describeApplier(applier)
        : `the GitOps manifests of cluster ${cluster}${applier ? ` (applied by ${describeApplier(applier)})` : ''}`;
  const fields = [...new Set(claims.flatMap((claim) => claim.fields ?? []))];
  const gitopsOwner = builder.ownerOf(app);
  const terraformOwners = [...new Set(claims.map((claim) => claim.owner))];
  return builder.finding({
    ruleId: 'ownership.conflict',
    app,
    identity: candidate.identity,
    title: `${object} in cluster ${cluster} is managed by both ${terraformSide} and ${gitopsSide}`,
    detail:
      `${object} is written by two reconcilers: ${terraformSide}, owned by ${terraformOwners.join(', ')}, ` +
      `and ${gitopsSide}, owned by ${gitopsOwner}. ` +
      (fields.length > 0 && claims.every((claim) => claim.via === 'fields')
        ? `Both write ${fields.join(', ')}: each reverts the other's value; one of them must let go of ${fields.length === 1 ? 'it' : 'them'}.`
        : "Each one reverts the other's changes; one of them must let go."),
    evidence: {
      terraform: claims.map((claim) => ({
        workspace: claim.object.workspace,
        owner: claim.owner,
        address: claim.object.address,
        manages: claim.object.manages,
        via: claim.via,
        ...(claim.object.helmRelease ? { helmRelease: claim.object.helmRelease } : {}),
        ...(claim.fields ? { fields: claim.fields } : {}),
      })),
      gitops: {
        source: candidate.source,
        app: app ?? null,
        owner: gitopsOwner,
        ...(applier ? { applier: describeApplier(applier) } : {}),
      },
      owners: [...new Set([...terraformOwners, gitopsOwner])],
    },
    remediation: clusterRemediation.ownershipConflict(object, terraformSide, gitopsSide),
  });
}
