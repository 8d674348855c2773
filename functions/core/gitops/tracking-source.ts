import type { ClusterConfig } from '../registry/model.js';
import type { KubernetesApi } from './ports.js';
import { type ArgoTracking, registryTracking, trackingFromConfigMap } from './tracking.js';

/** Where an Argo CD install keeps argocd-cm (the namespace its manifests install into). */
export const ARGOCD_CM = { apiVersion: 'v1', kind: 'ConfigMap', name: 'argocd-cm', namespace: 'argocd' };

/**
 * Direct mode: the tracking method of an Argo CD instance in the cluster, from its argocd-cm when
 * driftwatch may read it, else the registry's `trackingMethod`, else Argo CD 3.x's default
 * (annotation). No Argo CD in the cluster, or no permission to read the ConfigMap, is not a failure
 * of the scan: the objects are then someone else's, named by their applier.
 */
export async function instanceTracking(
  api: Pick<KubernetesApi, 'readLive'>,
  cluster: ClusterConfig,
): Promise<ArgoTracking> {
  const fallback = registryTracking(cluster.trackingMethod);
  try {
    const configMap = await api.readLive(ARGOCD_CM);
    return configMap.found ? trackingFromConfigMap(configMap.object, fallback) : fallback;
  } catch {
    return fallback;
  }
}
