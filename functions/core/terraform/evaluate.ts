import {
  type AttributeChange,
  type DriftAction,
  type FindingDraft,
  type FindingKind,
  type Remediation,
  SEVERITIES,
  type TerraformResourceRef,
} from '../findings/model.js';
import type { SensitiveHasher } from '../redaction/secrets.js';
import { compactPlan } from './compact.js';
import { type ConfigurationIndex, createConfigurationIndex, type IgnoredChanges } from './configuration.js';
import { computeDeletionGuard } from './deletion-guard.js';
import { changesBeyondDriftRevert } from './drift-revert.js';
import type { EvaluationContext, EvaluationResult } from './evaluate-types.js';
import { noiseSentence, pathsSentence, withAttributes } from './finding-text.js';
import { createNoiseNormaliser, type NoiseNormaliser, type NoiseRemoval } from './noise.js';
import { PlanFormatError } from './plan-error.js';
import type {
  CompactAttributeChange,
  CompactChange,
  CompactOutputChange,
  CompactPlan,
  FailedCheck,
} from './plan-model.js';
import { createRemediations, type Remediations } from './remediation.js';
import { scanFailedFinding } from './scan-failed.js';
import {
  createSeverityDecider,
  raisedByExposure,
  type SeverityBase,
  type SeverityDecider,
} from './severity.js';

/**
 * Turns a compacted plan into finding drafts. Decisions come from the plan JSON only (principle 2):
 * an errored or incomplete plan is one `scan-failed` finding (principle 3); drift comes from
 * `resource_drift`, pending changes from `resource_changes` minus the revert of that drift.
 */
export function evaluateCompactPlan(plan: CompactPlan, context: EvaluationContext): EvaluationResult {
  const deletionGuard = computeDeletionGuard(plan, context.policies);
  const summary: EvaluationResult['plan'] = {
    formatVersion: plan.formatVersion,
    errored: plan.errored,
    complete: plan.complete,
    managedResourceCount: deletionGuard.managed,
    reportedDeletions: deletionGuard.deletions,
  };
  if (plan.terraformVersion !== undefined) summary.terraformVersion = plan.terraformVersion;

  if (plan.errored || !plan.complete) {
    return {
      findings: [untrustedPlanFinding(plan, context)],
      plan: summary,
      noiseRemoved: [],
      deletionGuard,
    };
  }

  const evaluation = new Evaluation(plan, context);
  for (const change of plan.drift) evaluation.drift(change);
  if (plan.changes.length > 0) {
    // A deposed object shares its address with the current one: only the current object's drift is
    // what the current object's pending change may revert.
    const driftByAddress = new Map(
      plan.drift.filter((change) => change.deposed === undefined).map((change) => [change.address, change]),
    );
    for (const change of plan.changes) evaluation.pending(change, driftByAddress.get(change.address));
  }
  for (const output of plan.outputChanges) evaluation.output(output);
  for (const check of plan.failedChecks ?? []) evaluation.check(check);

  return {
    findings: sortFindings(evaluation.findings),
    plan: summary,
    noiseRemoved: isSorted(evaluation.noiseRemoved, compareNoise)
      ? evaluation.noiseRemoved
      : evaluation.noiseRemoved.sort(compareNoise),
    deletionGuard,
  };
}

/**
 * Compacts and evaluates a plan (parsed JSON or JSON text). A plan that cannot be read yields a
 * result with exactly one `scan-failed` finding carrying the reason.
 */
export function evaluatePlan(
  raw: unknown,
  context: EvaluationContext & { hashSensitive: SensitiveHasher },
): EvaluationResult {
  let plan: CompactPlan;
  try {
    plan = compactPlan(raw, { hashSensitive: context.hashSensitive });
  } catch (error) {
    if (!(error instanceof PlanFormatError)) throw error;
    return unreadablePlanResult(error.message, context);
  }
  return evaluateCompactPlan(plan, context);
}

