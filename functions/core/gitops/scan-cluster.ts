import type { CurrentDocument, ScanOutcome } from '../findings/lifecycle.js';
import type { FindingDraft } from '../findings/model.js';
import { redactText, type SensitiveHasher } from '../redaction/secrets.js';
import {
  type ClusterConfig,
  DEFAULT_CLUSTER_COMPARISON,
  DEFAULT_FIELD_MANAGER,
  type Registry,
} from '../registry/model.js';
import { createRouter } from '../routing/routes.js';
import { mapConcurrently } from '../scan/map-concurrently.js';
import { activeIgnoreRules } from '../terraform/noise.js';
import {
  type ArgoApplication,
  applicationListSchema,
  applicationSchema,
  InvalidArgoResponseError,
  managedResourcesSchema,
  parseArgoResponse,
} from './argo-api.js';
import {
  applicationIdentity,
  applicationName,
  applicationStatusFindings,
  controllerNamespaceOf,
  isOutOfSync,
  managedResourceFindings,
  trackedFromStatus,
} from './argo-findings.js';
import {
  type ApplicationIgnoreRules,
  applicationInstance,
  argoCdNamespace,
  createApplicationRulesReader,
  createIgnoreDifferencesResolver,
} from './argocd-ignore-source.js';
import { type ClusterFindingBuilder, createClusterFindingBuilder } from './cluster-findings.js';
import type { ClusterScanFailedRule } from './cluster-rules.js';
import { CLUSTER_RULES, isProductionCluster } from './cluster-rules.js';
import { ownershipConflicts } from './conflicts.js';
import { directObjectFindings, extraneousVerdict, withApplicationTracking } from './direct-findings.js';
import {
  extraneousObjects,
  instanceLabelSelectors,
  type ListTarget,
  listTargets,
  managedListTargets,
  withResolvedNamespaces,
} from './extraneous.js';
import type { SkippedObject } from './hooks.js';
import { identityOf, type KubeObject, type ObjectIdentity } from './kube-object.js';
import { ManifestError, parseRender } from './manifests.js';
import {
  type ClusterScanPorts,
  ClusterSourceError,
  isServerWide,
  type KubernetesApi,
  type LiveObjectRequest,
} from './ports.js';
import { type ComparisonOptions, desiredStateOf } from './server-side-diff.js';
import type { TerraformKubernetesObject } from './terraform-objects.js';
import type { TrackedObject } from './tracked-object.js';
import { type ArgoTracking, argoApplicationOf } from './tracking.js';
import { argoCdSettings } from './tracking-source.js';

/**
 * The ScanCluster stage for one cluster: read it (Argo CD, or manifests versus the Kubernetes API),
 * read the Terraform state of the workspaces that target it, and return the finding drafts. One
 * application's or object's failure is recorded and the others are still scanned; a run with any
 * failure is `failed`, so it resolves none of the cluster's open findings (it did not see them all).
 */

export interface ClusterScanContext {
  registry: Registry;
  ports: ClusterScanPorts;
  hashSensitive: SensitiveHasher;
  now: Date;
  /** The cluster's current document before this run (for how long applications have been OutOfSync). */
  previous?: CurrentDocument;
}

export interface ClusterScanResult {
  cluster: string;
  mode: 'argocd' | 'kubernetes';
  outcome: ScanOutcome;
  findings: FindingDraft[];
  /** Applications (Argo CD) or objects (direct mode) compared. */
  scanned: number;
  /** Direct mode: rendered objects not expected to exist (hooks, generateName), with the reason. */
  skipped: SkippedObject[];
  /** Direct mode: what the render could not do as the GitOps tool does (e.g. Helm without discovery). */
  renderNotes?: string[];
  /**
   * Direct mode: the Argo CD sources of ignore rules (a tracking Application, argocd-cm) that could
   * not be read, each once for the cluster; the findings of their objects say it too.
   */
  ignoreRulesUnread?: string[];
  /**
   * Direct mode: objects Git no longer renders that Argo CD's automated prune will delete on its own
   * (no finding: nothing for a person to do), each once.
   */
  prunedByArgoCd?: string[];
}

