import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
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
import { CliError, loadRegistryFile, openObjectStore, resolveHasher, storedAt } from '../context.js';
import { exitCodeFor, renderFindings } from '../output.js';
import type { ClusterDiffOptions } from './cluster-diff.js';

/** The action of `cli/commands/cluster-diff.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function clusterDiffAction(
  run: (code: number) => void,
  options: ClusterDiffOptions,
): Promise<void> {
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
  process.stdout.write(renderFindings(recorded.history, options.format, undefined, undefined, options));
  logger.info('cluster diffed', {
    cluster: cluster.id,
    mode: result.mode,
    status: result.outcome,
    scanned: result.scanned,
    // Hooks and generateName objects of the render: not expected to exist, so not compared.
    skipped: result.skipped.map((object) => `${object.kind} ${object.name}: ${object.reason}`),
    // What the render could not do as the GitOps tool does (e.g. Helm without the cluster's capabilities).
    ...(result.renderNotes ? { render: result.renderNotes } : {}),
    // Argo CD's ignore rules that could not be read (objects compared without them), once each.
    ...(result.ignoreRulesUnread ? { ignoreRulesUnread: result.ignoreRulesUnread } : {}),
    // Extraneous objects Argo CD prunes itself at its next automated sync: no finding, said once.
    ...(result.prunedByArgoCd ? { prunedByArgoCd: result.prunedByArgoCd } : {}),
    stored: storedAt(store, recorded.historyKey),
  });
  run(result.outcome === 'failed' ? 1 : exitCodeFor(recorded.history, options));
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