/** The result for a plan that could not be read at all (also used by callers that stream plans). */
export function unreadablePlanResult(reason: string, context: EvaluationContext): EvaluationResult {
  return {
    findings: [
      scanFailedFinding(
        context,
        reason,
        {},
        {
          ruleId: 'scan.plan-invalid',
          title: `Scan of ${context.workspace} failed: unreadable plan`,
          ...remediationOption(context),
        },
      ),
    ],
    plan: {
      formatVersion: '',
      errored: false,
      complete: false,
      managedResourceCount: 0,
      reportedDeletions: 0,
    },
    noiseRemoved: [],
    deletionGuard: { triggered: false, ratio: 0, deletions: 0, managed: 0 },
  };
}

function untrustedPlanFinding(plan: CompactPlan, context: EvaluationContext): FindingDraft {
  const deletions = plan.drift.filter((change) => change.actions.includes('delete')).length;
  const state = plan.errored ? 'errored' : 'incomplete';
  const ignored =
    plan.drift.length > 0
      ? ` It listed ${plan.drift.length} drifted resource(s) (${deletions} deletion(s)); none are reported, because a provider that cannot reach its API reports resources as deleted.`
      : '';
  const reason = `Terraform reported the plan as ${state}${plan.errored ? ' (errors while planning)' : incompleteCause(plan)}.${ignored}`;
  return scanFailedFinding(
    context,
    reason,
    compactEvidence({
      formatVersion: plan.formatVersion,
      terraformVersion: plan.terraformVersion,
      errored: plan.errored,
      complete: plan.complete,
      ignoredDrift: plan.drift.length,
      ignoredDeletions: deletions,
      ignoredAddresses: plan.drift.slice(0, 20).map((change) => change.address),
      deferredChanges: plan.deferred?.count,
      deferredReasons: plan.deferred?.reasons,
      deferredAddresses: plan.deferred?.addresses,
    }),
    {
      ruleId: plan.errored ? 'scan.plan-errored' : 'scan.plan-incomplete',
      title: `Scan of ${context.workspace} failed: the plan is ${state}`,
      ...remediationOption(context),
    },
  );
}

/**
 * Why a plan without errors is incomplete: Terraform deferred changes (it lists them), or the plan was
 * made with `-target` (Terraform says nothing more; context_plan.go sets complete for neither).
 */
function incompleteCause(plan: CompactPlan): string {
  const deferred = plan.deferred;
  if (deferred === undefined || deferred.count === 0)
    return ' (not all changes could be planned: a plan made with -target, or one that left changes to a later plan)';
  const more = deferred.count > deferred.addresses.length ? ', …' : '';
  return `: it deferred ${deferred.count} change(s) to a later plan because what they depend on is not known yet (${deferred.reasons.join(', ')}: ${deferred.addresses.join(', ')}${more})`;
}

function remediationOption(context: EvaluationContext): {
  remediation?: { source?: string; backend?: string };
} {
  return context.remediation ? { remediation: context.remediation } : {};
}

interface FindingSpec {
  kind: Extract<FindingKind, 'terraform-drift' | 'pending-change'>;
  ruleId: string;
  /** undefined: the finding has no `drift` member (a clean move changed no value). */
  action: DriftAction | undefined;
  severityBase: SeverityBase;
  change: CompactChange;
  changes: readonly CompactAttributeChange[];
  noise: NoiseRemoval[];
  title: string;
  detail: string;
  /** Drift's remediation depends on its severity (an exposure is adopted only if intended): built once that is decided. */
  remediation: Remediation | ((exposed: boolean) => Remediation);
  /** Changes left out because `lifecycle.ignore_changes` covers them (with the rule that did). */
  ignored?: IgnoredChanges;
}

const NO_CHANGES: readonly CompactAttributeChange[] = [];

/** Collects findings and noise for one plan. */
class Evaluation {
  readonly findings: FindingDraft[] = [];
  readonly noiseRemoved: EvaluationResult['noiseRemoved'] = [];
  private readonly normalise: NoiseNormaliser;
  private readonly remediations: Remediations;
  private readonly decideSeverity: SeverityDecider;
  private readonly configuration: ConfigurationIndex;

  constructor(
    private readonly plan: CompactPlan,
    private readonly context: EvaluationContext,
  ) {
    this.normalise = createNoiseNormaliser(plan, context.policies, context.now);
    this.remediations = createRemediations({ workspace: context.workspace, ...context.remediation });
    this.decideSeverity = createSeverityDecider(context);
    this.configuration = createConfigurationIndex(context.configuration);
  }

