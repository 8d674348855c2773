import { findingId } from '../findings/fingerprint.js';
import type { CurrentDocument } from '../findings/lifecycle.js';
import type { WorkspaceConfig, WorkspaceRunner } from '../registry/model.js';

/**
 * The ruleId of a scan that ran out of time: Terraform stopped by the runner's deadline, or the
 * Lambda/CodeBuild task itself timing out. LoadRegistry reads it back to move a workspace to
 * CodeBuild, so it is one stable id (one fingerprint per workspace), whatever stage timed out.
 */
export const SCAN_TIMEOUT_RULE_ID = 'scan.timeout';

/** The build timeout of a CodeBuild scan without a `timeout` in the registry. */
export const DEFAULT_CODEBUILD_TIMEOUT_MS = 2 * 60 * 60_000;

/**
 * A workspace that timed out in Lambda stays on CodeBuild this long after the timeout finding was
 * resolved (by a successful CodeBuild scan): otherwise it would flip back to Lambda, time out again,
 * and fail every other night.
 */
export const AUTO_CODEBUILD_DAYS = 30;

/** Restricts a scan to one workspace or to the workspaces of one AWS account (`driftwatch invoke`). */
export type ScanFilter = { workspace: string } | { account: string };

/** Scan ids of re-scans on demand start with this: the health check does not take them for a night. */
export const RESCAN_PREFIX = 'rescan-';

/** The account a workspace is scanned in: its role's account, or the scanner's own (`default`). */
export const DEFAULT_ACCOUNT = 'default';

export function accountOf(workspace: Pick<WorkspaceConfig, 'roleArn'>): string {
  return /^arn:[^:]+:iam::(\d{12}):/.exec(workspace.roleArn ?? '')?.[1] ?? DEFAULT_ACCOUNT;
}

/** One ScanTerraform item: where it runs and for how long (seconds, as Step Functions takes them). */
export interface WorkspaceItem {
  workspace: string;
  account: string;
  runner: WorkspaceRunner;
  /** Why `runner` is what it is: the registry said so, or the workspace timed out recently. */
  runnerReason: 'registry' | 'default' | 'timed-out';
  /**
   * The scan's time budget; null: the runner's own limit (Lambda's invocation time). Never absent:
   * the state machine selects item fields by path, and a missing field is a runtime error there.
   */
  timeoutSeconds: number | null;
  /** CodeBuild's build timeout (the budget plus a margin for recording, at most 8 h); null in Lambda. */
  buildTimeoutMinutes: number | null;
}

/** The Map over accounts: each account's workspaces, scanned at most `maxConcurrency` at a time. */
export interface AccountGroup {
  account: string;
  maxConcurrency: number;
  workspaces: Array<Omit<WorkspaceItem, 'account' | 'runnerReason'>>;
}

export class UnknownFilterError extends Error {
  constructor(filter: ScanFilter, known: string[]) {
    const [what, value] =
      'workspace' in filter ? ['workspace', filter.workspace] : ['account', filter.account];
    super(
      `no ${what} '${value}' in the registry; ${what}s: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`,
    );
    this.name = 'UnknownFilterError';
  }
}

/** The workspaces a scan covers: all of them, or those the filter names (an unknown name is an error). */
export function selectWorkspaces<T extends Pick<WorkspaceConfig, 'id' | 'roleArn'>>(
  workspaces: readonly T[],
  filter: ScanFilter | undefined,
): T[] {
  if (!filter) return [...workspaces];
  const selected =
    'workspace' in filter
      ? workspaces.filter((workspace) => workspace.id === filter.workspace)
      : workspaces.filter((workspace) => accountOf(workspace) === filter.account);
  if (selected.length === 0) {
    const known =
      'workspace' in filter
        ? workspaces.map((workspace) => workspace.id)
        : [...new Set(workspaces.map(accountOf))];
    throw new UnknownFilterError(filter, known);
  }
  return selected;
}

/**
 * True when the workspace's last scans say it does not fit in Lambda: its timeout finding is open,
 * or was resolved less than AUTO_CODEBUILD_DAYS ago (a CodeBuild scan succeeded since).
 */
export function timedOutRecently(
  workspace: string,
  current: CurrentDocument | undefined,
  now: Date,
): boolean {
  if (!current) return false;
  const id = findingId({ kind: 'scan-failed', ruleId: SCAN_TIMEOUT_RULE_ID, workspace });
  if (current.findings.some((finding) => finding.id === id && finding.status !== 'resolved')) return true;
  const windowMs = AUTO_CODEBUILD_DAYS * 24 * 60 * 60_000;
  return current.resolved.some(
    (record) => record.id === id && now.getTime() - Date.parse(record.resolvedAt) <= windowMs,
  );
}

/** Where each workspace runs and with which budget. */
export function planWorkspace(
  workspace: Pick<WorkspaceConfig, 'id' | 'roleArn' | 'runner' | 'timeout'>,
  timedOut: boolean,
): WorkspaceItem {
  const runner: WorkspaceRunner = workspace.runner ?? (timedOut ? 'codebuild' : 'lambda');
  const runnerReason = workspace.runner ? 'registry' : timedOut ? 'timed-out' : 'default';
  const budgetMs = workspace.timeout ?? (runner === 'codebuild' ? DEFAULT_CODEBUILD_TIMEOUT_MS : undefined);
  return {
    workspace: workspace.id,
    account: accountOf(workspace),
    runner,
    runnerReason,
    timeoutSeconds: budgetMs === undefined ? null : Math.round(budgetMs / 1000),
    buildTimeoutMinutes:
      runner === 'codebuild' && budgetMs !== undefined
        ? Math.min(480, Math.ceil(budgetMs / 60_000) + 5)
        : null,
  };
}

/**
 * An account's workspaces travel inline in its Map item (one child execution per group), so a group
 * stays well under Step Functions' 256 KiB input and 25,000 history events: larger accounts are split.
 */
export const MAX_GROUP_WORKSPACES = 500;

/**
 * Workspaces by account, in registry order. The account's cap is shared by its groups (at least one
 * scan each), so an account split in two never runs more than `perAccount` scans at once unless it
 * has more groups than the cap.
 */
export function groupByAccount(items: readonly WorkspaceItem[], perAccount: number): AccountGroup[] {
  const byAccount = new Map<string, Array<AccountGroup['workspaces'][number]>>();
  for (const { account, runnerReason: _reason, ...workspace } of items) {
    const list = byAccount.get(account) ?? [];
    list.push(workspace);
    byAccount.set(account, list);
  }
  const groups: AccountGroup[] = [];
  for (const [account, workspaces] of byAccount) {
    const chunks = Math.ceil(workspaces.length / MAX_GROUP_WORKSPACES);
    const maxConcurrency = Math.max(1, Math.floor(perAccount / chunks));
    for (let start = 0; start < workspaces.length; start += MAX_GROUP_WORKSPACES)
      groups.push({
        account,
        maxConcurrency,
        workspaces: workspaces.slice(start, start + MAX_GROUP_WORKSPACES),
      });
  }
  return groups;
}
