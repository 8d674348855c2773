import type { ScanOutcome } from '../findings/lifecycle.js';
import type { FindingDraft, Remediation } from '../findings/model.js';
import { redactText } from '../redaction/secrets.js';
import type { ReadFailure } from './ports.js';
import { type BackendTarget, type Placement, targetScopes } from './target.js';

/**
 * How one run of a check went in one scope: `ok` resolves what it no longer sees, `failed` resolves
 * nothing (it could not look), `partial` (a `--prefix` run in the bucket scope) resolves nothing
 * either, since it did not look at the whole bucket.
 */
export type RunOutcome = Extract<ScanOutcome, 'ok' | 'failed' | 'partial'>;

export interface ScopeRun {
  placement: Placement;
  drafts: FindingDraft[];
  outcome: RunOutcome;
}

/**
 * Collects one check's findings per scope. Every scope of the target gets a run (so fixed problems
 * resolve), findings for workspaces outside the run are dropped, and read failures become one
 * `scan-failed` finding per scope that names what could not be read and the IAM action it needs.
 */
export function createScopeRuns(target: BackendTarget, check: 'backend' | 'locks') {
  const runs = new Map<string, { placement: Placement; drafts: FindingDraft[]; failures: ReadFailure[] }>();
  for (const placement of targetScopes(target))
    runs.set(placement.workspace, { placement, drafts: [], failures: [] });

  return {
    add(placement: Placement, drafts: readonly FindingDraft[]): void {
      runs.get(placement.workspace)?.drafts.push(...drafts);
    },
    /** A failure in one scope, or (without a placement) in all of them: nothing could be listed. */
    fail(placement: Placement | undefined, failure: ReadFailure): void {
      const targets = placement ? [runs.get(placement.workspace)] : [...runs.values()];
      for (const run of targets) {
        if (run && !run.failures.some((known) => sameFailure(known, failure))) run.failures.push(failure);
      }
    },
    finish(): ScopeRun[] {
      return [...runs.values()].map(({ placement, drafts, failures }) => {
        if (failures.length > 0) {
          return {
            placement,
            drafts: [...drafts, checkFailedDraft(placement, check, target.bucket, failures)],
            outcome: 'failed',
          };
        }
        const partial = target.prefix !== '' && placement.workspace === target.bucketPlacement.workspace;
        return { placement, drafts, outcome: partial ? 'partial' : 'ok' };
      });
    },
  };
}

function sameFailure(a: ReadFailure, b: ReadFailure): boolean {
  return a.resource === b.resource && a.code === b.code && a.action === b.action;
}

/** One `scan-failed` finding for a scope whose check could not read everything it needs. */
export function checkFailedDraft(
  placement: Placement,
  check: 'backend' | 'locks',
  bucket: string,
  failures: readonly ReadFailure[],
): FindingDraft {
  const codes = [...new Set(failures.map((failure) => failure.code))].sort();
  const what = check === 'backend' ? 'Backend check' : 'Lock check';
  const redacted = failures.map((failure) => ({ ...failure, message: redactText(failure.message) }));
  const lines = redacted.map(
    (failure) => `${failure.code} reading ${failure.resource} (needs ${failure.action}): ${failure.message}`,
  );
  const draft: FindingDraft = {
    kind: 'scan-failed',
    ruleId: `scan.${check}-failed`,
    severity: 'high',
    workspace: placement.workspace,
    resource: { bucket },
    title: `${what} of s3://${bucket} failed: ${codes.join(', ')}`,
    detail: `The ${what.toLowerCase()} of s3://${bucket} could not read everything it needs, so what it did not see is unknown (and nothing it reported before is resolved): ${lines.join('; ')}.`,
    evidence: { failures: redacted },
    remediation: failureRemediation(failures),
  };
  if (placement.owner !== undefined) draft.owner = placement.owner;
  if (placement.environment !== undefined) draft.environment = placement.environment;
  return draft;
}

function failureRemediation(failures: readonly ReadFailure[]): Remediation {
  const denied = failures.filter((failure) => /denied|forbidden|unauthori[sz]ed/i.test(failure.code));
  const missing = failures.filter((failure) => /NoSuch|NotFound/i.test(failure.code));
  const steps: string[] = [];
  if (denied.length > 0) {
    const actions = [...new Set(denied.map((failure) => failure.action))].sort().join(', ');
    const resources = [...new Set(denied.map((failure) => failure.resource))].join(', ');
    steps.push(
      `Allow ${actions} on ${resources} to the scanner's read-only role (the registry's roleArn), or remove the Deny that blocks it.`,
    );
  }
  if (missing.length > 0) {
    steps.push(
      `${[...new Set(missing.map((failure) => failure.resource))].join(', ')} does not exist: fix the backend in the registry, or remove the workspaces that point there.`,
    );
  }
  if (steps.length === 0) steps.push('Look at the error above; the next scan tries again.');
  return { summary: 'Give driftwatch read access to the backend, or fix where the registry points.', steps };
}