  drift(change: CompactChange): void {
    if (change.mode !== 'managed') return;
    // An import adopts an existing object: that is the configuration catching up, never drift
    // (refresh-only plans skip import blocks; this holds for any plan that lists one in drift).
    if (change.importing) return;
    const action = driftActionOf(change);
    if (action === undefined) return;
    const { address, type } = change;
    const remediation = this.remediations;

    if (change.deposed !== undefined) {
      // A deposed object is what a create_before_destroy left behind; the next apply destroys it
      // whatever the refresh found. Its drift (even its deletion) is no decision for anyone, and it
      // must not read as the current object at that address being deleted or changed.
      this.deposedObject(change);
      return;
    }
    const removedBlock = this.configuration.removedBlockFor(address);
    if (removedBlock !== undefined) {
      // The configuration has let go of this object (a `removed` block): its drift is nobody's
      // decision any more. Accounted for like noise, so the summary still shows it.
      this.noiseRemoved.push({
        rule: 'removed-block',
        address,
        paths: change.changes.length > 0 ? pathsOf(change.changes) : [''],
        reason: `removed block for ${removedBlock.from} in ${removedBlock.file} (${removedBlock.destroy ? 'destroyed' : 'forgotten'} at the next apply)`,
      });
      return;
    }

    if (action === 'delete') {
      this.add({
        kind: 'terraform-drift',
        ruleId: 'drift.delete',
        action,
        severityBase: 'drift.delete',
        change,
        changes: NO_CHANGES,
        noise: [],
        title: `${address} was deleted outside Terraform`,
        detail: `Terraform's refresh could not find ${address} (${type}): the object was deleted outside Terraform while the configuration still declares it.${movedSentence(change)}`,
        remediation: remediation.deletion(address),
      });
      return;
    }

    const { changes: normalised, removed } = this.normalise(change);
    const noise = countPaths(removed);

    if (action === 'replace') {
      this.add({
        kind: 'terraform-drift',
        ruleId: 'drift.replace',
        action,
        severityBase: 'drift.replace',
        change,
        changes: normalised,
        noise: removed,
        title: withAttributes(`${address} was replaced outside Terraform`, normalised),
        detail: `Terraform's refresh found a different object behind ${address} (${type}) than the one it created.${movedSentence(change)}${pathsSentence(normalised)}${noiseSentence(noise)}`,
        remediation: (exposed) => remediation.drift(pathsOf(normalised), exposed),
      });
      return;
    }

    // update (or a move, which is an update at the new address): what ignore_changes leaves.
    const ignored = this.configuration.ignoreChanges(address, normalised);
    const changes = ignored.kept;
    if (changes.length === 0 && ignored.rule !== undefined) {
      const where = ignoredSentence(ignored);
      this.add({
        kind: 'terraform-drift',
        ruleId: 'drift.ignored-changes',
        action: 'update',
        severityBase: 'drift.ignored-changes',
        change,
        changes: ignored.ignored,
        noise: removed,
        title: withAttributes(
          `${address} changed outside Terraform in attributes the configuration ignores`,
          ignored.ignored,
        ),
        detail: `Terraform's refresh found that ${address} (${type}) differs from its last applied state only in attributes ${where}: Terraform will not change them back, so there is nothing to decide.${movedSentence(change)}${pathsSentence(ignored.ignored)}${noiseSentence(noise)}`,
        remediation: remediation.ignoredChanges(ignored.rule.file),
      });
      return;
    }
    if (changes.length === 0 && change.previousAddress !== undefined) {
      const previous = change.previousAddress;
      this.add({
        kind: 'terraform-drift',
        ruleId: 'drift.moved',
        action: undefined,
        severityBase: 'drift.moved',
        change,
        changes: NO_CHANGES,
        noise: removed,
        title: `${address} moved from ${previous}`,
        detail: `A moved block renamed ${previous} to ${address}; the refresh found no value change. A refactor is not drift.${noiseSentence(noise)}`,
        remediation: remediation.moved(address, previous),
      });
      return;
    }
    // A resource whose changes are all noise is not drift.
    if (changes.length === 0) {
      this.recordNoise(address, removed);
      return;
    }
    const ignoredNote =
      ignored.rule === undefined
        ? ''
        : ` ${ignored.ignored.length} further change(s) in attributes ${ignoredSentence(ignored)} were left out.`;
    this.add({
      kind: 'terraform-drift',
      ruleId: 'drift.update',
      action: 'update',
      severityBase: 'drift.update',
      change,
      changes,
      noise: removed,
      // The title is the same with or without a pending move, so the finding stays `ongoing` once
      // the move is applied; the move is in `resource.movedFrom` and the detail.
      title: withAttributes(`${address} changed outside Terraform`, changes),
      detail: `Terraform's refresh found that ${address} (${type}) differs from its last applied state.${movedSentence(change)}${pathsSentence(changes)}${noiseSentence(noise)}${ignoredNote}`,
      remediation: (exposed) => remediation.drift(pathsOf(changes), exposed),
      ...(ignored.rule === undefined ? {} : { ignored }),
    });
  }

