import type { FindingDraft } from '../findings/model.js';
import { redactedExcerpt, type SensitiveHasher } from '../redaction/secrets.js';
import { listPaths } from '../terraform/remediation.js';
import type { ArgoApplication, ResourceDiff } from './argo-api.js';
import { automatedSync, ignoresExtraneous, pruneHold, pruneHoldReason } from './argo-options.js';
import { type ClusterFindingBuilder, clusterRemediation } from './cluster-findings.js';
import { describeObject, type KubeObject, type ObjectIdentity, stringMap } from './kube-object.js';
import { normalizeObject, parseStateString } from './normalize.js';
import { diffKubeObjects } from './object-diff.js';
import type { TrackedObject } from './tracked-object.js';

/**
 * Findings about one Argo CD application: its status (comparison errors, health, sync policy) and,
 * when it is OutOfSync, one finding per object whose live state differs from git's.
 */

/** Conditions that mean Argo CD could not compare git with the cluster: its sync status means nothing. */
const COMPARISON_FAILURES: ReadonlySet<string> = new Set([
  'ComparisonError',
  'InvalidSpecError',
  'UnknownError',
]);

export interface ApplicationStatusContext {
  builder: ClusterFindingBuilder;
  production: boolean;
  now: Date;
  /** When driftwatch first saw this application's drift (from the open findings), if it did. */
  outOfSyncSince?: Date;
}

export function applicationIdentity(application: ArgoApplication): ObjectIdentity {
  const namespace = application.metadata.namespace ?? undefined;
  return {
    group: 'argoproj.io',
    kind: 'Application',
    name: application.metadata.name,
    ...(namespace ? { namespace } : {}),
  };
}

/**
 * How findings, owners and commands name an application: `<namespace>/<name>` for one outside its
 * controller's namespace (Argo CD's applications in any namespace, where two teams may each have a
 * `web`), as the argocd CLI takes and prints it; the bare name in the controller's namespace, and
 * whenever Argo CD does not say where its controller is (before 2.5, which had no other namespace).
 */
export function applicationName(application: {
  metadata: { name: string; namespace?: string | null | undefined };
  status?: unknown;
}): string {
  const { name, namespace } = application.metadata;
  const controller = controllerNamespaceOf(application);
  return controller !== undefined && namespace && namespace !== controller ? `${namespace}/${name}` : name;
}

/** The namespace of the controller that manages the application (`status.controllerNamespace`, Argo CD 2.5+). */
export function controllerNamespaceOf(application: { status?: unknown }): string | undefined {
  const status = application.status;
  const controller =
    typeof status === 'object' && status !== null
      ? (status as { controllerNamespace?: unknown }).controllerNamespace
      : undefined;
  return typeof controller === 'string' && controller !== '' ? controller : undefined;
}

export function isOutOfSync(application: ArgoApplication): boolean {
  return application.status?.sync?.status === 'OutOfSync';
}

/**
 * Findings from the application's status. `comparable: false` means Argo CD's comparison failed:
 * the application then gets one scan-failed finding and no drift (a failed comparison is not a
 * clean one).
 */
