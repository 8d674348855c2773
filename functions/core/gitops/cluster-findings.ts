import type { DriftDetail, FindingDraft, Remediation } from '../findings/model.js';
import { redactText } from '../redaction/secrets.js';
import { type ClusterConfig, DEFAULT_ARGOCD_NAMESPACE, type Policies } from '../registry/model.js';
import { shellCommand } from '../remediation/shell-quote.js';
import { listPaths } from '../terraform/remediation.js';
import type { PruneHold } from './argo-options.js';
import {
  CLUSTER_RULES,
  type ClusterRuleId,
  type ClusterScanFailedRule,
  type ClusterSeverityDecider,
  createClusterSeverity,
} from './cluster-rules.js';
import { type ObjectIdentity, resourceRef } from './kube-object.js';

/**
 * Builds the drafts of one cluster's findings: scope, owner (the application's override, else the
 * cluster's), environment and severity come from here, so the rules only say what they found.
 */
export interface ClusterFindingInput {
  ruleId: ClusterRuleId;
  app?: string;
  identity?: ObjectIdentity;
  drift?: DriftDetail;
  /** Stable wording only: no ages, timestamps or values (they would make the finding `changed`). */
  title: string;
  detail: string;
  evidence?: Record<string, unknown>;
  remediation: Remediation;
}

export interface ClusterFindingBuilder {
  readonly cluster: ClusterConfig;
  finding(input: ClusterFindingInput): FindingDraft;
  scanFailed(input: {
    ruleId: ClusterScanFailedRule;
    app?: string;
    identity?: ObjectIdentity;
    reason: string;
    evidence?: Record<string, unknown>;
  }): FindingDraft;
  ownerOf(app: string | undefined): string;
  /**
   * Argo CD mode: the namespace Argo CD's controller runs in, as its applications report it
   * (`openshift-gitops` under OpenShift GitOps), so `openshift-gitops/shop` routes the bare `shop`.
   */
  useControllerNamespace(namespace: string): void;
}

export function createClusterFindingBuilder(
  cluster: ClusterConfig,
  policies: Policies,
): ClusterFindingBuilder {
  const decide: ClusterSeverityDecider = createClusterSeverity(cluster, policies);
  const applicationOwners = new Map(
    cluster.applications.map((application) => [application.name, application.owner]),
  );
  // `team-a/web` (an application outside the controller's namespace, see applicationName) is
  // routed by its qualified entry, else by an entry for every application named `web`. An
  // application in the controller's namespace is `shop` in findings, and `argocd/shop` as the
  // argocd CLI lists it (both name it, Argo CD's app-any-namespace.md): either entry routes it.
  let controllerNamespace = cluster.kubernetes?.argocdNamespace ?? DEFAULT_ARGOCD_NAMESPACE;
  const ownerOf = (app: string | undefined) =>
    (app === undefined
      ? undefined
      : (applicationOwners.get(app) ??
        (app.includes('/')
          ? applicationOwners.get(app.slice(app.indexOf('/') + 1))
          : applicationOwners.get(`${controllerNamespace}/${app}`)))) ?? cluster.owner;

  return {
    cluster,
    ownerOf,
    useControllerNamespace(namespace) {
      controllerNamespace = namespace;
    },
    finding(input) {
      const decision = decide({
        ruleId: input.ruleId,
        identity: input.identity,
        changes: input.drift?.changes,
      });
      const draft: FindingDraft = {
        kind: CLUSTER_RULES[input.ruleId].kind,
        ruleId: input.ruleId,
        severity: decision.severity,
        workspace: cluster.id,
        owner: ownerOf(input.app),
        environment: cluster.environment,
        title: input.title,
        detail: input.detail,
        evidence: { ...input.evidence, severityReasons: decision.reasons },
        remediation: input.remediation,
      };
      if (input.identity) draft.resource = resourceRef(input.identity, input.app);
      if (input.drift) draft.drift = input.drift;
      return draft;
    },
    scanFailed(input) {
      const reason = redactText(input.reason);
      const subject = input.identity
        ? `${input.identity.kind} ${input.identity.name}`
        : `cluster ${cluster.id}`;
      const draft: FindingDraft = {
        kind: 'scan-failed',
        ruleId: input.ruleId,
        severity: 'high',
        workspace: cluster.id,
        owner: ownerOf(input.app),
        environment: cluster.environment,
        // The reason goes into the detail, not the title: it may carry request ids or times.
        title: input.identity
          ? `Scan of ${subject} in cluster ${cluster.id} failed (${input.ruleId})`
          : `Scan of ${subject} failed (${input.ruleId})`,
        detail: `The scan of ${subject} failed, so its drift is unknown: ${reason}`,
        evidence: { ...input.evidence, reason },
        remediation: {
          summary: `The scan of ${subject} did not complete, so nothing was concluded about it.`,
          steps: [
            'Read the reason: the server address, the token (Secrets Manager or environment variable), its role, network access.',
            `Fix the cause, then rescan cluster ${cluster.id}; open findings stay open until a complete scan resolves them.`,
          ],
        },
      };
      if (input.identity) draft.resource = resourceRef(input.identity, input.app);
      return draft;
    },
  };
}

const NEVER_AUTOMATIC =
  'driftwatch never syncs, applies or deletes anything: whichever path you choose goes through review.';