/** Reads done at the same time against one server: enough to hide latency, few enough to be polite. */
const READ_CONCURRENCY = 4;

export async function scanCluster(
  cluster: ClusterConfig,
  context: ClusterScanContext,
): Promise<ClusterScanResult> {
  const builder = createClusterFindingBuilder(cluster, context.registry.policies);
  const gitops = cluster.argocd
    ? await scanArgoCd(cluster, builder, context)
    : await scanDirect(cluster, builder, context);
  const findings = [...gitops.findings];
  if (gitops.tracked !== undefined) {
    const terraform = await terraformObjects(cluster, builder, context);
    findings.push(...terraform.failures, ...ownershipConflicts(gitops.tracked, terraform.objects, builder));
  }
  return {
    cluster: cluster.id,
    mode: cluster.argocd ? 'argocd' : 'kubernetes',
    outcome: findings.some((finding) => finding.kind === 'scan-failed') ? 'failed' : 'ok',
    findings,
    scanned: gitops.scanned,
    skipped: gitops.skipped ?? [],
    ...(gitops.renderNotes ? { renderNotes: gitops.renderNotes } : {}),
    ...(gitops.ignoreRulesUnread?.length ? { ignoreRulesUnread: gitops.ignoreRulesUnread } : {}),
    ...(gitops.prunedByArgoCd?.length ? { prunedByArgoCd: gitops.prunedByArgoCd } : {}),
  };
}

interface GitOpsRead {
  findings: FindingDraft[];
  /** undefined when the GitOps side could not be read at all: no conflicts can be computed. */
  tracked?: TrackedObject[];
  scanned: number;
  skipped?: SkippedObject[];
  renderNotes?: string[];
  ignoreRulesUnread?: string[];
  prunedByArgoCd?: string[];
}

