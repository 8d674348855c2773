import { parse as parseYaml } from 'yaml';
import type { ClusterConfig } from '../registry/model.js';
import { DEFAULT_ARGOCD_NAMESPACE } from '../registry/model.js';
import { type ArgoApplication, applicationSchema } from './argo-api.js';
import { parseIgnoreDifferences, type SourcedIgnoreRule } from './ignore-differences.js';
import { isPlainObject, type KubeObject, type ObjectIdentity } from './kube-object.js';
import { ClusterSourceError, isServerWide, type KubernetesApi } from './ports.js';
import { type ArgoTracking, argoApplicationOf } from './tracking.js';

/**
 * Direct mode: the `ignoreDifferences` Argo CD itself would apply to an object it tracks, read
 * through the Kubernetes API (GET only):
 * - the tracking Application's `spec.ignoreDifferences`
 *   (`/apis/argoproj.io/v1alpha1/namespaces/<ns>/applications/<name>`), read once per application
 *   and scan;
 * - argocd-cm's system-level rules: `resource.customizations.ignoreDifferences.<group_kind>`
 *   (`apps_Deployment`, `Service` for the core group, `all` for every kind), and the older
 *   `resource.customizations` YAML (`apps/Deployment: {ignoreDifferences: …}`), as argo-cd
 *   util/settings/settings.go reads them.
 * Neither is required: no permission, no Argo CD or no such Application leaves the rules out, and
 * the finding says which could not be read and why. The Application read here also decides direct
 * mode's extraneous objects (its sync policy, and the kinds its `status.resources` lists).
 */

export const APPLICATION_API_VERSION = 'argoproj.io/v1alpha1';

/** Argo CD's application rules for one object: the rules, and why some could not be read. */
export interface ApplicationIgnoreRules {
  rules: SourcedIgnoreRule[];
  /** One line: what could not be read or used, and why (403, not found, a jq expression). */
  unread?: string;
  /** The Application as read (spec and status), when it was read and has an Application's shape. */
  application?: ArgoApplication;
}

/** The reader's key for a tracked application: `<namespace>_<name>` outside Argo CD's namespace. */
export function applicationInstance(owner: { app: string; appNamespace?: string }): string {
  return owner.appNamespace ? `${owner.appNamespace}_${owner.app}` : owner.app;
}

/** The namespace Argo CD's settings and Applications live in (registry `argocdNamespace`). */
export function argoCdNamespace(cluster: ClusterConfig): string {
  return cluster.kubernetes?.argocdNamespace ?? DEFAULT_ARGOCD_NAMESPACE;
}

/**
 * Where an application's object is: `<namespace>_<name>` names an application outside Argo CD's
 * own namespace (Argo CD's apps-in-any-namespace instance names), else it is in `argocdNamespace`.
 */
export function applicationLocation(
  instance: string,
  argocdNamespace: string,
): { namespace: string; name: string } {
  const separator = instance.indexOf('_');
  // Neither a namespace nor an application name can contain '_': the first one separates them.
  if (separator > 0 && separator < instance.length - 1)
    return { namespace: instance.slice(0, separator), name: instance.slice(separator + 1) };
  return { namespace: argocdNamespace, name: instance };
}

/** The system-level rules of argocd-cm's `data` (both the split keys and the older YAML key). */
export function ignoreRulesFromConfigMap(configMap: KubeObject): {
  rules: SourcedIgnoreRule[];
  problems: string[];
} {
  const data = isPlainObject(configMap.data) ? configMap.data : {};
  const rules: SourcedIgnoreRule[] = [];
  const problems: string[] = [];
  const add = (result: { rules: SourcedIgnoreRule[]; problems: string[] }) => {
    rules.push(...result.rules);
    problems.push(...result.problems);
  };
  const legacy = data['resource.customizations'];
  if (typeof legacy === 'string' && legacy.trim() !== '') {
    const overrides = readYaml(legacy, 'resource.customizations', problems);
    if (isPlainObject(overrides))
      for (const [key, override] of Object.entries(overrides)) {
        if (!isPlainObject(override) || override.ignoreDifferences === undefined) continue;
        // Older Argo CD keeps the value as a YAML string; a map is read the same way.
        const value =
          typeof override.ignoreDifferences === 'string'
            ? readYaml(override.ignoreDifferences, `resource.customizations ${key}`, problems)
            : override.ignoreDifferences;
        add(parseIgnoreDifferences(value, `argocd-cm resource.customizations (${key})`, groupKindOf(key)));
      }
  }
  const prefix = 'resource.customizations.ignoreDifferences.';
  for (const [key, text] of Object.entries(data)) {
    if (!key.startsWith(prefix) || typeof text !== 'string') continue;
    const groupKind = key.slice(prefix.length);
    const value = readYaml(text, key, problems);
    const target = groupKind === 'all' ? { group: '*', kind: '*' } : groupKindOf(groupKind.replace('_', '/'));
    add(parseIgnoreDifferences(value, `argocd-cm ${key}`, target));
  }
  return { rules, problems };
}