  pending(change: CompactChange, drift: CompactChange | undefined): void {
    if (change.mode !== 'managed') return;
    // Its pending delete finishes a create_before_destroy that was already applied: no decision,
    // and never "<address> will be destroyed" while the current object at that address stays.
    if (change.deposed !== undefined) {
      if (change.actions.length > 0 && !isSingle(change.actions, 'no-op')) this.deposedObject(change);
      return;
    }
    if (change.importing && !isReplace(change.actions)) {
      this.pendingImport(change);
      return;
    }
    const action = pendingActionOf(change);
    if (action === undefined) return;
    const beyondRevert = changesBeyondDriftRevert(change, drift);
    if (beyondRevert === undefined) return;
    const { changes, removed } = this.normalise(
      beyondRevert === change.changes ? change : { ...change, changes: beyondRevert },
    );
    // An update that is all noise changes nothing; creates, deletes and replaces stand on their own.
    if (action === 'update' && changes.length === 0) {
      this.recordNoise(change.address, removed);
      return;
    }
    const { address, type } = change;
    const shown = action === 'delete' ? NO_CHANGES : changes;
    const reason = change.actionReason ? ` (${change.actionReason})` : '';
    this.add({
      kind: 'pending-change',
      ruleId: `pending.${action}`,
      action,
      severityBase: `pending.${action}`,
      change,
      changes: shown,
      noise: removed,
      title: pendingTitle(action, address, shown),
      detail: `The configuration of ${address} (${type}) differs from what was last applied; a normal plan would ${action} it${reason}.${forgetSentence(change)}${movedSentence(change)}${pathsSentence(shown)}${noiseSentence(countPaths(removed))}`,
      remediation: this.remediations.pending(action, pathsOf(shown)),
    });
  }

  /**
   * An `import` block adopts an object that already exists: the configuration catching up with
   * reality, not drift and not a risky change, so it is info. When the same apply also updates
   * attributes, those are judged as any pending update is (an import that also makes a bucket
   * public is critical, not info). An import that replaces the object stays a `pending.replace`:
   * that destroys something that exists.
   */
  private pendingImport(change: CompactChange): void {
    const { address, type } = change;
    const { changes, removed } = this.normalise(change);
    this.add({
      kind: 'pending-change',
      ruleId: 'pending.import',
      action: 'update',
      severityBase: changes.length > 0 ? 'pending.update' : 'pending.import',
      change,
      changes,
      noise: removed,
      title: withAttributes(`${address} will be imported by the next apply`, changes),
      detail: `An import block adopts the existing object behind ${address} (${type}) into the state at the next apply; nothing is created or destroyed.${changes.length > 0 ? ' The same apply updates the attributes the configuration declares differently.' : ''}${pathsSentence(changes)}${noiseSentence(countPaths(removed))}`,
      remediation: this.remediations.imported(address, pathsOf(changes)),
    });
  }

  /** Accounts for a deposed object's drift or pending change like noise, so the summary still shows it. */
  private deposedObject(change: CompactChange): void {
    this.noiseRemoved.push({
      rule: 'deposed-object',
      address: change.address,
      paths: change.changes.length > 0 ? pathsOf(change.changes) : [''],
      reason: `deposed object ${change.deposed}, ${change.actions.includes('forget') ? 'forgotten' : 'destroyed'} by the next apply`,
    });
  }