async function scanArgoCd(
  cluster: ClusterConfig,
  builder: ClusterFindingBuilder,
  context: ClusterScanContext,
): Promise<GitOpsRead> {
  const api = context.ports.argocd(cluster);
  let listed: { metadata: { name: string; namespace?: string | null }; status?: unknown }[];
  try {
    listed =
      parseArgoResponse(applicationListSchema, await api.listApplications(), 'application list').items ?? [];
  } catch (error) {
    return { findings: [sourceFailure(builder, error, `listing applications of ${api.url}`)], scanned: 0 };
  }
  // An empty list is what Argo CD answers for an unknown project, a selector nothing matches, or a
  // token whose account may not see the applications: "no findings" would claim a check that never ran.
  if (listed.length === 0)
    return {
      findings: [
        builder.scanFailed({ ruleId: 'scan.cluster-empty', reason: noApplicationsReason(cluster, api.url) }),
      ],
      scanned: 0,
    };
  // One Argo CD instance, one controller: its namespace routes entries such as `openshift-gitops/shop`.
  const controllerNamespace = listed.map(controllerNamespaceOf).find((namespace) => namespace !== undefined);
  if (controllerNamespace !== undefined) builder.useControllerNamespace(controllerNamespace);
  const production = isProductionCluster(cluster, context.registry.policies);
  const since = outOfSyncSince(context.previous);
  const readManagedAlways = cluster.workspaces.length > 0;
  const names = listed
    .map((item) => ({
      name: item.metadata.name,
      namespace: item.metadata.namespace ?? undefined,
      // Read is by name and namespace; findings, owners and texts use the application's name as
      // the argocd CLI does (`<namespace>/<name>` outside the controller's namespace).
      label: applicationName(item),
    }))
    .sort((a, b) => a.label.localeCompare(b.label));

  // As in direct mode, the first read that shows the server unreachable or refusing the token (it
  // expired mid-scan, Argo CD restarted after the list) stops the scan: each of hundreds of
  // applications got the same finding, and against a server that stopped answering each read waited
  // out its timeout, four at a time, past a Lambda's 15 minutes.
  let fatal: FindingDraft | undefined;
  const stop = (error: unknown): boolean => {
    if (!isServerWide(error)) return false;
    fatal ??= sourceFailure(builder, error, `reading applications from ${api.url}`);
    return true;
  };
  const results = await mapConcurrently(names, READ_CONCURRENCY, async ({ name, namespace, label }) => {
    const findings: FindingDraft[] = [];
    if (fatal) return { findings, tracked: [] as TrackedObject[] };
    let application: ArgoApplication;
    try {
      application = parseArgoResponse(
        applicationSchema,
        await api.getApplication(name, namespace),
        `application ${label}`,
      );
    } catch (error) {
      if (stop(error)) return { findings, tracked: [] as TrackedObject[] };
      const identity = {
        group: 'argoproj.io',
        kind: 'Application',
        name,
        ...(namespace ? { namespace } : {}),
      };
      const vanished = error instanceof ClusterSourceError && error.failure === 'not-found';
      const reason = vanished
        ? `application ${label} was listed but no longer exists: it was deleted between the list and the read (${error.reason})`
        : `application ${label}: ${reasonOf(error)}`;
      findings.push(applicationFailure(builder, error, label, identity, reason));
      return { findings, tracked: [] as TrackedObject[] };
    }
    const app = applicationName(application);
    const status = applicationStatusFindings(application, {
      builder,
      production,
      now: context.now,
      outOfSyncSince: since.get(app),
    });
    findings.push(...status.drafts);
    if (!status.comparable || !(isOutOfSync(application) || readManagedAlways))
      return { findings, tracked: trackedFromStatus(application) };
    try {
      const managed = parseArgoResponse(
        managedResourcesSchema,
        await api.managedResources(name, namespace),
        `managed resources of ${app}`,
      );
      const result = managedResourceFindings(application, managed.items ?? [], {
        builder,
        hashSensitive: context.hashSensitive,
      });
      findings.push(...result.drafts);
      return { findings, tracked: result.tracked };
    } catch (error) {
      // Not a time-out: the diff of an application of thousands of objects can be slow on its own,
      // while its GET (which came back) shows the server answers.
      const slow = error instanceof ClusterSourceError && error.timedOut;
      if (!slow && stop(error)) return { findings, tracked: [] as TrackedObject[] };
      const reason = `managed resources of application ${app}: ${reasonOf(error)}`;
      findings.push(applicationFailure(builder, error, app, applicationIdentity(application), reason));
      return { findings, tracked: trackedFromStatus(application) };
    }
  });
  // What was read before is left out, as in direct mode: the run failed and resolves nothing.
  if (fatal) return { findings: [fatal], scanned: 0 };
  return {
    findings: results.flatMap((result) => result.findings),
    tracked: results.flatMap((result) => result.tracked),
    scanned: names.length,
  };
}

