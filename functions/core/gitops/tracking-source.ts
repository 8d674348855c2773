import { type ClusterConfig, DEFAULT_ARGOCD_NAMESPACE } from '../registry/model.js';
import { argoCdNamespace, ignoreRulesFromConfigMap, oneLine } from './argocd-ignore-source.js';
import type { SourcedIgnoreRule } from './ignore-differences.js';
import { ClusterSourceError, isServerWide, type KubernetesApi } from './ports.js';
import { type ArgoTracking, registryTracking, trackingFromConfigMap } from './tracking.js';

/** Where an Argo CD install keeps argocd-cm (the namespace its manifests install into). */
export const ARGOCD_CM = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'argocd-cm',
  namespace: DEFAULT_ARGOCD_NAMESPACE,
};

/** What direct mode takes from the cluster's Argo CD settings (argocd-cm), read once per scan. */
export interface ArgoCdSettings {
  tracking: ArgoTracking;
  /** argocd-cm's `resource.customizations` ignoreDifferences, for the objects an application tracks. */
  ignoreRules: SourcedIgnoreRule[];
  /** Why argocd-cm's rules could not be read or used (403, a rule jq cannot compile); one line. */
  unread?: string;
}

/**
 * Direct mode: the Argo CD instance's settings from its argocd-cm when driftwatch may read it: the
 * tracking method (else the registry's `trackingMethod`, else Argo CD 3.x's default, annotation)
 * and the system-level ignoreDifferences. No Argo CD in the cluster, or no permission to read the
 * ConfigMap, is not a failure of the scan: the objects are then someone else's, named by their
 * applier, and compared without Argo CD's rules. A server-wide failure (isServerWide) rejects: it is.
 */
export async function argoCdSettings(
  api: Pick<KubernetesApi, 'readLive'>,
  cluster: ClusterConfig,
): Promise<ArgoCdSettings> {
  const fallback = registryTracking(cluster.trackingMethod);
  const request = { ...ARGOCD_CM, namespace: argoCdNamespace(cluster) };
  const where = `argocd-cm (namespace ${request.namespace})`;
  try {
    const configMap = await api.readLive(request);
    if (!configMap.found) return { tracking: fallback, ignoreRules: [], unread: `${where} not found` };
    const { rules, problems } = ignoreRulesFromConfigMap(configMap.object);
    return {
      tracking: trackingFromConfigMap(configMap.object, fallback),
      ignoreRules: rules,
      ...(problems.length > 0 ? { unread: problems.map(oneLine).join('; ') } : {}),
    };
  } catch (error) {
    // A server that fails every read (unreachable, credentials refused, no Kubernetes API at all)
    // is the scan's failure, not a missing argocd-cm.
    if (isServerWide(error)) throw error;
    const reason = error instanceof ClusterSourceError ? error.reason : String(error);
    return { tracking: fallback, ignoreRules: [], unread: `${where} could not be read: ${oneLine(reason)}` };
  }
}

/** The tracking method alone (see argoCdSettings). */
export async function instanceTracking(
  api: Pick<KubernetesApi, 'readLive'>,
  cluster: ClusterConfig,
): Promise<ArgoTracking> {
  return (await argoCdSettings(api, cluster)).tracking;
}