  output(output: CompactOutputChange): void {
    const address = `output.${output.name}`;
    const { changes, removed } = this.normalise({ address, type: 'output', changes: output.changes });
    this.recordNoise(address, removed);
    if (changes.length === 0) return;
    const severity = this.decideSeverity({
      base: 'drift.output',
      ruleId: 'drift.output',
      resource: { address, type: 'output' },
      deleted: false,
      changes,
    });
    const evidence: Record<string, unknown> = { actions: output.actions };
    this.addVersions(evidence);
    evidence.sensitive = output.sensitive;
    evidence.noiseRemoved = removed;
    evidence.severityReasons = severity.reasons;
    this.findings.push(
      this.draft({
        kind: 'terraform-drift',
        ruleId: 'drift.output',
        severity: severity.severity,
        resource: { address, type: 'output' },
        drift: { action: 'update', changes: changes.map(publicChange) },
        title: `Output ${output.name} changed`,
        detail: `Output ${output.name} of ${this.context.workspace} changed (${output.actions.join(', ')})${output.sensitive ? '; it is sensitive, so only hashes are shown' : ''}.${pathsSentence(changes)}`,
        evidence,
        remediation: this.remediations.output(output.name),
      }),
    );
  }

  /**
   * A check block (or a condition a refresh-only plan reports as a warning) that fails against the
   * live infrastructure: an assertion the team wrote about it no longer holds. Terraform only warns,
   * and the plan may show no drift at all (a check on a data source: a certificate about to expire,
   * an endpoint that stopped answering).
   */
  check(check: FailedCheck): void {
    const type =
      check.kind === 'check'
        ? 'check'
        : check.kind === 'resource'
          ? resourceTypeOf(check.address)
          : check.kind;
    const resource = { address: check.address, type };
    const severity = this.decideSeverity({
      base: 'drift.check-failed',
      ruleId: 'drift.check-failed',
      resource,
      deleted: false,
      changes: [],
    });
    const what = check.kind === 'check' ? `Check ${check.address}` : `A condition of ${check.address}`;
    const instances = check.failedInstances > 1 ? ` (${check.failedInstances} instances)` : '';
    const evidence: Record<string, unknown> = {
      checkKind: check.kind,
      failedInstances: check.failedInstances,
      messages: check.messages,
    };
    this.addVersions(evidence);
    evidence.severityReasons = severity.reasons;
    this.findings.push(
      this.draft({
        kind: 'terraform-drift',
        ruleId: 'drift.check-failed',
        severity: severity.severity,
        resource,
        title: `${what} fails`,
        detail: `${what} fails against the live infrastructure of ${this.context.workspace}${instances}${check.messages.length > 0 ? `: ${check.messages.join(' | ')}` : ''}. Terraform reports it as a warning; the plan's other findings show any drift of what it reads.`,
        evidence,
        remediation: this.remediations.check(check.address),
      }),
    );
  }

  private add(spec: FindingSpec): void {
    const { change, changes, noise } = spec;
    const severity = this.decideSeverity({
      base: spec.severityBase,
      ruleId: spec.ruleId,
      resource: change,
      deleted: spec.action === 'delete',
      changes,
    });
    this.recordNoise(change.address, noise);
    const resource: TerraformResourceRef = { address: change.address, type: change.type };
    if (change.provider !== undefined) resource.provider = change.provider;
    if (change.module !== undefined) resource.module = change.module;
    if (change.previousAddress !== undefined) resource.movedFrom = change.previousAddress;
    const evidence = this.evidenceOf(change, noise, severity.reasons);
    if (spec.ignored?.rule !== undefined) {
      evidence.ignoredChanges = {
        paths: pathsOf(spec.ignored.ignored),
        by: 'lifecycle.ignore_changes',
        file: spec.ignored.rule.file,
        address: spec.ignored.rule.address,
      };
    }
    this.findings.push(
      this.draft({
        kind: spec.kind,
        ruleId: spec.ruleId,
        severity: severity.severity,
        resource,
        drift:
          spec.action === undefined ? undefined : { action: spec.action, changes: changes.map(publicChange) },
        title: spec.title,
        detail: spec.detail,
        evidence,
        remediation:
          typeof spec.remediation === 'function'
            ? spec.remediation(raisedByExposure(severity))
            : spec.remediation,
      }),
    );
  }