export function applicationStatusFindings(
  application: ArgoApplication,
  context: ApplicationStatusContext,
): { drafts: FindingDraft[]; comparable: boolean } {
  const { builder } = context;
  const app = applicationName(application);
  const identity = applicationIdentity(application);
  const status = application.status ?? undefined;
  const failures = (status?.conditions ?? []).filter((condition) => COMPARISON_FAILURES.has(condition.type));
  const syncStatus = status?.sync?.status ?? undefined;
  if (failures.length > 0 || syncStatus === 'Unknown' || syncStatus === undefined) {
    const reasons = failures.map((condition) => `${condition.type}: ${condition.message ?? '(no message)'}`);
    if (reasons.length === 0)
      reasons.push(
        `sync status is ${syncStatus ?? 'missing'}: Argo CD could not compare git with the cluster`,
      );
    const draft = builder.scanFailed({
      ruleId: 'scan.cluster-comparison',
      app,
      identity,
      reason: `application ${app}: ${reasons.join('; ')}`,
      evidence: { syncStatus: syncStatus ?? null, conditions: failures.map((condition) => condition.type) },
    });
    return { drafts: [draft], comparable: false };
  }

  const drafts: FindingDraft[] = [];
  const health = status?.health?.status ?? undefined;
  if (health === 'Degraded' || health === 'Missing') {
    const unhealthy = (status?.resources ?? [])
      .filter((resource) => resource.health?.status === 'Degraded' || resource.health?.status === 'Missing')
      .map((resource) => ({
        kind: resource.kind,
        namespace: resource.namespace ?? undefined,
        name: resource.name,
        health: resource.health?.status ?? undefined,
        message: resource.health?.message ?? undefined,
      }));
    drafts.push(
      builder.finding({
        ruleId: health === 'Degraded' ? 'cluster.health-degraded' : 'cluster.health-missing',
        app,
        identity,
        title: `Application ${app} in cluster ${builder.cluster.id} is ${health}`,
        detail: `Argo CD reports application ${app} as ${health}${status?.health?.message ? `: ${status.health.message}` : ''}.`,
        evidence: {
          health,
          unhealthyResources: unhealthy,
          ...(resourceHealthUnknown(status) ? { resourceHealth: resourceHealthInTree(app) } : {}),
        },
        remediation: clusterRemediation.health(app, health),
      }),
    );
  }

  const policyGap = syncPolicyGap(application);
  const since = context.outOfSyncSince;
  const threshold = builder.cluster.policies.outOfSyncAfterMs;
  if (
    context.production &&
    isOutOfSync(application) &&
    policyGap !== undefined &&
    since !== undefined &&
    context.now.getTime() - since.getTime() >= threshold
  ) {
    drafts.push(
      builder.finding({
        ruleId: 'cluster.sync-policy',
        app,
        identity,
        title: `Production application ${app} stays OutOfSync without ${policyGap}`,
        detail:
          `Application ${app} has been OutOfSync since at least ${since.toISOString()} (first seen by driftwatch), ` +
          `longer than policies.outOfSyncAfter, and Argo CD will not restore it without ${policyGap}.`,
        evidence: { outOfSyncSince: since.toISOString(), thresholdMs: threshold, missing: policyGap },
        remediation: clusterRemediation.syncPolicy(app, policyGap),
      }),
    );
  }
  return { drafts, comparable: true };
}

/** `automated.enabled: false` (Argo CD 3.x) is manual sync, like no `automated` block at all. */
function syncPolicyGap(application: ArgoApplication): 'automated sync' | 'selfHeal' | undefined {
  const automated = automatedSync(application);
  if (!automated.enabled) return 'automated sync';
  return automated.selfHeal ? undefined : 'selfHeal';
}

function sourceOf(application: ArgoApplication): string | undefined {
  const source = application.spec?.source ?? application.spec?.sources?.[0] ?? undefined;
  if (!source?.repoURL) return undefined;
  const where = source.path ?? source.chart;
  return where ? `${source.repoURL} (${where})` : source.repoURL;
}

export interface ManagedResourceResult {
  drafts: FindingDraft[];
  /** Every object of the application with its live labels and annotations (for ownership conflicts). */
  tracked: TrackedObject[];
}

/**
 * Drift of an application's objects from `managed-resources`: the normalised live state versus the
 * predicted live state (what a sync would leave), both JSON strings where "null" means absent.
 * Only objects Argo CD itself reports OutOfSync are compared, so ignoreDifferences and its other
 * settings are honoured.
 */
export function managedResourceFindings(
  application: ArgoApplication,
  items: readonly ResourceDiff[],
  context: { builder: ClusterFindingBuilder; hashSensitive: SensitiveHasher },
): ManagedResourceResult {
  const app = applicationName(application);
  const outOfSyncApp = isOutOfSync(application);
  const statuses = new Map(
    (application.status?.resources ?? []).map((resource) => [
      resourceKey(resource.group, resource.kind, resource.namespace, resource.name),
      resource,
    ]),
  );
  const drafts: FindingDraft[] = [];
  const tracked: TrackedObject[] = [];
  for (const item of items) {
    if (item.hook) continue;
    const identity: ObjectIdentity = {
      group: item.group ?? '',
      kind: item.kind,
      name: item.name,
      ...(item.namespace ? { namespace: item.namespace } : {}),
    };
    const states = resourceStates(item);
    tracked.push(trackedObject(app, identity, states.live ?? states.predicted, states.target));
    const status = statuses.get(resourceKey(item.group, item.kind, item.namespace, item.name));
    if (!outOfSyncApp || (status !== undefined && status.status !== 'OutOfSync' && !status.requiresPruning))
      continue;
    const draft = resourceDrift(application, identity, states, item.modified ?? undefined, context);
    if (draft !== undefined) drafts.push(draft);
  }
  return { drafts, tracked };
}

