import { S3Client } from '@aws-sdk/client-s3';
import { withHttpTimeouts } from '../functions/adapters/aws-http-timeouts.js';
import { createBackendAccess } from '../functions/adapters/backend/backend-access.js';
import type { Logger } from '../functions/adapters/logger.js';
import { reportLinkerAt } from '../functions/adapters/report-links.js';
import { freshScanId } from '../functions/adapters/scan-id.js';
import { createScanPorts } from '../functions/adapters/scan-ports.js';
import type { TerraformRunnerOptions } from '../functions/adapters/terraform/runner.js';
import type { BackendReader } from '../functions/core/backend/ports.js';
import type { BackendStageDeps } from '../functions/core/backend/stages.js';
import { type BackendTarget, registryTargets } from '../functions/core/backend/target.js';
import { createFindingsStore, type ScanSummary } from '../functions/core/findings/findings-store.js';
import type { Finding } from '../functions/core/findings/model.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import type { ClusterScanPorts } from '../functions/core/gitops/ports.js';
import { buildDigests, digestInput } from '../functions/core/notify/digest.js';
import {
  type DigestPublisher,
  type NotifyResult,
  notifyOwners,
} from '../functions/core/notify/notify-owners.js';
import type { SensitiveHasher } from '../functions/core/redaction/secrets.js';
import type { WorkspaceConfig } from '../functions/core/registry/model.js';
import { closestMatch } from '../functions/core/registry/suggest.js';
import {
  type NightlyReports,
  reportUrlsOf,
  writeNightlyReports,
} from '../functions/core/report/nightly-reports.js';
import { mapConcurrently } from '../functions/core/scan/map-concurrently.js';
import type { ScanPorts } from '../functions/core/scan/ports.js';
import { scanAndRecordWorkspace } from '../functions/core/scan/scan-and-record.js';
import { PIPELINE_STAGES, type PipelineStage } from '../functions/core/scan/stages.js';
import {
  type ScopeCheckOutcome,
  summarizeScan,
  type WorkspaceOutcome,
} from '../functions/core/scan/summary.js';
import {
  checkBackendsStage,
  confirmLocksStage,
  type LockWindow,
  observeLocksStage,
} from './backend-stages.js';
import { CliError } from './context.js';
import type { ProgressListener } from './progress.js';
import type { LoadedRegistry } from './registry-file.js';

export interface LocalScanOptions {
  loaded: LoadedRegistry;
  store: ObjectStore;
  hashSensitive: SensitiveHasher;
  logger: Logger;
  /** Scan only these workspace ids (default: all). */
  workspaces?: string[];
  /** Workspaces planned at the same time; each plan holds the AWS provider (~0.8 GB). */
  concurrency?: number;
  now?: () => Date;
  scanId?: string;
  /** Replaces the real ports (tests that inject a state change between two reads). */
  ports?: (scanId: string) => ScanPorts;
  runner?: Partial<TerraformRunnerOptions>;
  /** Replaces the real cluster ports (Argo CD, Kubernetes, Terraform state). */
  clusterPorts?: (scanId: string) => ClusterScanPorts;
  /** Where digests go; without one, NotifyOwners only logs what it would send. */
  publisher?: DigestPublisher;
  /** Check the state buckets and their locks (CheckBackend, ObserveLocks, ConfirmLocks); default true. */
  backendChecks?: boolean;
  /** Replaces the real S3 and DynamoDB readers of the state buckets. */
  backendReaders?: (scanId: string) => (target: BackendTarget) => Promise<BackendReader>;
  /** Told of each stage and workspace step, for a progress line on a terminal. */
  progress?: ProgressListener;
}

export interface LocalScanResult {
  scanId: string;
  startedAt: Date;
  summary: ScanSummary;
  summaryKey: string;
  findings: Finding[];
  outcomes: WorkspaceOutcome[];
  checks: ScopeCheckOutcome[];
  notified?: NotifyResult;
  reports?: NightlyReports;
}

/** What the stages hand each other. */
interface ScanState {
  workspaces: WorkspaceConfig[];
  outcomes: WorkspaceOutcome[];
  checks: ScopeCheckOutcome[];
  summary?: ScanSummary;
  summaryKey?: string;
  notified?: NotifyResult;
  /** Written by WriteReports (undefined when it failed). */
  reports?: NightlyReports;
  /** Set by ObserveLocks: when ConfirmLocks may take its second look. */
  lockWindow?: LockWindow;
}

