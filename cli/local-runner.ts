import { randomBytes } from 'node:crypto';
import type { Logger } from '../functions/adapters/logger.js';
import { createScanPorts } from '../functions/adapters/scan-ports.js';
import type { TerraformRunnerOptions } from '../functions/adapters/terraform/runner.js';
import { createFindingsStore, type ScanSummary } from '../functions/core/findings/findings-store.js';
import { newScanId } from '../functions/core/findings/layout.js';
import type { Finding } from '../functions/core/findings/model.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import type { SensitiveHasher } from '../functions/core/redaction/secrets.js';
import type { WorkspaceConfig } from '../functions/core/registry/model.js';
import type { ScanPorts } from '../functions/core/scan/ports.js';
import { scanAndRecordWorkspace } from '../functions/core/scan/scan-and-record.js';
import { PIPELINE_STAGES, type PipelineStage } from '../functions/core/scan/stages.js';
import {
  type ScopeCheckOutcome,
  summarizeScan,
  type WorkspaceOutcome,
} from '../functions/core/scan/summary.js';
import type { LoadedRegistry } from './context.js';
import { CliError } from './context.js';

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
}

export interface LocalScanResult {
  scanId: string;
  startedAt: Date;
  summary: ScanSummary;
  summaryKey: string;
  findings: Finding[];
  outcomes: WorkspaceOutcome[];
  checks: ScopeCheckOutcome[];
}

/** What the stages hand each other. */
interface ScanState {
  workspaces: WorkspaceConfig[];
  outcomes: WorkspaceOutcome[];
  checks: ScopeCheckOutcome[];
  summary?: ScanSummary;
  summaryKey?: string;
}

/** `driftwatch scan`: the nightly pipeline in-process, stage by stage, in the deployed order. */
export async function runLocalScan(options: LocalScanOptions): Promise<LocalScanResult> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const scanId = options.scanId ?? newScanId(startedAt, randomBytes(3).toString('hex'));
  const { registry } = options.loaded;
  const store = createFindingsStore(options.store);
  const ports =
    options.ports?.(scanId) ??
    createScanPorts({
      scanId,
      registryDir: options.loaded.dir,
      hashSensitive: options.hashSensitive,
      runner: options.runner,
    });
  const logger = options.logger.child({ scanId });
  const state: ScanState = { workspaces: [], outcomes: [], checks: [] };

  const stages: Record<PipelineStage, () => Promise<void>> = {
    LoadRegistry: async () => {
      const wanted = options.workspaces;
      const unknown =
        wanted?.filter((id) => !registry.workspaces.some((workspace) => workspace.id === id)) ?? [];
      if (unknown.length) throw new CliError(`unknown workspace(s): ${unknown.join(', ')}`);
      state.workspaces = registry.workspaces.filter((workspace) => !wanted || wanted.includes(workspace.id));
    },
    ScanTerraform: async () => {
      state.outcomes = await mapConcurrently(
        state.workspaces,
        options.concurrency ?? 2,
        async (workspace) => {
          const log = logger.child({ workspace: workspace.id });
          log.info('scanning');
          try {
            const { result, recorded, durationMs } = await scanAndRecordWorkspace(
              workspace,
              registry.policies,
              { ports: withProgress(ports, log), store, now },
              { scanId, startedAt },
            );
            log.info('scanned', {
              status: result.status,
              findings: result.findings.length,
              plans: result.plansRun,
            });
            return { workspace: workspace.id, result, findings: recorded.history, durationMs };
          } catch (error) {
            // One workspace's failure (the store unreachable, a bug) must not stop the others.
            log.error('workspace scan failed', { error });
            return { workspace: workspace.id, findings: [], durationMs: 0, error: (error as Error).message };
          }
        },
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
  };

  for (const stage of PIPELINE_STAGES) {
    logger.debug('stage', { stage });
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
  };
}

/** Progress lines for a person watching the terminal; Terraform's steps take seconds each. */
function withProgress(ports: ScanPorts, log: Logger): ScanPorts {
  return {
    ...ports,
    async prepare(workspace, credentials) {
      log.info('terraform init');
      const prepared = await ports.prepare(workspace, credentials);
      return {
        initDurationMs: prepared.initDurationMs,
        close: () => prepared.close(),
        async plan() {
          log.info('terraform plan -refresh-only');
          return prepared.plan();
        },
      };
    },
  };
}

export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
