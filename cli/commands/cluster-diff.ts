import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { createLogger, logLevelFrom } from '../../functions/adapters/logger.js';
import { freshScanId } from '../../functions/adapters/scan-id.js';
import { parseStateText } from '../../functions/adapters/terraform-state.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { ClusterScanPorts } from '../../functions/core/gitops/ports.js';
import { scanAndRecordCluster } from '../../functions/core/gitops/scan-and-record-cluster.js';
import { apiServerUrlProblem } from '../../functions/core/registry/cluster-formats.js';
import { safeIdProblem } from '../../functions/core/registry/formats.js';
import {
  type ClusterConfig,
  DEFAULT_CLUSTER_POLICIES,
  DEFAULT_LOCK_SETTINGS,
  DEFAULT_NOTIFICATION_SETTINGS,
  DEFAULT_POLICIES,
  DEFAULT_SUPPRESSION_SETTINGS,
  type Registry,
  type WorkspaceConfig,
} from '../../functions/core/registry/model.js';
import {
  CliError,
  loadRegistryFile,
  openObjectStore,
  resolveHasher,
  STORE_OPTION_HELP,
  storedAt,
} from '../context.js';
import { exitCodeFor, type OutputFormat, parseFormat, renderFindings } from '../output.js';

interface ClusterDiffOptions {
  registry?: string;
  cluster?: string;
  argocd?: string;
  tokenEnv: string;
  project?: string;
  selector?: string;
  kustomize?: string;
  context?: string;
  terraformState?: string[];
  id: string;
  owner?: string;
  environment: string;
  store?: string;
  format: OutputFormat;
}

/** `driftwatch cluster-diff`: one cluster's drift and ownership conflicts, recorded like a scan's. */
export function registerClusterDiff(program: Command, run: (code: number) => void): void {
  program
    .command('cluster-diff')
    .description(
      'diff a GitOps cluster (Argo CD, or manifests against the Kubernetes API) and record its findings',
    )
    .option('--registry <file>', 'driftwatch.yaml (policies, owners; with --cluster, the cluster entry)')
    .option('--cluster <id>', 'scan this cluster entry of the registry')
    .option('--argocd <url>', 'an Argo CD server; the API token is read from --token-env')
    .option('--token-env <name>', 'environment variable holding the Argo CD token', 'ARGOCD_AUTH_TOKEN')
    .option('--project <name>', 'only applications of this Argo CD project')
    .option('--selector <labels>', 'only applications matching this label selector, e.g. team=payments')
    .option('--kustomize <dir>', 'a kustomize overlay to compare with the live cluster (needs --context)')
    .option('--context <name>', 'kubeconfig context of the cluster (KUBECONFIG or ~/.kube/config)')
    .option(
      '--terraform-state <file...>',
      'Terraform state files whose kubernetes/helm resources may conflict',
    )
    .option('--id <id>', 'scope of the findings without --cluster', safeId, 'adhoc')
    .option('--owner <team>', 'owner of the findings without --cluster')
    .option('--environment <name>', 'environment without --cluster, for severity', 'prod')
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--format <format>', 'table or json', parseFormat, 'table')
    .action(async (options: ClusterDiffOptions) => {
      const { registry, registryDir, cluster } = resolveCluster(options);
      const store = createFindingsStore(openObjectStore(options.store));
      const localStates = localStateWorkspaces(options.terraformState ?? [], cluster);
      const scanRegistry: Registry = {
        ...registry,
        workspaces: [...registry.workspaces, ...localStates.workspaces],
      };
      const scanCluster: ClusterConfig = {
        ...cluster,
        workspaces: [...cluster.workspaces, ...localStates.workspaces.map((workspace) => workspace.id)],
      };
      const now = () => new Date();
      const startedAt = now();
      const scanId = freshScanId(startedAt);
      // Loaded on use: the Kubernetes client takes ~0.7 s to load, which every other command would pay.
      const { createClusterScanPorts } = await import('../../functions/adapters/cluster-ports.js');
      const ports = withLocalStates(createClusterScanPorts({ scanId, registryDir }), localStates.files);
      const logger = createLogger({ format: 'text', level: logLevelFrom(process.env.DRIFTWATCH_LOG_LEVEL) });
      const { result, recorded } = await scanAndRecordCluster(
        scanCluster,
        scanRegistry,
        { ports, store, hashSensitive: resolveHasher(), now },
        { scanId, startedAt },
      );
      process.stdout.write(renderFindings(recorded.history, options.format));
      logger.info('cluster diffed', {
        cluster: cluster.id,
        mode: result.mode,
        status: result.outcome,
        scanned: result.scanned,
        stored: storedAt(store, recorded.historyKey),
      });
      run(result.outcome === 'failed' ? 1 : exitCodeFor(recorded.history));
    });
}

