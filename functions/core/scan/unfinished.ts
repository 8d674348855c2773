import type { FindingsStore, ScanRef } from '../findings/findings-store.js';
import { scanPrefix, scratchPrefix } from '../findings/layout.js';
import type { Check, FindingDraft } from '../findings/model.js';
import type { ObjectStore } from '../findings/object-store.js';
import { redactText } from '../redaction/secrets.js';
import type { Registry } from '../registry/model.js';
import { bucketOwnership, bucketScope } from '../routing/scopes.js';
import { scanFailedFinding } from '../terraform/index.js';

/** What a Map's Catch put in the state: Step Functions' `{ Error, Cause }`. */
export interface StageFailure {
  Error?: string;
  Cause?: string;
}

/** The Map stages, the LoadRegistry list each one reads, and the check its items record. */
export const MAP_STAGE_LISTS = {
  CheckBackend: { list: 'buckets', check: 'backend' },
  ObserveLocks: { list: 'buckets', check: 'locks' },
  ScanTerraform: { list: 'workspaces', check: 'terraform' },
  ScanCluster: { list: 'clusters', check: 'cluster' },
  ConfirmLocks: { list: 'buckets', check: 'locks' },
} as const satisfies Record<string, { list: 'workspaces' | 'buckets' | 'clusters'; check: Check }>;
export type MapStage = keyof typeof MAP_STAGE_LISTS;

export interface UnfinishedScope {
  stage: MapStage;
  scope: string;
  check: Check;
  draft: FindingDraft;
}

/**
 * Stages whose handler records every item it runs (a Terraform or cluster scan always leaves its
 * record, failed or not): a scope of theirs without one was lost on the way even when the Map as a
 * whole succeeded, e.g. an account's child execution that failed within the tolerated share.
 */
const ALWAYS_RECORDED: readonly MapStage[] = ['ScanTerraform', 'ScanCluster'];

/**
 * The scopes a Map never recorded: every scope of a failed Map's list (it stopped, or exceeded its
 * tolerated failures, before their items ran or while their Catch failed), and any workspace or
 * cluster without a record at all. One `scan-failed` finding each, so a night whose Map broke still
 * reports every blind spot by name and resolves nothing it did not see.
 */
export function unfinishedScopes(
  registry: Registry,
  failures: Partial<Record<string, StageFailure>>,
  lists: Partial<Record<'workspaces' | 'buckets' | 'clusters', Array<Record<string, unknown>>>>,
  recorded: ReadonlySet<string>,
): UnfinishedScope[] {
  const unfinished: UnfinishedScope[] = [];
  const seen = new Set<string>();
  const stages = [...new Set([...Object.keys(failures), ...ALWAYS_RECORDED])];
  for (const stage of stages) {
    if (!(stage in MAP_STAGE_LISTS)) continue;
    const failure = failures[stage];
    if (!failure && !ALWAYS_RECORDED.includes(stage as MapStage)) continue;
    const { list, check } = MAP_STAGE_LISTS[stage as MapStage];
    for (const item of lists[list] ?? []) {
      const target = scopeOf(registry, item);
      if (!target) continue;
      const key = `${target.scope}@${check}`;
      if (recorded.has(key) || seen.has(key)) continue;
      seen.add(key);
      const done = check === 'terraform' ? 'scanned' : 'checked';
      const reason = redactText(
        failure
          ? `${stage} stopped before this ${target.kind} was ${done}: ${failure.Error ?? 'Error'}: ${failure.Cause ?? 'no cause given'}`
          : `${stage} left no record of this ${target.kind}: its run was lost (a child execution that failed or was stopped); see the execution's Map run`,
      ).slice(0, 2000);
      const draft = scanFailedFinding(
        { workspace: target.scope, owner: target.owner, environment: target.environment },
        reason,
        { stage, ...(failure ? { mapFailed: true } : { noRecord: true }) },
        { ruleId: 'scan.stage-failed' },
      );
      unfinished.push({ stage: stage as MapStage, scope: target.scope, check, draft });
    }
  }
  return unfinished;
}

function scopeOf(
  registry: Registry,
  item: Record<string, unknown>,
): { scope: string; kind: string; owner: string; environment?: string } | undefined {
  if (typeof item.workspace === 'string') {
    const workspace = registry.workspaces.find((entry) => entry.id === item.workspace);
    return {
      scope: item.workspace,
      kind: 'workspace',
      owner: workspace?.owner ?? registry.owners.fallback,
      ...(workspace ? { environment: workspace.environment } : {}),
    };
  }
  if (typeof item.cluster === 'string') {
    const cluster = registry.clusters.find((entry) => entry.id === item.cluster);
    return {
      scope: item.cluster,
      kind: 'cluster',
      owner: cluster?.owner ?? registry.owners.fallback,
      ...(cluster ? { environment: cluster.environment } : {}),
    };
  }
  if (typeof item.bucket === 'string') {
    const ownership = bucketOwnership(registry, item.bucket);
    return {
      scope: bucketScope(item.bucket),
      kind: 'state bucket',
      owner: ownership.owner,
      ...(ownership.environment ? { environment: ownership.environment } : {}),
    };
  }
  return undefined;
}

/**
 * RecordFindings, before the summary: records a scan-failed finding for every scope a Map left
 * without history in this scan (see unfinishedScopes), from the scan's own lists in scratch/.
 */
export async function recordUnfinishedScopes(
  registry: Registry,
  failures: Partial<Record<string, StageFailure>> | undefined,
  deps: { store: FindingsStore; objects: ObjectStore },
  scan: ScanRef & { now: Date },
): Promise<UnfinishedScope[]> {
  const lists: Partial<Record<'workspaces' | 'buckets' | 'clusters', Array<Record<string, unknown>>>> = {};
  for (const name of ['workspaces', 'buckets', 'clusters'] as const) {
    const object = await deps.objects.get(`${scratchPrefix(scan.scanId)}${name}.json`);
    if (object) lists[name] = JSON.parse(object.body) as Array<Record<string, unknown>>;
  }
  const prefix = scanPrefix(scan.startedAt, scan.scanId);
  const recorded = new Set<string>();
  for await (const listed of deps.objects.list(prefix)) {
    if (!listed.key.endsWith('.jsonl')) continue;
    const [scope, check = 'terraform'] = listed.key.slice(prefix.length, -'.jsonl'.length).split('@');
    recorded.add(`${scope}@${check}`);
  }
  const unfinished = unfinishedScopes(registry, failures ?? {}, lists, recorded);
  for (const { scope, check, draft } of unfinished) {
    await deps.store.recordWorkspace(scan, { workspace: scope, check, outcome: 'failed' }, [draft]);
  }
  return unfinished;
}