interface ResourceStates {
  /** Argo CD's `normalizedLiveState` (its ignoreDifferences and normalisers applied). */
  live?: KubeObject;
  /** Argo CD's `predictedLiveState`: what a sync would leave, server defaults included. */
  predicted?: KubeObject;
  /** Git's manifest (`targetState`): what the GitOps side declares. */
  target?: KubeObject;
}

function resourceStates(item: ResourceDiff): ResourceStates {
  const live = parseStateString(item.normalizedLiveState ?? item.liveState ?? undefined);
  const predicted = parseStateString(item.predictedLiveState ?? undefined);
  const target = parseStateString(item.targetState ?? undefined);
  return {
    ...(live ? { live } : {}),
    ...(predicted ? { predicted } : {}),
    ...(target ? { target } : {}),
  };
}

function resourceDrift(
  application: ArgoApplication,
  identity: ObjectIdentity,
  states: ResourceStates,
  modified: boolean | undefined,
  context: { builder: ClusterFindingBuilder; hashSensitive: SensitiveHasher },
): FindingDraft | undefined {
  const { builder } = context;
  const app = applicationName(application);
  const object = describeObject(identity);
  const { live } = states;
  // What git wants: the predicted live state; a server too old to send one falls back to git's
  // manifest, compared on the fields it declares only (its omitted defaults are not drift).
  const desired = states.predicted ?? states.target;
  const failed = failedSync(application);
  const lastSync = failed ? { lastSync: failed } : {};
  const failedSentence = failed
    ? ` Argo CD's last sync of ${app} failed (${failed.phase}): ${failed.message}; a sync will not restore it until that is fixed.`
    : '';
  if (desired !== undefined && live === undefined) {
    return builder.finding({
      ruleId: 'cluster.missing',
      app,
      identity,
      drift: { action: 'delete', changes: [] },
      title: `${object} of application ${app} is missing from cluster ${builder.cluster.id}`,
      detail: `${object} is declared in git for application ${app} but does not exist in the cluster.${failedSentence}`,
      evidence: { source: sourceOf(application), ...lastSync },
      remediation: clusterRemediation.missing({ app }, object),
    });
  }
  if (desired === undefined && live !== undefined)
    return extraneousObject(application, identity, live, builder);
  if (desired === undefined || live === undefined) return undefined;
  // Argo CD's own verdict after its normalisation: not modified means in sync, whatever we would say.
  if (modified === false) return undefined;
  const changes = diffKubeObjects(normalizeObject(desired), normalizeObject(live), {
    mode: states.predicted ? 'full' : 'declared',
    hashSensitive: context.hashSensitive,
  });
  if (changes.length === 0) return undefined;
  const paths = changes.map((change) => change.path);
  const automated = automatedSync(application);
  return builder.finding({
    ruleId: 'cluster.drift',
    app,
    identity,
    drift: { action: 'update', changes },
    title: `${object} of application ${app} differs from git: ${listPaths(paths, 3)}`,
    detail:
      `The live ${object} in cluster ${builder.cluster.id} differs from what application ${app} declares in git (${changes.length} field${changes.length === 1 ? '' : 's'}).` +
      (failed
        ? failedSentence
        : automated.selfHeal
          ? " The application has automated sync with selfHeal, so Argo CD should restore git's version on its own: drift that stays means its syncs fail or something writes the object again."
          : ''),
    evidence: {
      source: sourceOf(application),
      comparedWith: states.predicted ? 'predictedLiveState' : 'targetState (declared fields)',
      selfHeal: automated.selfHeal,
      ...lastSync,
    },
    remediation: clusterRemediation.drift({ app, source: sourceOf(application) }, paths),
  });
}