async function scanDirect(
  cluster: ClusterConfig,
  builder: ClusterFindingBuilder,
  context: ClusterScanContext,
): Promise<GitOpsRead> {
  const api = context.ports.kubernetes(cluster);
  let desired: KubeObject[];
  let skipped: SkippedObject[];
  let source: string;
  let renderNotes: string[] | undefined;
  try {
    const rendered = await api.desiredManifests();
    source = rendered.source;
    renderNotes = rendered.notes;
    try {
      ({ objects: desired, skipped } = parseRender(rendered.text));
    } catch (error) {
      // The render ran but printed something else than manifests (a log, a wrapper's banner, a
      // template's stray text): which render, and that it must print manifests only.
      if (!(error instanceof ManifestError)) throw error;
      throw new ManifestError(
        `the render of ${source} is not Kubernetes manifests (${error.message}): make it print only YAML or JSON objects with apiVersion, kind and metadata.name`,
      );
    }
  } catch (error) {
    const ruleId =
      error instanceof ManifestError
        ? 'scan.cluster-manifests'
        : failureRule(error, 'scan.cluster-manifests');
    return {
      findings: [builder.scanFailed({ ruleId, reason: `desired manifests: ${reasonOf(error)}` })],
      scanned: 0,
    };
  }

  // A render without a single object to compare (an empty kustomization, a directory of hooks only)
  // would end as "no findings" about objects nobody looked at.
  if (desired.length === 0)
    return {
      findings: [
        builder.scanFailed({ ruleId: 'scan.cluster-empty', reason: noObjectsReason(source, skipped) }),
      ],
      scanned: 0,
      skipped,
      renderNotes,
    };

  // The first read that shows the server is unreachable or refuses us stops the scan: a thousand
  // identical failures would say nothing more than one.
  let fatal: FindingDraft | undefined;
  let settings: Awaited<ReturnType<typeof argoCdSettings>>;
  try {
    settings = await argoCdSettings(api, cluster);
  } catch (error) {
    // Only server-wide failures get here (argoCdSettings): the first read already shows them.
    const finding = sourceFailure(builder, error, `reading live objects from ${api.server}`);
    return { findings: [finding], scanned: 0, skipped, renderNotes };
  }
  const { tracking } = settings;
  // Argo CD's ignoreDifferences for each object (its Application's, argocd-cm's) and the registry's.
  const ignoreRulesUnread = new Set<string>();
  // Each tracking Application is read once: for its ignoreDifferences and for extraneous objects.
  const readApplication = createApplicationRulesReader(api, argoCdNamespace(cluster));
  const ignoreDifferencesOf = createIgnoreDifferencesResolver(
    api,
    cluster,
    settings,
    ignoreRulesUnread,
    readApplication,
  );
  // The tracking Applications of the render's live objects (reader keys: `[<namespace>_]<name>`).
  const applications = new Set<string>();
  const liveIdentities = new Map<KubeObject, ObjectIdentity>();
  const options: ComparisonOptions = {
    comparison: cluster.kubernetes?.comparison ?? DEFAULT_CLUSTER_COMPARISON,
    fieldManager: cluster.kubernetes?.fieldManager ?? DEFAULT_FIELD_MANAGER,
  };
  const ignoreRules = activeIgnoreRules(context.registry.policies.ignore, context.now);
  const results = await mapConcurrently(desired, READ_CONCURRENCY, async (object) => {
    if (fatal) return undefined;
    const identity = identityOf(object)!;
    const findingContext = { builder, hashSensitive: context.hashSensitive, source, tracking, ignoreRules };
    try {
      const request: LiveObjectRequest = {
        apiVersion: String(object.apiVersion),
        kind: identity.kind,
        name: identity.name,
        ...(identity.namespace ? { namespace: identity.namespace } : {}),
      };
      // The live read comes first: a missing object is never dry-run (nothing to compare).
      const live = await api.readLive(request);
      if (!live.found) return directObjectFindings(object, live, findingContext);
      const liveIdentity = identityOf(live.object) ?? identity;
      liveIdentities.set(object, liveIdentity);
      const owner = argoApplicationOf(live.object, liveIdentity, tracking);
      if (owner) applications.add(applicationInstance(owner));
      const ignoreDifferences = await ignoreDifferencesOf(live.object, liveIdentity);
      const manifest = withApplicationTracking(object, live.object, tracking);
      const comparison = await desiredStateOf(api, request, manifest, options);
      if ('created' in comparison)
        // Deleted between the read and the dry-run: the server would create it.
        return directObjectFindings(
          object,
          { found: false, reason: 'not-found' },
          { ...findingContext, missingBy: comparison.method },
        );
      return directObjectFindings(manifest, live, { ...findingContext, ...ignoreDifferences, comparison });
    } catch (error) {
      if (isServerWide(error)) {
        fatal ??= sourceFailure(builder, error, `reading live objects from ${api.server}`);
        return undefined;
      }
      const reason = `${identity.kind} ${identity.name}: ${reasonOf(error)}`;
      return {
        drafts: [builder.scanFailed({ ruleId: 'scan.cluster-object', identity, reason })],
        tracked: undefined,
      };
    }
  });
  if (fatal) return { findings: [fatal], scanned: 0, skipped, renderNotes };
  const tracked = results.flatMap((result) => (result?.tracked ? [result.tracked] : []));
  // Objects without a namespace in the render are listed where the cluster put them.
  const resolved = withResolvedNamespaces(desired, (object) => liveIdentities.get(object));
  const extraneous = await extraneousDrafts(api, resolved, tracked, {
    builder,
    source,
    tracking,
    applications,
    readApplication: async (instance) => {
      const read = await readApplication(instance);
      if (read.unread) ignoreRulesUnread.add(read.unread);
      return read;
    },
  });
  return {
    findings: [...results.flatMap((result) => result?.drafts ?? []), ...extraneous.drafts],
    tracked,
    scanned: desired.length,
    skipped,
    renderNotes,
    ignoreRulesUnread: [...ignoreRulesUnread].sort(),
    prunedByArgoCd: extraneous.prunedByArgoCd,
  };
}

