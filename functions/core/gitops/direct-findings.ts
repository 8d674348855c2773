import type { FindingDraft } from '../findings/model.js';
import type { SensitiveHasher } from '../redaction/secrets.js';
import { listPaths } from '../terraform/remediation.js';
import type { ArgoApplication } from './argo-api.js';
import { pruneHold, pruneHoldReason } from './argo-options.js';
import { type ClusterFindingBuilder, clusterRemediation } from './cluster-findings.js';
import type { ExtraneousObject } from './extraneous.js';
import {
  type ActiveIgnoreRule,
  type ComparedSides,
  changesIgnoringDifferences,
  ruleCovers,
  type SourcedIgnoreRule,
  withoutIgnoredChanges,
} from './ignore-differences.js';
import {
  describeObject,
  identityOf,
  type KubeObject,
  metadataOf,
  type ObjectIdentity,
  stringMap,
  TRACKING_ID_ANNOTATION,
} from './kube-object.js';
import type { LiveObjectResult } from './ports.js';
import { type ComparisonMethod, comparisonChanges, type DirectComparison } from './server-side-diff.js';
import { type TrackedObject, trackedManifestObject } from './tracked-object.js';
import {
  type ArgoTracking,
  argoApplicationOf,
  argoAppName,
  describeApplier,
  INSTALLATION_ID_ANNOTATION,
  registryTracking,
} from './tracking.js';

/** What each comparison method compared, in the finding's words. */
const COMPARED: Readonly<Record<ComparisonMethod, string>> = {
  'server-side-dry-run': "the API server's dry-run apply of the manifest",
  'openapi-normalised': "the fields the manifest sets, read with the cluster's OpenAPI schema",
  'declared-fields': 'the fields the manifest sets',
};

/**
 * Direct mode (no Argo CD): what Git would make of an object versus the live object from the
 * Kubernetes API (see server-side-diff.ts for the comparison methods). `comparison` is undefined
 * when the object is missing.
 */
export function directObjectFindings(
  desired: KubeObject,
  live: LiveObjectResult,
  context: {
    builder: ClusterFindingBuilder;
    hashSensitive: SensitiveHasher;
    source: string;
    comparison?: DirectComparison;
    /** How a missing object was established (a dry-run that would create it says so). */
    missingBy?: ComparisonMethod;
    /** How the cluster's Argo CD instance tracks objects (tracking-source.ts), if it has one. */
    tracking?: ArgoTracking;
    /** The registry's active `policies.ignore` rules (ignore-differences.ts). */
    ignoreRules?: readonly ActiveIgnoreRule[];
    /**
     * Argo CD-shaped ignoreDifferences (the tracking Application's, argocd-cm's, the registry's
     * `kubernetes.ignoreDifferences`); only those that cover the object apply.
     */
    ignoreDifferences?: readonly SourcedIgnoreRule[];
    /** Why the application's or argocd-cm's ignoreDifferences could not be read (one line). */
    ignoreDifferencesUnread?: string;
  },
): { drafts: FindingDraft[]; tracked: TrackedObject } {
  const { builder } = context;
  const declared = identityOf(desired)!;
  const liveObject = live.found ? live.object : undefined;
  // The live object knows its namespace even when the manifest left it to the context's default.
  const identity: ObjectIdentity = (liveObject && identityOf(liveObject)) || declared;
  // An Argo CD application only when the instance's tracking proves it (a Helm label does not).
  const tracked = trackedManifestObject(
    identity,
    desired,
    liveObject,
    context.tracking ?? registryTracking(builder.cluster.trackingMethod),
  );
  const app = tracked.app;
  const object = describeObject(identity);
  const cluster = builder.cluster.id;
  if (!live.found) {
    const notServed = live.reason === 'kind-not-served';
    const draft = builder.finding({
      ruleId: 'cluster.missing',
      app,
      identity,
      drift: { action: 'delete', changes: [] },
      title: `${object} is missing from cluster ${cluster}`,
      detail: notServed
        ? `${object} is declared in ${context.source}, but cluster ${cluster} does not serve its kind (${String(desired.apiVersion)} ${identity.kind}): is its CRD installed?`
        : `${object} is declared in ${context.source} but does not exist in cluster ${cluster}.`,
      evidence: {
        source: context.source,
        reason: live.reason,
        ...(context.missingBy ? { comparison: context.missingBy } : {}),
      },
      remediation: clusterRemediation.missing({ app }, object),
    });
    return { drafts: [draft], tracked };
  }

  const comparison: DirectComparison = context.comparison ?? { method: 'declared-fields' };
  const normalised = changesIgnoringDifferences(
    {
      desired: comparison.method === 'server-side-dry-run' ? comparison.predicted : desired,
      live: live.object,
    },
    (context.ignoreDifferences ?? []).filter((rule) => ruleCovers(rule, identity)),
    (sides) => sidesChanges(comparison, desired, sides, context.hashSensitive),
  );
  const registry = withoutIgnoredChanges(normalised.kept, identity, context.ignoreRules ?? []);
  const changes = registry.kept;
  const ignored = [...normalised.ignored, ...registry.ignored];
  if (changes.length === 0) return { drafts: [], tracked };
  const fallback = 'fallback' in comparison ? comparison.fallback : undefined;
  const paths = changes.map((change) => change.path);
  const draft = builder.finding({
    ruleId: 'cluster.drift',
    app,
    identity,
    drift: { action: 'update', changes },
    title: `${object} in cluster ${cluster} differs from its manifest: ${listPaths(paths, 3)}`,
    detail: `The live ${object} differs from ${context.source} in ${changes.length} field${changes.length === 1 ? '' : 's'} (compared with ${COMPARED[comparison.method]}).`,
    evidence: {
      source: context.source,
      comparison: comparison.method,
      compared: COMPARED[comparison.method],
      ...(tracked.applier ? { applier: describeApplier(tracked.applier) } : {}),
      ...(fallback ? { comparisonFallback: fallback } : {}),
      ...(ignored.length > 0 ? { ignored } : {}),
      ...(context.ignoreDifferencesUnread
        ? { ignoreDifferencesUnread: context.ignoreDifferencesUnread }
        : {}),
    },
    remediation: clusterRemediation.drift({ app, source: context.source }, paths),
  });
  return { drafts: [draft], tracked };
}