/** `driftwatch scan`: the nightly pipeline in-process, stage by stage, in the deployed order. */
export async function runLocalScan(options: LocalScanOptions): Promise<LocalScanResult> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const scanId = options.scanId ?? freshScanId(startedAt);
  const { registry } = options.loaded;
  const store = createFindingsStore(options.store);
  const logger = options.logger.child({ scanId });
  const progress: ProgressListener = options.progress ?? (() => {});
  const ports =
    options.ports?.(scanId) ??
    createScanPorts({
      scanId,
      registryDir: options.loaded.dir,
      hashSensitive: options.hashSensitive,
      // The plugin cache lock says on the scan's log when it waits or takes over a stale lock.
      runner: { logger, ...options.runner },
    });
  const state: ScanState = { workspaces: [], outcomes: [], checks: [] };
  const scanRef = { scanId, startedAt };
  const backendTargets = () =>
    options.backendChecks === false ? [] : registryTargets(registry, state.workspaces);
  // A reader per stage: role credentials last an hour, and the scans run between the two lock looks.
  const backendDeps = (): BackendStageDeps => ({
    readerFor: options.backendReaders?.(scanId) ?? createBackendAccess({ scanId }).readerFor,
    findings: store,
    objects: options.store,
    now,
    // A scan runs CheckBackend on every bucket whose locks it checks.
    backendCheckedAlongside: true,
  });

  const stages: Record<PipelineStage, () => Promise<void>> = {
    LoadRegistry: async () => {
      const wanted = options.workspaces;
      const known = [...registry.workspaces, ...registry.clusters].map((scope) => scope.id);
      const unknown = wanted?.filter((id) => !known.includes(id)) ?? [];
      if (unknown.length) throw new CliError(unknownWorkspacesMessage(unknown, known, options.loaded.path));
      state.workspaces = registry.workspaces.filter((workspace) => !wanted || wanted.includes(workspace.id));
      progress({ type: 'workspaces', total: state.workspaces.length });
    },
    CheckBackend: async () => {
      state.checks.push(...(await checkBackendsStage(backendTargets(), backendDeps(), scanRef, logger)));
    },
    ObserveLocks: async () => {
      state.lockWindow = await observeLocksStage(backendTargets(), backendDeps(), scanRef, logger);
    },
    ScanTerraform: async () => {
      state.outcomes = await mapConcurrently(
        state.workspaces,
        options.concurrency ?? 2,
        async (workspace) => {
          const log = logger.child({ workspace: workspace.id });
          log.info('scanning');
          progress({ type: 'workspace-started', workspace: workspace.id });
          try {
            const { result, recorded, run } = await scanAndRecordWorkspace(
              workspace,
              registry.policies,
              {
                ports: withProgress(ports, log, (stage) =>
                  progress({ type: 'workspace-stage', workspace: workspace.id, stage }),
                ),
                store,
                now,
              },
              { scanId, startedAt },
            );
            log.info('scanned', {
              status: result.status,
              findings: result.findings.length,
              plans: result.plansRun,
            });
            progress({
              type: 'workspace-finished',
              workspace: workspace.id,
              failed: result.status === 'failed',
            });
            return { workspace: workspace.id, result, findings: recorded.history, run };
          } catch (error) {
            // One workspace's failure (the store unreachable, a bug) must not stop the others.
            log.error('workspace scan failed', { error });
            progress({ type: 'workspace-finished', workspace: workspace.id, failed: true });
            return { workspace: workspace.id, findings: [], error: (error as Error).message };
          }
        },
      );
    },
    ScanCluster: async () => {
      const wanted = options.workspaces;
      const clusters = registry.clusters.filter((cluster) => !wanted || wanted.includes(cluster.id));
      if (clusters.length === 0) return;
      // Loaded on use: the Kubernetes client alone takes ~0.7 s to load, and most scans have no cluster.
      const { scanClusters } = await import('./cluster-stage.js');
      const clusterPorts =
        options.clusterPorts?.(scanId) ??
        (await import('../functions/adapters/cluster-ports.js')).createClusterScanPorts({
          scanId,
          registryDir: options.loaded.dir,
        });
      const deps = {
        registry,
        ports: clusterPorts,
        store,
        hashSensitive: options.hashSensitive,
        logger,
        now,
      };
      state.checks.push(...(await scanClusters(clusters, deps, { scanId, startedAt })));
    },
    ConfirmLocks: async () => {
      if (!state.lockWindow) return;
      const { lockWindow } = state;
      state.checks.push(
        ...(await confirmLocksStage(backendTargets(), lockWindow, backendDeps(), scanRef, logger)),
      );
    },
    RecordFindings: async () => {
      state.summary = summarizeScan(
        { scanId, startedAt, finishedAt: now(), totalWorkspaces: state.workspaces.length },
        state.outcomes,
        state.checks,
      );
      state.summaryKey = await store.writeSummary({ scanId, startedAt }, state.summary);
    },
    WriteReports: async () => {
      // As deployed: a report that cannot be written costs the scan nothing but the report.
      try {
        state.reports = await writeNightlyReports(options.store, scanId);
        for (const failure of state.reports.failed) logger.warn('owner report not written', failure);
      } catch (error) {
        logger.warn('reports not written', { reason: (error as Error).message });
      }
    },
    NotifyOwners: async () => {
      const findings = [...state.outcomes, ...state.checks].flatMap((outcome) => outcome.findings);
      // The reports WriteReports wrote: file URLs for a local store, presigned links for a bucket.
      const owners = [registry.owners.fallback, ...findings.flatMap((finding) => finding.owner ?? [])];
      const reportUrls = state.reports
        ? await reportUrlsOf(
            scanId,
            owners,
            reportLinkerAt(options.store.location, () => new S3Client(withHttpTimeouts())),
          )
        : {};
      const input = digestInput(registry, { scanId, now: now() }, findings, { reportUrls });
      if (!options.publisher) {
        for (const digest of buildDigests(input)) {
          logger.info('digest not sent (no topic)', {
            owner: digest.owner,
            summary: digest.message.metadata.summary,
          });
        }
        return;
      }
      state.notified = await notifyOwners(input, { publisher: options.publisher, store: options.store });
      const { sent, alreadySent, deferred, resent } = state.notified;
      logger.info('owners notified', {
        sent: sent.length,
        alreadySent: alreadySent.length,
        deferred: deferred.length,
        resent: resent.length,
      });
      for (const failure of deferred) logger.warn('digest deferred to the next run', failure);
    },
  };

  for (const stage of PIPELINE_STAGES) {
    logger.debug('stage', { stage });
    progress({ type: 'pipeline', stage });
    await stages[stage]();
  }
  return {
    scanId,
    startedAt,
    summary: state.summary!,
    summaryKey: state.summaryKey!,
    findings: [...state.outcomes, ...state.checks].flatMap((outcome) => outcome.findings),
    outcomes: state.outcomes,
    checks: state.checks,
    notified: state.notified,
    ...(state.reports ? { reports: state.reports } : {}),
  };
}