/**
 * Objects an application of the render tracks that the render lacks (extraneous.ts): one LIST per
 * kind and namespace of the render, of the default kinds, and of the tracking Applications'
 * `status.resources` (the kinds Argo CD manages for them, even those Git dropped entirely), by the
 * tracking label when the instance tracks by label (annotations cannot be selected on). A LIST the
 * server refuses fails that kind only (`scan.cluster-object`), never the objects already compared.
 * Each object found is decided by its Application's sync policy when it was read (extraneousVerdict).
 */
async function extraneousDrafts(
  api: KubernetesApi,
  desired: readonly KubeObject[],
  tracked: readonly TrackedObject[],
  context: {
    builder: ClusterFindingBuilder;
    source: string;
    tracking: ArgoTracking;
    /** Reader keys of the tracking Applications of the render's live objects. */
    applications: ReadonlySet<string>;
    readApplication: (instance: string) => Promise<ApplicationIgnoreRules>;
  },
): Promise<{ drafts: FindingDraft[]; prunedByArgoCd: string[] }> {
  const none = { drafts: [], prunedByArgoCd: [] };
  if (api.listObjects === undefined) return none;
  const apps = new Set(tracked.flatMap((object) => (object.app === undefined ? [] : [object.app])));
  if (apps.size === 0) return none;
  const rendered = desired.flatMap((object) => identityOf(object) ?? []);
  const drafts: FindingDraft[] = [];
  const prunedByArgoCd: string[] = [];
  const listed: KubeObject[] = [];
  const managed: ListTarget[] = [];
  for (const instance of context.applications)
    managed.push(...managedListTargets((await context.readApplication(instance)).application));
  for (const target of listTargets(desired, managed)) {
    const selectors =
      context.tracking.method === 'label' ? instanceLabelSelectors(apps, context.tracking) : [undefined];
    for (const labelSelector of selectors) {
      try {
        const items = await api.listObjects({ ...target, ...(labelSelector ? { labelSelector } : {}) });
        if (items) listed.push(...items);
      } catch (error) {
        const where = target.namespace ? ` in namespace ${target.namespace}` : '';
        drafts.push(
          context.builder.scanFailed({
            ruleId: 'scan.cluster-object',
            reason: `listing ${target.kind}${where} for extraneous objects: ${reasonOf(error)}`,
          }),
        );
      }
    }
  }
  for (const entry of extraneousObjects(listed, rendered, apps, context.tracking)) {
    const { application } = await context.readApplication(applicationInstance(entry));
    const verdict = extraneousVerdict(entry, { ...context, ...(application ? { application } : {}) });
    if ('finding' in verdict) drafts.push(verdict.finding);
    else prunedByArgoCd.push(verdict.prunedByArgoCd);
  }
  return { drafts, prunedByArgoCd: prunedByArgoCd.sort() };
}

async function terraformObjects(
  cluster: ClusterConfig,
  builder: ClusterFindingBuilder,
  context: ClusterScanContext,
): Promise<{ objects: (TerraformKubernetesObject & { owner: string })[]; failures: FindingDraft[] }> {
  const objects: (TerraformKubernetesObject & { owner: string })[] = [];
  const failures: FindingDraft[] = [];
  for (const id of cluster.workspaces) {
    const workspace = context.registry.workspaces.find((entry) => entry.id === id);
    if (!workspace) continue;
    try {
      const owned = await context.ports.terraformObjects(workspace);
      const router = createRouter(workspace);
      for (const object of owned) objects.push({ ...object, owner: router.ownerOf(object.address) });
    } catch (error) {
      failures.push(
        builder.scanFailed({
          ruleId: 'scan.terraform-state',
          reason: `Terraform state of workspace ${workspace.id}: ${reasonOf(error)}`,
          evidence: { terraformWorkspace: workspace.id },
        }),
      );
    }
  }
  return { objects, failures };
}