/**
 * The manifest as Argo CD applies it to a live object its application tracks: with the tracking
 * metadata Argo CD sets at sync (argo-cd `SetAppInstance`: the tracking-id and installation-id
 * annotations, the instance label under label tracking), which Git never holds. Without it every
 * tracked object would show them as fields Git removed, and a dry-run would drop them.
 */
export function withApplicationTracking(
  manifest: KubeObject,
  live: KubeObject,
  tracking: ArgoTracking,
): KubeObject {
  const identity = identityOf(live);
  if (identity === undefined || argoApplicationOf(live, identity, tracking) === undefined) return manifest;
  const liveAnnotations = stringMap(live, 'annotations');
  const liveLabels = stringMap(live, 'labels');
  const annotations: Record<string, string> = {};
  for (const key of [TRACKING_ID_ANNOTATION, INSTALLATION_ID_ANNOTATION])
    if (liveAnnotations[key] !== undefined) annotations[key] = liveAnnotations[key];
  const labels: Record<string, string> = {};
  const label = liveLabels[tracking.labelKey];
  if (tracking.method !== 'annotation' && label !== undefined) labels[tracking.labelKey] = label;
  const metadata = metadataOf(manifest);
  return {
    ...manifest,
    metadata: {
      ...metadata,
      ...(Object.keys(annotations).length > 0
        ? { annotations: { ...stringMap(manifest, 'annotations'), ...annotations } }
        : {}),
      ...(Object.keys(labels).length > 0 ? { labels: { ...stringMap(manifest, 'labels'), ...labels } } : {}),
    },
  };
}

/**
 * The comparison's changes for two (normalised) sides: the desired side is the dry-run's answer
 * for `server-side-dry-run`, the manifest otherwise (whose removed fields are found from the live
 * side, so a field an ignore rule removed from it is never a removal).
 */
function sidesChanges(
  comparison: DirectComparison,
  manifest: KubeObject,
  sides: ComparedSides,
  hashSensitive: SensitiveHasher,
) {
  return comparison.method === 'server-side-dry-run'
    ? comparisonChanges({ ...comparison, predicted: sides.desired }, manifest, sides.live, hashSensitive)
    : comparisonChanges(comparison, sides.desired, sides.live, hashSensitive);
}

/** What direct mode concludes about an extraneous object: a finding, or Argo CD prunes it itself. */
export type ExtraneousVerdict = { finding: FindingDraft } | { prunedByArgoCd: string };

/**
 * A live object an application of the render tracks but the render no longer has (extraneous.ts):
 * Git removed it and the cluster kept it. Argo CD calls it "requires pruning". When the tracking
 * Application was read, direct mode decides as Argo CD mode does (argo-options.ts `pruneHold`):
 * Argo CD's automated prune will delete it (no finding, said once in the scan's log), or something
 * holds it (`Prune=false`/`Prune=confirm`, manual sync: `cluster.orphaned` with `pruneHeldBy`).
 * Without the Application (403, 404) nobody can say whether Argo CD prunes it: `cluster.extraneous`.
 */
export function extraneousVerdict(
  entry: ExtraneousObject,
  context: {
    builder: ClusterFindingBuilder;
    source: string;
    tracking: ArgoTracking;
    /** The tracking Application as read (argocd-ignore-source.ts), undefined when it was not. */
    application?: ArgoApplication;
  },
): ExtraneousVerdict {
  const { builder, application } = context;
  const object = describeObject(entry.identity);
  const app = argoAppName(entry);
  const title = `${object} of application ${app} is no longer in git but still in cluster ${builder.cluster.id}`;
  const notRendered = `${object} carries application ${app}'s tracking (${context.tracking.method}) but is not in ${context.source}`;
  if (application === undefined)
    return {
      finding: builder.finding({
        ruleId: 'cluster.extraneous',
        app,
        identity: entry.identity,
        title,
        detail: `${notRendered}.`,
        evidence: { source: context.source, tracking: context.tracking.method },
        remediation: clusterRemediation.extraneous(app, object),
      }),
    };
  const hold = pruneHold(application, entry.object);
  if (hold === undefined)
    return {
      prunedByArgoCd: `${object} of application ${app} is not in ${context.source}: Argo CD prunes it at its next automated sync (automated.prune: true)`,
    };
  return {
    finding: builder.finding({
      ruleId: 'cluster.orphaned',
      app,
      identity: entry.identity,
      title,
      detail: `${notRendered}, and ${pruneHoldReason(hold, app)}.`,
      evidence: {
        source: context.source,
        tracking: context.tracking.method,
        prune: false,
        pruneHeldBy: hold.by,
        pruneOption: hold.option,
      },
      remediation: clusterRemediation.orphaned(app, object, hold),
    }),
  };
}
