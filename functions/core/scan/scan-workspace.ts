import type { FindingDraft } from '../findings/model.js';
import type { Policies, WorkspaceConfig } from '../registry/model.js';
import { stateObjectKey } from '../registry/state-key.js';
import {
  type CompactPlan,
  type EvaluationContext,
  type EvaluationResult,
  evaluateCompactPlan,
  scanFailedFinding,
} from '../terraform/index.js';
import { describeFailedReads, type FailedRead } from '../terraform/provider-log.js';
import {
  type IdentityCheck,
  type PlanRun,
  type PreparedWorkspace,
  type ScanPorts,
  type StateVersion,
  TerraformRunError,
  type WorkspaceCredentials,
} from './ports.js';
import { SCAN_TIMEOUT_RULE_ID } from './runner-plan.js';

export type WorkspaceScanStatus = 'ok' | 'failed' | 'busy';

export interface WorkspaceScanResult {
  workspace: string;
  status: WorkspaceScanStatus;
  findings: FindingDraft[];
  /** Plans run: 1 normally, 2 after a state change or a deletion-guard confirmation, up to 3. */
  plansRun: number;
  noiseRemoved: EvaluationResult['noiseRemoved'];
  plan?: EvaluationResult['plan'];
  durationsMs: { init?: number; plans: number[] };
  /** Terraform's exit code per plan: evidence only (2 appears even without drift). */
  terraformExitCodes: Array<number | null>;
}

export interface ScanWorkspaceOptions {
  /** Scan start; decides which ignore rules have expired. */
  now: Date;
}

type StablePlan =
  | { stable: true; run: PlanRun; stateVersion: StateVersion | undefined; rescanned: boolean }
  | { stable: false; versions: Array<StateVersion | undefined> };

/**
 * Scans one workspace read-only: assume its role, check the identity, plan refresh-only, and turn
 * the plan into findings. Guards (DESIGN.md principles 3 and 4):
 * - the state object's version is read before and after each plan; if it moved, the plan may be
 *   stale, so the workspace is planned once more, and if it moves again it is reported busy;
 * - a plan reporting the deletion of a large share of the workspace, or one made while the identity
 *   preflight failed, is confirmed by a second plan before anything is reported.
 */