  /** Evidence members in a fixed order, undefined ones left out, so drafts serialise deterministically. */
  private evidenceOf(
    change: CompactChange,
    noise: NoiseRemoval[],
    severityReasons: readonly string[],
  ): Record<string, unknown> {
    const evidence: Record<string, unknown> = { actions: change.actions };
    if (change.actionReason !== undefined) evidence.actionReason = change.actionReason;
    if (change.previousAddress !== undefined) evidence.previousAddress = change.previousAddress;
    if (change.replacePaths !== undefined) evidence.replacePaths = change.replacePaths;
    if (change.deposed !== undefined) evidence.deposed = change.deposed;
    if (change.importing !== undefined) evidence.importing = change.importing;
    if (change.redactionNote !== undefined) evidence.redaction = change.redactionNote;
    this.addVersions(evidence);
    evidence.noiseRemoved = noise;
    evidence.severityReasons = severityReasons;
    if (change.tags !== undefined) evidence.tags = change.tags;
    return evidence;
  }

  private addVersions(evidence: Record<string, unknown>): void {
    if (this.plan.terraformVersion !== undefined) evidence.terraformVersion = this.plan.terraformVersion;
    evidence.formatVersion = this.plan.formatVersion;
  }

  /** Fields in contract order, with the workspace scope from the context. */
  private draft(
    parts: Pick<
      FindingDraft,
      'kind' | 'ruleId' | 'severity' | 'resource' | 'drift' | 'title' | 'detail' | 'evidence' | 'remediation'
    >,
  ): FindingDraft {
    const { owner, environment, workspace } = this.context;
    const finding: FindingDraft = {
      kind: parts.kind,
      ruleId: parts.ruleId,
      severity: parts.severity,
      workspace,
    } as FindingDraft;
    if (owner !== undefined) finding.owner = owner;
    if (environment !== undefined) finding.environment = environment;
    finding.resource = parts.resource;
    if (parts.drift !== undefined) finding.drift = parts.drift;
    finding.title = parts.title;
    finding.detail = parts.detail;
    finding.evidence = parts.evidence;
    finding.remediation = parts.remediation;
    return finding;
  }

  private recordNoise(address: string, removed: readonly NoiseRemoval[]): void {
    for (const removal of removed) {
      const entry: EvaluationResult['noiseRemoved'][number] = {
        rule: removal.rule,
        address,
        paths: removal.paths,
      };
      if (removal.reason !== undefined) entry.reason = removal.reason;
      this.noiseRemoved.push(entry);
    }
  }
}

function pendingTitle(
  action: 'create' | 'update' | 'delete' | 'replace',
  address: string,
  changes: readonly CompactAttributeChange[],
): string {
  switch (action) {
    case 'create':
      return `${address} will be created by the next apply`;
    case 'delete':
      return `${address} will be destroyed by the next apply`;
    case 'update':
      return withAttributes(`${address} has configuration changes not yet applied`, changes);
    case 'replace':
      return withAttributes(`${address} will be replaced by the next apply`, changes);
  }
}

function pathsOf(changes: readonly CompactAttributeChange[]): string[] {
  return changes.map((change) => change.path);
}

function countPaths(removed: readonly NoiseRemoval[]): number {
  let count = 0;
  for (const removal of removed) count += removal.paths.length;
  return count;
}

/**
 * Never `move`: a moved resource is an update at its new address (with no change left, an info
 * `drift.moved`). A no-op only reaches here with a previous_address (the compactor drops the rest).
 */
function driftActionOf(change: CompactChange): 'update' | 'delete' | 'replace' | undefined {
  const { actions } = change;
  if (isReplace(actions)) return 'replace';
  if (actions.includes('delete')) return 'delete';
  if (isSingle(actions, 'update')) return 'update';
  if (change.previousAddress !== undefined && isSingle(actions, 'no-op')) return 'update';
  return undefined;
}

function forgetSentence(change: CompactChange): string {
  return forgetsOldObject(change.actions)
    ? ' The old object is not destroyed: lifecycle destroy = false makes Terraform forget it, so it stays in the account, no longer managed.'
    : '';
}

