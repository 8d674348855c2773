import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import {
  CLUSTER_TIMEOUT_ENV,
  clusterTimeoutMs,
  formatTimeout,
} from '../../functions/adapters/http-failure.js';
import { createLogger, logLevelFrom } from '../../functions/adapters/logger.js';
import { freshScanId } from '../../functions/adapters/scan-id.js';
import { parseStateText } from '../../functions/adapters/terraform-state.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { FindingDraft } from '../../functions/core/findings/model.js';
import type { ClusterScanPorts } from '../../functions/core/gitops/ports.js';
import { scanAndRecordCluster } from '../../functions/core/gitops/scan-and-record-cluster.js';
import { redactText } from '../../functions/core/redaction/secrets.js';
import {
  LOOPBACK_HOSTS,
  labelSelectorProblem,
  tokenEnvNameProblem,
} from '../../functions/core/registry/cluster-formats.js';
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
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, openObjectStore, resolveHasher, storedAt, UsageError } from '../context.js';
import { exitCodeFor, renderFindings } from '../output.js';
import { loadRegistryFile } from '../registry-file.js';
import { checkFindingsStore } from '../store-preflight.js';
import type { ClusterDiffOptions } from './cluster-diff.js';

/** The action of `cli/commands/cluster-diff.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function clusterDiffAction(
  run: (code: number) => void,
  options: ClusterDiffOptions,
): Promise<void> {
  const { registry, registryDir, cluster } = resolveCluster(options);
  // A malformed timeout fails here, once, instead of as every request's scan-failed finding.
  let timeoutMs: number;
  try {
    timeoutMs = clusterTimeoutMs();
  } catch (error) {
    throw new CliError(`${(error as Error).message} (or unset ${CLUSTER_TIMEOUT_ENV} for 30s)`);
  }
  const objects = openObjectStore(options.store, process.env, { writable: true });
  // Checked before the first request to the cluster: a slow scan must not end on the store.
  await checkFindingsStore(objects, { scope: cluster.id, storeOption: options.store });
  const store = createFindingsStore(objects);
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
  // Said before the first request: a server that does not answer is otherwise a silent wait.
  logger.info('diffing cluster', {
    cluster: cluster.id,
    source: clusterSource(cluster),
    requestTimeout: formatTimeout(timeoutMs),
  });
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
  // The table says that the scan failed; this line says why and what to do, as other errors do.
  const failure = scanFailureLine(result.findings, cluster, process.env, options.cluster !== undefined);
  if (failure !== undefined) process.stderr.write(`driftwatch: ${failure}\n`);
  run(result.outcome === 'failed' ? 1 : exitCodeFor(recorded.history, options));
}

function resolveCluster(options: ClusterDiffOptions): {
  registry: Registry;
  registryDir: string;
  cluster: ClusterConfig;
} {
  checkCommandLine(options);
  const loaded = options.registry ? loadRegistryFile(options.registry) : undefined;
  if (options.cluster !== undefined) {
    const cluster = loaded!.registry.clusters.find((entry) => entry.id === options.cluster);
    if (!cluster) {
      const known = loaded!.registry.clusters.map((entry) => entry.id);
      throw new CliError(
        `no cluster '${options.cluster}' in ${options.registry}${known.length ? ` (clusters: ${known.join(', ')})` : ''}`,
      );
    }
    return { registry: loaded!.registry, registryDir: loaded!.dir, cluster };
  }
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
    const argocd = {
      url: options.argocd,
      token: { env: options.tokenEnv ?? DEFAULT_TOKEN_ENV },
      ...(options.project ? { project: options.project } : {}),
      ...(options.selector ? { selector: options.selector } : {}),
    };
    return { registry, registryDir: process.cwd(), cluster: { ...base, argocd } };
  }
  const kubernetes = { context: options.context!, manifests: { kustomize: resolve(options.kustomize!) } };
  return { registry, registryDir: process.cwd(), cluster: { ...base, kubernetes } };
}

/** Where the live objects are read from, for the line said before the first request. */
function clusterSource(cluster: ClusterConfig): string {
  if (cluster.argocd) return `Argo CD at ${cluster.argocd.url}`;
  const kubernetes = cluster.kubernetes;
  if (kubernetes?.eks) return `EKS cluster ${kubernetes.eks.cluster} at ${kubernetes.eks.server}`;
  return `kubeconfig context ${kubernetes?.context ?? '(current)'}`;
}