/**
 * Argo CD's last sync, when it failed (`status.operationState.phase` Failed or Error: a webhook that
 * denied an object, a manifest the server refused). Drift findings proposed a sync, and said that
 * drift which stays under selfHeal "means its syncs fail or something writes the object again",
 * when Argo CD had said which: the sync would fail the same way. Its message is Argo CD's (the
 * server's refusal), redacted and cut.
 */
function failedSync(application: ArgoApplication): { phase: string; message: string } | undefined {
  const operation = application.status?.operationState ?? undefined;
  const phase = operation?.phase ?? undefined;
  if (phase !== 'Failed' && phase !== 'Error') return undefined;
  const message = (operation?.message ?? '').replace(/\s+/g, ' ').trim();
  return { phase, message: message === '' ? '(no message)' : redactedExcerpt(message, 300) };
}

/**
 * A live object of the application that git no longer declares (Argo CD: `requiresPruning`). With
 * `compare-options: IgnoreExtraneous` Argo CD leaves it out of the sync status, and so does
 * driftwatch. With automated pruning Argo CD deletes it at the next sync: nothing for a person to
 * decide. Otherwise, and always under `Prune=false`/`Prune=confirm` (the object's option wins over
 * the application's), it stays until a person acts: `cluster.orphaned`.
 */
function extraneousObject(
  application: ArgoApplication,
  identity: ObjectIdentity,
  live: KubeObject,
  builder: ClusterFindingBuilder,
): FindingDraft | undefined {
  if (ignoresExtraneous(live)) return undefined;
  const hold = pruneHold(application, live);
  if (hold === undefined) return undefined;
  const app = applicationName(application);
  const object = describeObject(identity);
  return builder.finding({
    ruleId: 'cluster.orphaned',
    app,
    identity,
    title: `${object} of application ${app} is no longer in git but still in cluster ${builder.cluster.id}`,
    detail: `${object} requires pruning, and ${pruneHoldReason(hold, app)}.`,
    evidence: {
      source: sourceOf(application),
      prune: false,
      pruneHeldBy: hold.by,
      pruneOption: hold.option,
    },
    remediation: clusterRemediation.orphaned(app, object, hold),
  });
}

function resourceKey(
  group: string | null | undefined,
  kind: string,
  namespace: string | null | undefined,
  name: string,
): string {
  return `${group ?? ''}/${kind}/${namespace ?? ''}/${name}`;
}

/** Objects the application lists in its status, for applications whose managed resources were not read. */
export function trackedFromStatus(application: ArgoApplication): TrackedObject[] {
  const app = applicationName(application);
  return (application.status?.resources ?? [])
    .filter((resource) => !resource.hook)
    .map((resource) =>
      trackedObject(
        app,
        {
          group: resource.group ?? '',
          kind: resource.kind,
          name: resource.name,
          ...(resource.namespace ? { namespace: resource.namespace } : {}),
        },
        undefined,
        undefined,
      ),
    );
}

function trackedObject(
  app: string,
  identity: ObjectIdentity,
  object: KubeObject | undefined,
  declared: KubeObject | undefined,
): TrackedObject {
  return {
    app,
    identity,
    labels: object ? stringMap(object, 'labels') : {},
    annotations: object ? stringMap(object, 'annotations') : {},
    source: 'argocd',
    ...(declared ? { declared } : {}),
  };
}

/**
 * Argo CD 3.x keeps each resource's health in its resource tree, not in the Application
 * (`status.resourceHealthSource: appTree`); its API fills `status.resources[].health` in from that
 * tree when it answers, unless the tree is not cached. Then no resource can be named as unhealthy,
 * and the finding says where to look instead of implying that none is.
 */
function resourceHealthUnknown(status: ArgoApplication['status']): boolean {
  const resources = status?.resources ?? [];
  return (
    status?.resourceHealthSource === 'appTree' &&
    resources.length > 0 &&
    resources.every((resource) => resource.health === undefined || resource.health === null)
  );
}

function resourceHealthInTree(app: string): string {
  return `not in the application's status (resourceHealthSource: appTree, Argo CD's resource tree was not available to its API): run argocd app get ${app} or open its resource tree`;
}
