import { appendTo } from '../collections.js';
import type { FindingDraft } from '../findings/model.js';
import { type ClusterFindingBuilder, clusterRemediation } from './cluster-findings.js';
import {
  describeObject,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
  INSTANCE_LABEL,
  lookupKey,
  sameObject,
} from './kube-object.js';
import type { TerraformKubernetesObject } from './terraform-objects.js';
import type { TrackedObject } from './tracked-object.js';

/**
 * DESIGN.md principle 9, one writer per field: an object that both Terraform and the GitOps side
 * manage is a finding. Terraform claims an object by identity (`kubernetes_*`, `kubernetes_manifest`)
 * or, for `helm_release`, by the release's marks on the objects Helm created: the annotation
 * `meta.helm.sh/release-name` (with `meta.helm.sh/release-namespace`), or the label
 * `app.kubernetes.io/instance` in the release's namespace.
 */

export interface TerraformClaim {
  object: TerraformKubernetesObject;
  owner: string;
  via: 'identity' | 'helm-release';
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
      if (sameObject(object.identity!, candidate.identity))
        claims.push({ object, owner: object.owner, via: 'identity' });
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

function belongsToRelease(object: TrackedObject, release: { name: string; namespace: string }): boolean {
  const annotated = object.annotations[HELM_RELEASE_NAME_ANNOTATION];
  if (annotated !== undefined) {
    const namespace = object.annotations[HELM_RELEASE_NAMESPACE_ANNOTATION];
    return annotated === release.name && (namespace === undefined || namespace === release.namespace);
  }
  const namespaceMatches =
    object.identity.namespace === undefined || object.identity.namespace === release.namespace;
  return object.labels[INSTANCE_LABEL] === release.name && namespaceMatches;
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
  const gitopsSide =
    candidate.source === 'argocd' || candidate.app !== undefined
      ? `Argo CD application ${candidate.app ?? '(unknown)'}`
      : `the GitOps manifests of cluster ${cluster}`;
  const gitopsOwner = builder.ownerOf(candidate.app);
  const terraformOwners = [...new Set(claims.map((claim) => claim.owner))];
  return builder.finding({
    ruleId: 'ownership.conflict',
    app: candidate.app,
    identity: candidate.identity,
    title: `${object} in cluster ${cluster} is managed by both ${terraformSide} and ${gitopsSide}`,
    detail:
      `${object} is written by two reconcilers: ${terraformSide}, owned by ${terraformOwners.join(', ')}, ` +
      `and ${gitopsSide}, owned by ${gitopsOwner}. Each one reverts the other's changes; one of them must let go.`,
    evidence: {
      terraform: claims.map((claim) => ({
        workspace: claim.object.workspace,
        owner: claim.owner,
        address: claim.object.address,
        manages: claim.object.manages,
        via: claim.via,
        ...(claim.object.helmRelease ? { helmRelease: claim.object.helmRelease } : {}),
      })),
      gitops: { source: candidate.source, app: candidate.app ?? null, owner: gitopsOwner },
      owners: [...new Set([...terraformOwners, gitopsOwner])],
    },
    remediation: clusterRemediation.ownershipConflict(object, terraformSide, gitopsSide),
  });
}