function movedSentence(change: CompactChange): string {
  return change.previousAddress === undefined
    ? ''
    : ` A moved block moved it from ${change.previousAddress}; the finding follows the new address.`;
}

/** `ignored by lifecycle.ignore_changes in main.tf` */
function ignoredSentence(ignored: IgnoredChanges): string {
  return `ignored by lifecycle.ignore_changes in ${ignored.rule?.file ?? 'the configuration'}`;
}

function pendingActionOf(change: CompactChange): 'create' | 'update' | 'delete' | 'replace' | undefined {
  const { actions } = change;
  if (isReplace(actions)) return 'replace';
  if (isSingle(actions, 'create')) return 'create';
  if (isSingle(actions, 'delete')) return 'delete';
  if (isSingle(actions, 'update')) return 'update';
  // no-op moves (a refactoring) and a lone `forget` (the object stays, unmanaged) are not changes to review.
  return undefined;
}

/**
 * Terraform's replace actions (plans/action.go IsReplace): `delete, create` and `create, delete`,
 * and the forms under `lifecycle { destroy = false }` that create the new object and forget the old
 * one instead of destroying it: `create, forget` (Terraform 1.16) and `forget, create` (OpenTofu 1.12).
 */
function isReplace(actions: readonly string[]): boolean {
  return (
    actions.length === 2 &&
    actions.includes('create') &&
    (actions.includes('delete') || actions.includes('forget'))
  );
}

/** A replace that leaves the old object in place, no longer managed (`lifecycle { destroy = false }`). */
function forgetsOldObject(actions: readonly string[]): boolean {
  return actions.includes('forget');
}

function isSingle(actions: readonly string[], action: string): boolean {
  return actions.length === 1 && actions[0] === action;
}

function publicChange(change: CompactAttributeChange): AttributeChange {
  return { path: change.path, before: change.before, after: change.after, sensitive: change.sensitive };
}

/** Evidence without undefined members or empty lists, so drafts serialise deterministically. */
function compactEvidence(evidence: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(evidence)) {
    if (value === undefined) continue;
    result[key] = value;
  }
  return result;
}

const SEVERITY_ORDER: ReadonlyMap<string, number> = new Map(
  SEVERITIES.map((severity, index) => [severity, index]),
);

/** Severity, then address, kind and rule: deterministic whatever order the plan listed resources in. */
function sortFindings(findings: FindingDraft[]): FindingDraft[] {
  // Terraform lists resources by address, so each severity's findings usually arrive in order:
  // bucket by severity (stable) and sort a bucket only when it is not sorted already.
  const buckets: FindingDraft[][] = SEVERITIES.map(() => []);
  for (const finding of findings) buckets[SEVERITY_ORDER.get(finding.severity) ?? 0]!.push(finding);
  const sorted: FindingDraft[] = [];
  for (const bucket of buckets) {
    if (!isSorted(bucket, compareWithinSeverity)) bucket.sort(compareWithinSeverity);
    for (const finding of bucket) sorted.push(finding);
  }
  return sorted;
}

function compareWithinSeverity(a: FindingDraft, b: FindingDraft): number {
  return (
    compareText(addressOf(a), addressOf(b)) || compareText(a.kind, b.kind) || compareText(a.ruleId, b.ruleId)
  );
}

function addressOf(finding: FindingDraft): string {
  return finding.resource && 'address' in finding.resource ? finding.resource.address : '';
}

function compareNoise(
  a: EvaluationResult['noiseRemoved'][number],
  b: EvaluationResult['noiseRemoved'][number],
): number {
  return compareText(a.address, b.address) || compareText(a.rule, b.rule);
}

function isSorted<T>(items: readonly T[], compare: (a: T, b: T) => number): boolean {
  for (let index = 1; index < items.length; index++)
    if (compare(items[index - 1]!, items[index]!) > 0) return false;
  return true;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `module.app.aws_sqs_queue.jobs["a.b"]` → `aws_sqs_queue`: the type, second to last once keys are gone. */
function resourceTypeOf(address: string): string {
  const parts = address.replace(/\[[^\]]*\]/g, '').split('.');
  return parts.length >= 2 ? parts[parts.length - 2]! : 'resource';
}