/** An override key, `<group>/<kind>` or `<kind>` (core group), as Argo CD's getGroupKindForOverrideKey. */
function groupKindOf(key: string): { group: string; kind: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { group: '', kind: key } : { group: key.slice(0, slash), kind: key.slice(slash + 1) };
}

function readYaml(text: string, where: string, problems: string[]): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    problems.push(`argocd-cm ${where} is not YAML: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** `spec.ignoreDifferences` of an Application object as the API server returns it. */
export function ignoreRulesFromApplication(
  application: KubeObject,
  location: { namespace: string; name: string },
) {
  const spec = isPlainObject(application.spec) ? application.spec : {};
  return parseIgnoreDifferences(
    spec.ignoreDifferences,
    `Application ${location.namespace}/${location.name} ignoreDifferences`,
  );
}

/**
 * Reads each application's rules once per scan (concurrent objects of one application share the
 * read). A refusal (403), a missing Application or CRD, or another error of that one read is
 * `unread`, never a failure; only a server that is unreachable or rejects the credentials fails,
 * as it fails every other read.
 */
export function createApplicationRulesReader(
  api: Pick<KubernetesApi, 'readLive'>,
  argocdNamespace: string,
): (instance: string) => Promise<ApplicationIgnoreRules> {
  const cache = new Map<string, Promise<ApplicationIgnoreRules>>();
  return (instance) => {
    const location = applicationLocation(instance, argocdNamespace);
    const key = `${location.namespace}/${location.name}`;
    let cached = cache.get(key);
    if (cached === undefined) {
      cached = readApplicationRules(api, location);
      cache.set(key, cached);
    }
    return cached;
  };
}

async function readApplicationRules(
  api: Pick<KubernetesApi, 'readLive'>,
  location: { namespace: string; name: string },
): Promise<ApplicationIgnoreRules> {
  const where = `Application ${location.namespace}/${location.name}`;
  let read: Awaited<ReturnType<KubernetesApi['readLive']>>;
  try {
    read = await api.readLive({ apiVersion: APPLICATION_API_VERSION, kind: 'Application', ...location });
  } catch (error) {
    if (isServerWide(error)) throw error;
    const reason = error instanceof ClusterSourceError ? error.reason : String(error);
    return { rules: [], unread: `${where} could not be read: ${oneLine(reason)}` };
  }
  if (!read.found)
    return {
      rules: [],
      unread:
        read.reason === 'kind-not-served'
          ? `${where} could not be read: the cluster does not serve ${APPLICATION_API_VERSION} Application`
          : `${where} could not be read: not found (404)`,
    };
  const { rules, problems } = ignoreRulesFromApplication(read.object, location);
  const application = applicationSchema.safeParse(read.object);
  return {
    rules,
    ...(problems.length > 0 ? { unread: problems.map(oneLine).join('; ') } : {}),
    ...(application.success ? { application: application.data } : {}),
  };
}

/** One line, bounded: the server's message can be long. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 400 ? `${line.slice(0, 399)}…` : line;
}

/** The registry's `kubernetes.ignoreDifferences` of a cluster, named for `evidence.ignored`. */
export function registryIgnoreDifferences(cluster: ClusterConfig): SourcedIgnoreRule[] {
  return (cluster.kubernetes?.ignoreDifferences ?? []).map((rule, index) => ({
    ...rule,
    source: `registry kubernetes.ignoreDifferences[${index}] of cluster ${cluster.id}`,
  }));
}

/** What directObjectFindings takes: the rules for one live object, and what could not be read. */
export interface ObjectIgnoreDifferences {
  ignoreDifferences: SourcedIgnoreRule[];
  ignoreDifferencesUnread?: string;
}

/**
 * The ignoreDifferences for each live object of a scan: the registry's always; argocd-cm's and the
 * tracking Application's when the instance's tracking names an application for the object (Argo CD
 * applies its settings to what it manages, not to objects another tool applies in the same cluster).
 * `unreadSeen` collects each source that could not be read, once, for the scan's log: a platform
 * engineer learns that Argo CD's rules were not applied without reading every finding.
 * `applicationRules` lets the scan share its reader (each Application read once per scan).
 */
export function createIgnoreDifferencesResolver(
  api: Pick<KubernetesApi, 'readLive'>,
  cluster: ClusterConfig,
  settings: { tracking: ArgoTracking; ignoreRules: SourcedIgnoreRule[]; unread?: string },
  unreadSeen?: Set<string>,
  applicationRules = createApplicationRulesReader(api, argoCdNamespace(cluster)),
): (live: KubeObject, identity: ObjectIdentity) => Promise<ObjectIgnoreDifferences> {
  const registry = registryIgnoreDifferences(cluster);
  return async (live, identity) => {
    const app = argoApplicationOf(live, identity, settings.tracking);
    if (app === undefined) return { ignoreDifferences: registry };
    const read = await applicationRules(applicationInstance(app));
    const unreadLines = [read.unread, settings.unread].filter((line) => line !== undefined);
    for (const line of unreadLines) unreadSeen?.add(line);
    const unread = unreadLines.join('; ');
    return {
      ignoreDifferences: [...read.rules, ...settings.ignoreRules, ...registry],
      ...(unread ? { ignoreDifferencesUnread: unread } : {}),
    };
  };
}