function resolveCluster(options: ClusterDiffOptions): {
  registry: Registry;
  registryDir: string;
  cluster: ClusterConfig;
} {
  const loaded = options.registry ? loadRegistryFile(options.registry) : undefined;
  const adhocSource = options.argocd !== undefined || options.kustomize !== undefined;
  if (options.cluster !== undefined) {
    if (!loaded) throw new CliError('--cluster needs --registry (the file that defines the cluster)');
    if (adhocSource) throw new CliError('give either --cluster or --argocd/--kustomize, not both');
    const cluster = loaded.registry.clusters.find((entry) => entry.id === options.cluster);
    if (!cluster) {
      const known = loaded.registry.clusters.map((entry) => entry.id);
      throw new CliError(
        `no cluster '${options.cluster}' in ${options.registry}${known.length ? ` (clusters: ${known.join(', ')})` : ''}`,
      );
    }
    return { registry: loaded.registry, registryDir: loaded.dir, cluster };
  }
  if ((options.argocd === undefined) === (options.kustomize === undefined))
    throw new CliError(
      'give --argocd <url>, or --kustomize <dir> with --context, or --registry with --cluster',
    );
  const registry = loaded?.registry ?? emptyRegistry();
  const base = {
    id: options.id,
    owner: options.owner ?? registry.owners.fallback,
    environment: options.environment,
    applications: [],
    workspaces: [],
    policies: { ...DEFAULT_CLUSTER_POLICIES },
  };
  if (options.argocd !== undefined) {
    const problem = apiServerUrlProblem(options.argocd);
    if (problem) throw new CliError(`--argocd ${options.argocd}: ${problem}`);
    const argocd = {
      url: options.argocd,
      token: { env: options.tokenEnv },
      ...(options.project ? { project: options.project } : {}),
      ...(options.selector ? { selector: options.selector } : {}),
    };
    return { registry, registryDir: process.cwd(), cluster: { ...base, argocd } };
  }
  if (!options.context)
    throw new CliError('--kustomize needs --context <kubeconfig context> of the live cluster');
  const kubernetes = { context: options.context, manifests: { kustomize: resolve(options.kustomize!) } };
  return { registry, registryDir: process.cwd(), cluster: { ...base, kubernetes } };
}

function emptyRegistry(): Registry {
  return {
    version: 1,
    owners: { fallback: 'unassigned', teams: [] },
    workspaces: [],
    policies: DEFAULT_POLICIES,
    locks: DEFAULT_LOCK_SETTINGS,
    clusters: [],
    notifications: DEFAULT_NOTIFICATION_SETTINGS,
    suppressions: DEFAULT_SUPPRESSION_SETTINGS,
  };
}

/** Local state files become workspaces named after the file (`payments.tfstate` → `payments`). */
function localStateWorkspaces(
  files: readonly string[],
  cluster: ClusterConfig,
): { workspaces: WorkspaceConfig[]; files: Map<string, string> } {
  const byId = new Map<string, string>();
  const workspaces = files.map((file, index) => {
    let id = basename(file)
      .replace(/\.(tfstate|json)$/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9\-_.]/g, '-');
    if (safeIdProblem(id) !== undefined || byId.has(id)) id = `state-${index + 1}`;
    byId.set(id, resolve(file));
    return {
      id,
      owner: cluster.owner,
      environment: cluster.environment,
      source: { dir: '.' },
      backend: { bucket: 'local-state', key: file, region: 'local' },
      routes: [],
      env: {},
      varFiles: [],
    } satisfies WorkspaceConfig;
  });
  return { workspaces, files: byId };
}

function withLocalStates(ports: ClusterScanPorts, files: ReadonlyMap<string, string>): ClusterScanPorts {
  if (files.size === 0) return ports;
  return {
    ...ports,
    async terraformObjects(workspace) {
      const path = files.get(workspace.id);
      if (path === undefined) return ports.terraformObjects(workspace);
      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`cannot read ${path}: ${error.code ?? error.message}`);
      });
      return parseStateText(text, workspace.id, path);
    },
  };
}

function safeId(value: string): string {
  const problem = safeIdProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}