/** The variable the argocd CLI reads its token from, and --argocd's default. */
const DEFAULT_TOKEN_ENV = 'ARGOCD_AUTH_TOKEN';

const SOURCES =
  '--argocd <url>, --kustomize <dir> with --context <name>, or --registry <file> with --cluster <id>';

/**
 * A command line that cannot be right is a usage error (exit 64) before anything is read: no source
 * or two of them, an option of one source given with another (it would be ignored), a malformed
 * value. Messages never quote a credential (an --argocd URL may carry one).
 */
function checkCommandLine(options: ClusterDiffOptions): void {
  const given = (names: Array<[string, unknown]>) =>
    names.filter(([, value]) => value !== undefined).map(([name]) => name);
  if (options.cluster !== undefined) {
    const extra = given([
      ['--argocd', options.argocd],
      ['--kustomize', options.kustomize],
      ['--context', options.context],
      ['--project', options.project],
      ['--selector', options.selector],
      // The registry's cluster names the variable of its token (argocd.token.env): one given here would be ignored.
      ['--token-env', options.tokenEnv],
    ]);
    if (extra.length > 0)
      throw usageError(
        `--cluster reads its source from the registry: leave out ${extra.join(', ')} (or leave out --cluster and --registry to diff that source directly)`,
      );
    if (options.registry === undefined)
      throw usageError('--cluster needs --registry <file>, the file that defines the cluster');
    return;
  }
  if (options.argocd !== undefined && options.kustomize !== undefined)
    throw usageError(
      'give --argocd <url> or --kustomize <dir>, not both: one run diffs one source (run cluster-diff once for each)',
    );
  if (options.argocd === undefined && options.kustomize === undefined)
    throw usageError(
      options.registry !== undefined
        ? `--registry needs --cluster <id> to choose the cluster to diff (or give --argocd <url>, or --kustomize <dir> with --context <name>)`
        : `cluster-diff needs a source: ${SOURCES}`,
    );
  if (options.argocd !== undefined) {
    const misplaced = given([['--context', options.context]]);
    if (misplaced.length > 0)
      throw usageError(
        '--context goes with --kustomize (the kubeconfig context of the live cluster), not with --argocd',
      );
    const problem = argocdUrlProblem(options.argocd);
    if (problem) throw usageError(problem);
    const tokenEnv = tokenEnvNameProblem(options.tokenEnv ?? DEFAULT_TOKEN_ENV);
    if (tokenEnv) throw usageError(`--token-env: ${tokenEnv}`);
    const selector = options.selector === undefined ? undefined : labelSelectorProblem(options.selector);
    if (selector) throw usageError(`--selector: ${selector}`);
    if (options.project !== undefined && options.project.trim() === '')
      throw usageError('--project needs the name of an Argo CD project');
    return;
  }
  if (options.tokenEnv !== undefined)
    throw usageError(
      "--token-env names the variable of Argo CD's token: it goes with --argocd, not with --kustomize",
    );
  const misplaced = given([
    ['--project', options.project],
    ['--selector', options.selector],
  ]);
  if (misplaced.length > 0)
    throw usageError(
      `${misplaced.join(' and ')} choose${misplaced.length === 1 ? 's' : ''} Argo CD applications: ${misplaced.length === 1 ? 'it goes' : 'they go'} with --argocd, not with --kustomize`,
    );
  if (options.context === undefined)
    throw usageError('--kustomize needs --context <name>: the kubeconfig context of the live cluster');
}

/** A usage error of this command, pointing at its help (as commander's own usage errors do). */
function usageError(message: string): UsageError {
  return new UsageError(`${message} (driftwatch cluster-diff --help lists its options)`);
}

/**
 * What is wrong with an --argocd value, in the words of a command-line flag; never quoting the value
 * itself where it may hold a credential (user:password@, a query string).
 */
export function argocdUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "--argocd takes the Argo CD server's URL with its scheme, such as https://argocd.example.com";
  }
  if (url.username !== '' || url.password !== '')
    return "--argocd must not carry credentials (user:password@ in the URL): give the server's address only, and the API token in the environment variable that --token-env names (ARGOCD_AUTH_TOKEN by default)";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname))
    return `--argocd http://${url.host}: plain http would send the API token in clear text: use https://${url.host} (plain http is accepted only for 127.0.0.1, localhost and [::1], a local test server)`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `--argocd takes an https:// URL such as https://argocd.example.com${scheme ? `, not an ${scheme}:// one` : ''}`;
  if (url.search !== '' || url.hash !== '')
    return "--argocd takes the server's address only, without '?' or '#' (the API token goes in the environment variable that --token-env names)";
  return undefined;
}