/**
 * When driftwatch first saw each application's drift: the oldest open drift finding per application.
 * Argo CD does not record since when an application is OutOfSync, so the findings' lifecycle does.
 */
export function outOfSyncSince(previous: CurrentDocument | undefined): Map<string, Date> {
  const since = new Map<string, Date>();
  for (const finding of previous?.findings ?? []) {
    if (finding.check !== 'cluster' || !isOutOfSyncRule(finding.ruleId)) continue;
    const app = finding.resource && 'kind' in finding.resource ? finding.resource.app : undefined;
    if (app === undefined) continue;
    const first = new Date(finding.firstSeenAt);
    const known = since.get(app);
    if (known === undefined || first < known) since.set(app, first);
  }
  return since;
}

/** Why an Argo CD scan read nothing, naming the filters that chose nothing and how to check them. */
function noApplicationsReason(cluster: ClusterConfig, url: string): string {
  const { project, selector } = cluster.argocd ?? {};
  const filters = [...(project ? [`project ${project}`] : []), ...(selector ? [`selector ${selector}`] : [])];
  const rbac =
    "that the token's account may read applications (Argo CD lists only those its RBAC lets it see)";
  if (filters.length === 0) return `Argo CD at ${url} returned no applications: check ${rbac}`;
  return (
    `Argo CD at ${url} returned no applications for ${filters.join(' / ')}: check --project and ` +
    `--selector (a registry cluster: argocd.project and argocd.selector), and ${rbac}`
  );
}

/** Why a direct-mode scan compared nothing: the render held no object (or only hooks and generateName ones). */
function noObjectsReason(source: string, skipped: readonly SkippedObject[]): string {
  const setApart =
    skipped.length > 0 ? ` (${skipped.length} set apart as hooks or generateName objects)` : '';
  return (
    `the desired manifests (${source}) hold no objects to compare${setApart}: ` +
    "check the overlay or chart (--kustomize, or the registry cluster's manifests) renders the objects the cluster should have"
  );
}

function reasonOf(error: unknown): string {
  if (error instanceof ClusterSourceError) return error.reason;
  return redactText(error instanceof Error ? error.message : String(error));
}

function failureRule(error: unknown, otherwise: ClusterScanFailedRule): ClusterScanFailedRule {
  if (error instanceof InvalidArgoResponseError || error instanceof SyntaxError)
    return 'scan.cluster-invalid-response';
  if (!(error instanceof ClusterSourceError)) return otherwise;
  switch (error.failure) {
    case 'unreachable':
      return 'scan.cluster-unreachable';
    case 'unauthorized':
    case 'forbidden':
      return 'scan.cluster-unauthorized';
    case 'configuration':
      return 'scan.cluster-credentials';
    case 'invalid-response':
      return 'scan.cluster-invalid-response';
    default:
      return otherwise;
  }
}

function sourceFailure(builder: ClusterFindingBuilder, error: unknown, doing: string): FindingDraft {
  return builder.scanFailed({
    ruleId: failureRule(error, 'scan.cluster-unreachable'),
    reason: `${doing}: ${reasonOf(error)}`,
  });
}

function applicationFailure(
  builder: ClusterFindingBuilder,
  error: unknown,
  app: string,
  identity: ObjectIdentity,
  reason: string,
): FindingDraft {
  return builder.scanFailed({
    ruleId: failureRule(error, 'scan.cluster-application'),
    app,
    identity,
    reason,
  });
}

function isOutOfSyncRule(ruleId: string): boolean {
  return (
    Object.hasOwn(CLUSTER_RULES, ruleId) && CLUSTER_RULES[ruleId as keyof typeof CLUSTER_RULES].outOfSync
  );
}