/**
 * `--workspace` ids the registry does not have: each with the id it most likely meant, and the ids
 * there are (the first twenty), so the fix is on the screen.
 */
export function unknownWorkspacesMessage(unknown: string[], known: string[], registryPath: string): string {
  const named = unknown.map((id) => {
    const near = closestMatch(id, known);
    return `'${id}'${near ? ` (did you mean ${near}?)` : ''}`;
  });
  const listed = `${known.slice(0, 20).join(', ')}${known.length > 20 ? `, … (${known.length} in all)` : ''}`;
  return `no workspace or cluster ${named.join(', ')} in ${registryPath}: pass --workspace with ids it has (${listed || 'none'})`;
}

/** Progress lines for a person watching the terminal; Terraform's steps take seconds each. */
function withProgress(ports: ScanPorts, log: Logger, stageChanged: (stage: string) => void): ScanPorts {
  return {
    ...ports,
    async prepare(workspace, credentials) {
      log.info('terraform init');
      stageChanged('terraform init');
      const prepared = await ports.prepare(workspace, credentials);
      return {
        initDurationMs: prepared.initDurationMs,
        // The configuration facts (ignore_changes, removed blocks) pass through untouched.
        ...(prepared.configuration ? { configuration: prepared.configuration } : {}),
        close: () => prepared.close(),
        ...(prepared.readFailures
          ? {
              readFailures: (addresses: readonly string[]) => {
                log.info('terraform plan -refresh-only of the reported deletions', {
                  count: addresses.length,
                });
                stageChanged('terraform plan (deletions)');
                return prepared.readFailures!(addresses);
              },
            }
          : {}),
        async plan() {
          log.info('terraform plan -refresh-only');
          stageChanged('terraform plan');
          return prepared.plan();
        },
      };
    },
  };
}

export { mapConcurrently };