/**
 * Remediations of cluster findings: revert to git (a reviewed sync) or adopt into git (a reviewed merge).
 * The application in a command is shell-quoted: it may come from an object's tracking-id annotation,
 * which anyone who may edit the object writes.
 */
export const clusterRemediation = {
  drift(where: { app?: string; source?: string }, paths: readonly string[]): Remediation {
    const what = paths.length > 0 ? listPaths(paths) : 'the changed fields';
    const revert = where.app
      ? `Revert: review the diff (\`${shellCommand(['argocd', 'app', 'diff', where.app])}\`) and sync the application through your usual process (\`${shellCommand(['argocd', 'app', 'sync', where.app])}\`), or enable selfHeal so Argo CD restores git's version of ${what}.`
      : `Revert: apply the manifests${where.source ? ` from ${where.source}` : ''} again through your deployment pipeline, after reviewing the diff of ${what}.`;
    return {
      summary: `The live object differs from git: ${what}. Decide whether the cluster goes back to git (revert) or git takes the live values (adopt).`,
      steps: [
        revert,
        `Adopt: change the manifests in git${where.source ? ` (${where.source})` : ''} to declare the live values of ${what}; review and merge.`,
        NEVER_AUTOMATIC,
      ],
    };
  },
  missing(where: { app?: string }, object: string): Remediation {
    return {
      summary: `${object} is declared in git but does not exist in the cluster: recreate it, or remove it from git if the deletion was intended.`,
      steps: [
        where.app
          ? `Recreate: review and sync application ${where.app} (\`${shellCommand(['argocd', 'app', 'sync', where.app])}\`).`
          : 'Recreate: apply the manifests again through your deployment pipeline.',
        'Remove: if the deletion was intended, delete the object from the manifests in git; review and merge.',
        NEVER_AUTOMATIC,
      ],
    };
  },
  extraneous(app: string, object: string): Remediation {
    return {
      summary: `${object} carries application ${app}'s tracking but is no longer in git's render.`,
      steps: [
        `Delete it: review, then prune it through your deployment pipeline (\`${shellCommand(['argocd', 'app', 'sync', app, '--prune'])}\` where Argo CD applies it).`,
        'Keep it: add it back to the manifests in git, or mark it `argocd.argoproj.io/compare-options: IgnoreExtraneous`; review and merge.',
        NEVER_AUTOMATIC,
      ],
    };
  },
  orphaned(app: string, object: string, hold: PruneHold): Remediation {
    return {
      summary: `${object} is still in the cluster but no longer in git, and application ${app} does not prune.`,
      steps: [
        `Delete it: review, then ${pruneStep(app, hold)}.`,
        'Keep it: if it is still needed, add it back to the manifests in git; review and merge.',
        NEVER_AUTOMATIC,
      ],
    };
  },
  health(app: string, status: string): Remediation {
    return {
      summary: `Application ${app} is ${status}: some of its resources are not working as declared.`,
      steps: [
        `Look at the unhealthy resources and their events (\`${shellCommand(['argocd', 'app', 'get', app])}\`, \`kubectl describe\`).`,
        'Fix the cause in git (image, configuration, resources) and sync through review; a Missing resource usually needs a sync.',
      ],
    };
  },
  syncPolicy(app: string, missing: 'automated sync' | 'selfHeal'): Remediation {
    return {
      summary: `Production application ${app} stays OutOfSync and Argo CD will not restore it on its own (no ${missing}).`,
      steps: [
        `Review the drift findings of ${app} and sync it through your usual process, or adopt the live values in git.`,
        `Enable automated sync with selfHeal for ${app} (spec.syncPolicy.automated.selfHeal: true), so changes made outside git are reverted.`,
        "Or raise the cluster's policies.outOfSyncAfter if this application is meant to be synced by hand.",
      ],
    };
  },
  ownershipConflict(object: string, terraform: string, gitops: string): Remediation {
    return {
      summary: `${object} has two writers, ${terraform} and ${gitops}: each reverts the other's changes. Pick one owner (one writer per field).`,
      steps: [
        `If Terraform should own it: remove it from ${gitops}'s manifests in git (and let the application stop tracking it); review and merge.`,
        `If GitOps should own it: remove it from Terraform without deleting it (a \`removed\` block with \`lifecycle { destroy = false }\`, or after review \`terraform state rm\`) and from ${terraform}'s configuration; review and merge.`,
        NEVER_AUTOMATIC,
      ],
    };
  },
};

/**
 * How a person deletes an object Argo CD holds: a sync with pruning deletes it only without
 * `Prune=false` (a sync skips such an object, `--prune` or not), and under `Prune=confirm` only once
 * the deletion is confirmed (Argo CD's sync-options.md).
 */
export function pruneStep(app: string, hold: PruneHold): string {
  const sync = `\`${shellCommand(['argocd', 'app', 'sync', app, '--prune'])}\``;
  if (hold.option === 'Prune=false')
    return hold.by === 'annotation'
      ? `remove Prune=false from its argocd.argoproj.io/sync-options annotation (no sync prunes it while it is there, ${sync} included) and sync with pruning, or delete it with kubectl`
      : `delete it with kubectl: the application's syncOptions hold Prune=false, so no sync prunes it (${sync} included)`;
  if (hold.option === 'Prune=confirm')
    return `sync with pruning (${sync}) and confirm the deletion (Argo CD's Confirm Pruning, or the argocd.argoproj.io/deletion-approved annotation on the Application)`;
  return `sync with pruning (${sync})`;
}
