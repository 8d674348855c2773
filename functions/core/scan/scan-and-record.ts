import type { FindingsStore, ScanRef, WorkspaceRun } from '../findings/findings-store.js';
import type { RecordedScan } from '../findings/lifecycle.js';
import type { Policies, WorkspaceConfig } from '../registry/model.js';
import { createRouter } from '../routing/routes.js';
import type { ScanPorts } from './ports.js';
import { scanWorkspace, type WorkspaceScanResult } from './scan-workspace.js';
import { workspaceRun } from './summary.js';

/** The ScanTerraform stage for one workspace: scan it, then record what was seen. */
export async function scanAndRecordWorkspace(
  workspace: WorkspaceConfig,
  policies: Policies,
  deps: { ports: ScanPorts; store: FindingsStore; now: () => Date },
  scan: ScanRef,
): Promise<{
  result: WorkspaceScanResult;
  recorded: RecordedScan & { historyKey: string };
  run: WorkspaceRun;
}> {
  const started = deps.now();
  const result = await scanWorkspace(workspace, policies, deps.ports, { now: scan.startedAt });
  const finished = deps.now();
  const recorded = await deps.store.recordWorkspace(
    { ...scan, now: finished },
    { workspace: workspace.id, check: 'terraform', outcome: result.status },
    // Routes decide the owner of each finding before the lifecycle records it.
    result.findings.map(createRouter(workspace).route),
  );
  return { result, recorded, run: workspaceRun(result, finished.getTime() - started.getTime()) };
}
