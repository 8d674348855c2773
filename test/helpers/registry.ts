import {
  type ClusterConfig,
  DEFAULT_LOCK_SETTINGS,
  DEFAULT_NOTIFICATION_SETTINGS,
  DEFAULT_POLICIES,
  DEFAULT_SUPPRESSION_SETTINGS,
  type Registry,
} from '../../functions/core/registry/model.js';

/** A parsed registry with one cluster and nothing else, owned by `platform`: for cluster scans in tests. */
export function registryOfCluster(cluster: ClusterConfig): Registry {
  return {
    version: 1,
    owners: { fallback: 'platform', teams: [{ id: 'platform' } as Registry['owners']['teams'][number]] },
    workspaces: [],
    policies: DEFAULT_POLICIES,
    locks: DEFAULT_LOCK_SETTINGS,
    clusters: [cluster],
    notifications: DEFAULT_NOTIFICATION_SETTINGS,
    suppressions: DEFAULT_SUPPRESSION_SETTINGS,
  };
}

/** A registry cluster in Argo CD mode, owned by `platform` in prod, its token in `tokenEnv`. */
export function argoCdCluster(id: string, url: string, tokenEnv = 'ARGOCD_AUTH_TOKEN'): ClusterConfig {
  return {
    id,
    owner: 'platform',
    environment: 'prod',
    argocd: { url, token: { env: tokenEnv } },
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
  };
}
