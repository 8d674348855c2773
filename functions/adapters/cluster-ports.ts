import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterScanPorts } from '../core/gitops/ports.js';
import { ClusterSourceError } from '../core/gitops/ports.js';
import type { ClusterConfig } from '../core/registry/model.js';
import { createArgoCdClient } from './argocd-client.js';
import { withHttpTimeouts } from './aws-http-timeouts.js';
import { createAwsWorkspaceAccess } from './aws-workspace.js';
import { createEksTokenProvider } from './eks-token.js';
import type { KubernetesReader } from './kubernetes-client.js';
import { createManifestReader } from './manifest-source.js';
import { createSecretResolver } from './secret-reference.js';
import { createTerraformStateReader } from './terraform-state.js';

/** The real ports of a cluster scan: Argo CD or the Kubernetes API, S3 for renders and Terraform state. */
export function createClusterScanPorts(options: {
  scanId: string;
  registryDir: string;
  env?: NodeJS.ProcessEnv;
  /** The caller's S3 client for rendered manifests (a handler's module client); else one on first use. */
  s3?: S3Client;
}): ClusterScanPorts {
  // Clients are created on first use: a scan of Argo CD clusters never builds an EKS signer.
  let s3 = options.s3;
  let secretsManager: SecretsManagerClient | undefined;
  const resolveSecret = createSecretResolver({
    secretsManager: () => (secretsManager ??= new SecretsManagerClient(withHttpTimeouts())),
    env: options.env,
  });
  const eksToken = createEksTokenProvider({ scanId: options.scanId });
  const readManifests = createManifestReader({
    registryDir: options.registryDir,
    s3: () => (s3 ??= new S3Client(withHttpTimeouts())),
  });
  const signedToken = async (eks: NonNullable<NonNullable<ClusterConfig['kubernetes']>['eks']>) => {
    try {
      return await eksToken(eks);
    } catch (error) {
      const reason = `cannot sign an EKS token for ${eks.cluster}: ${(error as Error).name}: ${(error as Error).message}`;
      throw new ClusterSourceError('configuration', reason, { cause: error });
    }
  };
  const access = createAwsWorkspaceAccess({ scanId: options.scanId });
  const readState = createTerraformStateReader(access);

  return {
    argocd(cluster) {
      const source = requireSource(cluster, 'argocd');
      return createArgoCdClient({ source, token: () => resolveSecret(source.token) });
    },
    kubernetes(cluster) {
      const source = requireSource(cluster, 'kubernetes');
      const { context, eks } = source;
      // A context's kubeconfig is loaded once per cluster: its exec plugin (e.g. `aws eks
      // get-token`) caches its token in that one KubeConfig, so reloading it ran the plugin per
      // read. EKS configs are rebuilt per read around the signer's cached token.
      let contextConfig: KubeConfig | undefined;
      // @kubernetes/client-node (~0.7 s of CPU to load) loads at the first read of a Kubernetes
      // source: a scan or cluster-diff of Argo CD clusters never loads it.
      let loading: Promise<KubernetesReader> | undefined;
      const loadReader = () => {
        loading ??= import('./kubernetes-client.js').then((client) =>
          client.createKubernetesReader({
            config: async () => {
              if (eks) return client.kubeConfigForEks(eks, await signedToken(eks));
              contextConfig ??= client.kubeConfigForContext(context ?? '');
              return contextConfig;
            },
          }),
        );
        return loading;
      };
      const reader: KubernetesReader = {
        clusterCapabilities: async () => (await loadReader()).clusterCapabilities(),
        readLive: async (...args) => (await loadReader()).readLive(...args),
        dryRunApply: async (...args) => (await loadReader()).dryRunApply(...args),
        openApiDocument: async (...args) => (await loadReader()).openApiDocument(...args),
        listObjects: async (...args) => (await loadReader()).listObjects(...args),
      };
      return {
        server: eks?.server ?? `kubeconfig context ${context}`,
        // A Helm source renders with the cluster's version and API versions, as Argo CD renders it.
        desiredManifests: () =>
          readManifests(source.manifests, source.render, { capabilities: reader.clusterCapabilities }),
        readLive: reader.readLive,
        dryRunApply: reader.dryRunApply,
        openApiDocument: reader.openApiDocument,
        listObjects: reader.listObjects,
      };
    },
    terraformObjects: readState,
  };
}

function requireSource<K extends 'argocd' | 'kubernetes'>(
  cluster: ClusterConfig,
  key: K,
): NonNullable<ClusterConfig[K]> {
  const source = cluster[key];
  if (!source) throw new ClusterSourceError('configuration', `cluster ${cluster.id} has no ${key} source`);
  return source as NonNullable<ClusterConfig[K]>;
}