export async function scanWorkspace(
  workspace: WorkspaceConfig,
  policies: Policies,
  ports: ScanPorts,
  options: ScanWorkspaceOptions,
): Promise<WorkspaceScanResult> {
  const context: EvaluationContext = {
    workspace: workspace.id,
    owner: workspace.owner,
    environment: workspace.environment,
    policies,
    now: options.now,
    remediation: { source: describeSource(workspace), backend: describeBackend(workspace) },
  };
  const result: WorkspaceScanResult = {
    workspace: workspace.id,
    status: 'ok',
    findings: [],
    plansRun: 0,
    noiseRemoved: [],
    durationsMs: { plans: [] },
    terraformExitCodes: [],
  };
  const fail = (ruleId: string, reason: string, evidence: Record<string, unknown> = {}) => {
    result.status = 'failed';
    result.findings = [
      scanFailedFinding(context, reason, evidence, { ruleId, remediation: context.remediation }),
    ];
    return result;
  };

  let credentials: WorkspaceCredentials | undefined;
  try {
    credentials = await ports.credentials(workspace);
  } catch (error) {
    return fail(
      'scan.credentials',
      `could not assume ${workspace.roleArn ?? 'the scanner role'}: ${messageOf(error)}`,
    );
  }
  const identity = await ports.identity(workspace, credentials);

  let prepared: PreparedWorkspace;
  try {
    prepared = await ports.prepare(workspace, credentials);
  } catch (error) {
    return failFromRunError(error);
  }
  result.durationsMs.init = prepared.initDurationMs;
  if (prepared.configuration) context.configuration = prepared.configuration;

  // Without the version a concurrent apply goes unnoticed and a half-applied state reads as drift:
  // a failed read fails the scan with its cause (never a silent "no state"), like any other stage.
  const readStateVersion = async (): Promise<StateVersion | undefined> => {
    try {
      return await ports.stateVersion(workspace, credentials);
    } catch (error) {
      throw new StateVersionError(messageOf(error), { cause: error });
    }
  };

  /** Plans until two reads of the state version agree around a plan (at most twice). */
  const planStable = async (): Promise<StablePlan> => {
    const versions: Array<StateVersion | undefined> = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      const before = await readStateVersion();
      const run = await prepared.plan();
      result.plansRun++;
      result.durationsMs.plans.push(run.durationMs);
      result.terraformExitCodes.push(run.exitCode);
      const after = await readStateVersion();
      if (sameVersion(before, after))
        return { stable: true, run, stateVersion: after, rescanned: attempt > 1 };
      versions.push(before, after);
    }
    return { stable: false, versions };
  };

  try {
    const first = await planStable();
    if (!first.stable) return busy(first.versions);
    let evaluatedPlan = first.run.plan;
    let evaluation = evaluateCompactPlan(evaluatedPlan, context);
    if (isFailure(evaluation)) return failedPlan(evaluation, first.run);
    // No state object: Terraform planned against an empty state, which has no drift to find. A new
    // workspace never applied, or a registry entry naming the wrong key: either way nothing was read.
    if (first.stateVersion === undefined)
      return fail(
        'scan.state-missing',
        `there is no state at ${describeBackend(workspace)}, so nothing was compared: the workspace was never applied, or its registry entry names the wrong backend (bucket, key, workspace or workspaceKeyPrefix). ` +
          `Correct the entry (aws s3 ls s3://${workspace.backend.bucket}/ --recursive lists the states there), or leave the workspace out of the registry until its first apply.`,
        { stage: 'state-version' },
      );
    let confirmation: Record<string, unknown> | undefined;

    const confirmReason = evaluation.deletionGuard.triggered
      ? 'deletion-guard'
      : !identity.ok
        ? 'identity-preflight-failed'
        : undefined;
    if (confirmReason) {
      const second = await planStable();
      if (!second.stable) return busy(second.versions);
      const confirmed = evaluateCompactPlan(second.run.plan, context);
      if (isFailure(confirmed)) return failedPlan(confirmed, second.run);
      confirmation = {
        reason: confirmReason,
        identity: describeIdentity(identity),
        firstPlan: guardSummary(evaluation),
        secondPlan: guardSummary(confirmed),
      };
      evaluation = confirmed;
      evaluatedPlan = second.run.plan;
    }

    // A deletion is only as good as the read that found the object missing (provider-log.ts).
    const deleted = evaluation.findings.flatMap((finding) =>
      finding.ruleId === 'drift.delete' && finding.resource && 'address' in finding.resource
        ? [finding.resource.address]
        : [],
    );
    if (deleted.length > 0 && prepared.readFailures) {
      const failures = await prepared.readFailures([...deleted, ...movedAddresses(evaluatedPlan)]);
      if (failures.length > 0) return unprovenDeletions(deleted, failures);
    }

    result.plan = evaluation.plan;
    result.noiseRemoved = evaluation.noiseRemoved;
    result.findings = evaluation.findings.map((finding) => ({
      ...finding,
      evidence: {
        ...finding.evidence,
        ...(first.rescanned ? { rescannedAfterStateChange: true } : {}),
        ...(confirmation ? { confirmedBySecondPlan: confirmation } : {}),
      },
    }));
    return result;
  } catch (error) {
    return failFromRunError(error);
  } finally {
    await prepared.close();
  }

  function busy(versions: Array<StateVersion | undefined>): WorkspaceScanResult {
    result.status = 'busy';
    result.findings = [workspaceBusyFinding(context, versions)];
    return result;
  }

  function unprovenDeletions(deleted: string[], failures: FailedRead[]): WorkspaceScanResult {
    const noAnswer = failures.some((failure) => failure.status === 0);
    const denied = failures.some((failure) => failure.status === 401 || failure.status === 403);
    const fixes = [
      ...(denied ? ['give the scan role read access to them (an S3 HeadBucket needs s3:ListBucket)'] : []),
      ...(noAnswer ? ["check the provider's endpoints and the network (proxy, DNS, VPC endpoints)"] : []),
      ...(!denied && !noAnswer ? ['check the API the errors name'] : []),
    ];
    const listed = `${deleted.slice(0, 5).join(', ')}${deleted.length > 5 ? ` and ${deleted.length - 5} more` : ''}`;
    return fail(
      'scan.read-failed',
      `${listed} reported deleted without proof: ${describeFailedReads(failures)}\n\n` +
        'The AWS provider reports a resource it may not read, or cannot reach, as deleted outside Terraform, so no drift is reported. ' +
        `To scan it: ${fixes.join(', and ')}, then scan again.`,
      { stage: 'plan', deletionsReported: deleted.length, failedReads: failures },
    );
  }

  function failedPlan(evaluation: EvaluationResult, run: PlanRun): WorkspaceScanResult {
    result.plan = evaluation.plan;
    result.status = 'failed';
    result.findings = evaluation.findings.map((finding) =>
      run.errorSummary
        ? {
            ...finding,
            detail: `${finding.detail}\n\nTerraform reported:\n${run.errorSummary}`,
            evidence: {
              ...finding.evidence,
              terraformExitCode: run.exitCode,
              terraformErrors: run.errorSummary,
            },
          }
        : finding,
    );
    return result;
  }

  function failFromRunError(error: unknown): WorkspaceScanResult {
    if (error instanceof StateVersionError) {
      return fail(
        'scan.state-version-failed',
        `could not read the version of ${describeBackend(workspace)}, so a concurrent apply could not be ruled out: ${error.message}. ` +
          'Check that the scan role may read the state object (s3:GetObject, which HeadObject needs) and the bucket is reachable, then scan again.',
        { stage: 'state-version' },
      );
    }
    if (error instanceof TerraformRunError) {
      // An unreadable plan file is the same finding whether it came from a scan or evaluate-plan.
      const ruleId = error.timedOut
        ? SCAN_TIMEOUT_RULE_ID
        : error.stage === 'evaluate'
          ? 'scan.plan-invalid'
          : `scan.${error.stage}-failed`;
      return fail(ruleId, error.reason, {
        stage: error.stage,
        ...(error.timedOut ? { timedOut: true } : {}),
      });
    }
    return fail('scan.failed', messageOf(error));
  }
}

