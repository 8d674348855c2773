import type { createKubernetesReader } from '../../functions/adapters/kubernetes-client.js';
import { scanCluster } from '../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';
import type { ClusterConfig, KubernetesSource } from '../../functions/core/registry/model.js';
import { registryOfCluster } from './registry.js';

/**
 * scanCluster in direct mode, as the deployed stage wires it, with this Kubernetes reader and a
 * render from S3: no Argo CD, no Terraform objects, the clock at 2026-12-02T03:00Z.
 */
export function scanDirect(
  cluster: ClusterConfig,
  options: {
    reader: ReturnType<typeof createKubernetesReader>;
    server: string;
    render: string;
    salt: string;
  },
) {
  return scanCluster(cluster, {
    registry: registryOfCluster(cluster),
    ports: {
      argocd: () => {
        throw new Error('direct mode reads no Argo CD');
      },
      kubernetes: () => ({
        server: options.server,
        desiredManifests: async () => ({ text: options.render, source: 's3://r/x.yaml' }),
        ...options.reader,
      }),
      terraformObjects: async () => [],
    },
    hashSensitive: createSensitiveHasher(options.salt),
    now: new Date('2026-12-02T03:00:00Z'),
  });
}

/**
 * The cluster these direct-mode tests scan: EKS cluster `shop` at `server`, its render in S3; `source`
 * sets or overrides fields of its Kubernetes source (comparison, manifests, fieldManager…).
 */
export function eksDirectCluster(server: string, source: Partial<KubernetesSource> = {}): ClusterConfig {
  return {
    id: 'shop-prod',
    owner: 'platform',
    environment: 'prod',
    kubernetes: {
      eks: { cluster: 'shop', region: 'eu-west-1', server },
      manifests: { s3: 's3://r/x.yaml' },
      ...source,
    },
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
  };
}