/**
 * The one stderr line of a failed scan: its first failure's reason and what to do about it (the
 * scan-failed findings on stdout list every failure). Reasons are redacted when their findings are
 * built; the token and terminal controls are taken out again here, as the line goes to a terminal.
 */
export function scanFailureLine(
  findings: readonly FindingDraft[],
  cluster: ClusterConfig,
  env: NodeJS.ProcessEnv = process.env,
  /** The cluster is a registry entry (--cluster), not one made from the command line. */
  registered = false,
): string | undefined {
  const failures = findings.filter((finding) => finding.kind === 'scan-failed');
  const first = failures[0];
  if (first === undefined) return undefined;
  const evidenceReason = first.evidence?.reason;
  const reason = typeof evidenceReason === 'string' ? evidenceReason : first.detail;
  const fix = failureFix(first.ruleId, reason, cluster, registered);
  const more =
    failures.length > 1
      ? ` (${failures.length - 1} more failure${failures.length > 2 ? 's' : ''}: each is a scan-failed finding in the output)`
      : '';
  const token = cluster.argocd && 'env' in cluster.argocd.token ? env[cluster.argocd.token.env] : undefined;
  const line = `the scan of cluster ${cluster.id} failed: ${reason}${fix ? `: ${fix}` : ''}${more}`;
  return stripForTerminal(redactText(line, token ? [token, token.trim()] : []));
}

/** What to do about a failure, by its rule; undefined when the reason already says it. */
function failureFix(
  ruleId: string,
  reason: string,
  cluster: ClusterConfig,
  registered: boolean,
): string | undefined {
  const argocd = cluster.argocd;
  const tokenHolder = argocd
    ? 'env' in argocd.token
      ? `the environment variable ${argocd.token.env}`
      : `the secret ${argocd.token.secretsManager}`
    : undefined;
  const status = /(?:^|\D)(401|403)(?:\D|$)/.exec(reason)?.[1];
  // Whatever rule a 429 that outlasted the retries fell under, the server is up and said why.
  if (reason.includes('(rate limited: still refused'))
    return argocd
      ? 'Argo CD (or the proxy or ingress in front of it) is rate limiting these requests: run again later, or raise its limit for this client'
      : "the API server is rate limiting these requests (API Priority and Fairness): run again later, or give the context's user a FlowSchema with more concurrency";
  switch (ruleId) {
    case 'scan.cluster-unreachable':
      // A certificate the scanner does not trust: the reason already says which setting fixes it.
      if (reason.includes('certificateAuthority')) return undefined;
      if (/\bwithin \d|in time\b/.test(reason))
        return `check that the server answers from here${argocd ? " and is Argo CD's API server" : ''}; a slow server may need a longer ${CLUSTER_TIMEOUT_ENV} (e.g. 2m, default 30s)`;
      return argocd
        ? 'check the address (--argocd, or argocd.url in the registry), that Argo CD is up, and that this machine can reach it (network, VPN, proxy)'
        : "check the kubeconfig context's server address and that this machine can reach it (network, VPN, proxy)";
    case 'scan.cluster-unauthorized':
      if (argocd)
        return status === '403'
          ? `the token's account may not read applications: grant it get on applications in argocd-rbac-cm`
          : `Argo CD refused the token in ${tokenHolder}: create a new one (argocd account generate-token) and put it there`;
      return status === '403'
        ? "the context's user may not read these objects: grant it get and list (a ClusterRole such as view)"
        : "the API server refused the context's credentials: renew them (log in again, or aws eks update-kubeconfig)";
    case 'scan.cluster-credentials':
      return argocd
        ? `put an Argo CD API token in ${tokenHolder} (argocd account generate-token)${'env' in argocd.token ? `, or name another variable (${registered ? 'argocd.token.env in the registry' : '--token-env'})` : ''}`
        : 'check the kubeconfig (KUBECONFIG or ~/.kube/config) and the --context name';
    case 'scan.cluster-invalid-response':
      return argocd
        ? "check that the URL is Argo CD's API server itself (not its login page or a proxy in front of it) and that the server is Argo CD 2.x or 3.x"
        : "check that the context's server is a Kubernetes API server";
    default:
      return undefined;
  }
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