/** Reading the state object's version failed: concurrent-apply detection would be off. */
class StateVersionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateVersionError';
  }
}

function isFailure(evaluation: EvaluationResult): boolean {
  return evaluation.findings.some((finding) => finding.kind === 'scan-failed');
}

function guardSummary(evaluation: EvaluationResult) {
  return {
    deletions: evaluation.deletionGuard.deletions,
    managed: evaluation.deletionGuard.managed,
    ratio: evaluation.deletionGuard.ratio,
  };
}

function describeIdentity(identity: IdentityCheck) {
  return identity.ok ? { ok: true, account: identity.account, arn: identity.arn } : identity;
}

function sameVersion(a: StateVersion | undefined, b: StateVersion | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.versionId || b.versionId) return a.versionId === b.versionId;
  return a.etag === b.etag && a.lastModified === b.lastModified;
}

function workspaceBusyFinding(
  context: Pick<EvaluationContext, 'workspace' | 'owner' | 'environment'>,
  versions: Array<StateVersion | undefined>,
): FindingDraft {
  return {
    kind: 'workspace-busy',
    ruleId: 'scan.workspace-busy',
    severity: 'info',
    workspace: context.workspace,
    owner: context.owner,
    environment: context.environment,
    title: `${context.workspace}: state changed while it was being scanned`,
    detail:
      'The state object was written during the plan, and again during the rescan: someone is applying. ' +
      'A plan made against moving state could report drift that is only an apply in progress, so nothing was reported.',
    evidence: { stateVersions: versions },
    remediation: {
      summary: 'Nothing to do if an apply was running; the next scan covers this workspace again.',
      steps: [
        "If no apply should have been running, check who wrote the state (the state bucket's access logs or CloudTrail).",
      ],
    },
  };
}

export function describeSource(workspace: WorkspaceConfig): string {
  const root = 'dir' in workspace.source ? workspace.source.dir : workspace.source.s3;
  return workspace.source.path ? `${root} (path ${workspace.source.path})` : root;
}

export function describeBackend(workspace: WorkspaceConfig): string {
  const { bucket, region } = workspace.backend;
  return `s3://${bucket}/${stateObjectKey(workspace)} (${region})`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Both addresses of every resource a `moved` block moved: Terraform refuses a targeted plan whose
 * targets leave out a moved instance ("Moved resource instances excluded by targeting"), so the
 * deletions' re-read of a workspace that is mid-refactor must target them too.
 */
function movedAddresses(plan: CompactPlan): string[] {
  const moved = new Set<string>();
  for (const change of [...plan.drift, ...plan.changes])
    if (change.previousAddress !== undefined) moved.add(change.previousAddress).add(change.address);
  return [...moved];
}
