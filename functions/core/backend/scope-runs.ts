import { appendTo } from '../collections.js';
import type { ScanOutcome } from '../findings/lifecycle.js';
import type { FindingDraft } from '../findings/model.js';
import { redactText } from '../redaction/secrets.js';
import { classifyReadFailure, type FailureCause } from './failure-cause.js';
import type { ReadFailure } from './ports.js';
import { shellWord } from './rule.js';
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
 * `scan-failed` finding per scope that names the cause, what could not be read, the IAM action it
 * needs and the rules it kept from being evaluated. A failure of the whole target (its preflight,
 * or its listing) is one finding in the bucket scope, however many workspaces share the bucket:
 * one cause, one finding; the workspace scopes' runs are failed too, so nothing of theirs resolves.
 */
export function createScopeRuns(target: BackendTarget, check: 'backend' | 'locks') {
  const runs = new Map<string, { placement: Placement; drafts: FindingDraft[]; failures: ScopeFailure[] }>();
  for (const placement of targetScopes(target))
    runs.set(placement.workspace, { placement, drafts: [], failures: [] });
  const bucketRun = runs.get(target.bucketPlacement.workspace)!;
  let targetFailed = false;
  let preflight: ReadFailure | undefined;
  let preflightReportedElsewhere = false;

  return {
    add(placement: Placement, drafts: readonly FindingDraft[]): void {
      runs.get(placement.workspace)?.drafts.push(...drafts);
    },
    /**
     * A failure in one scope, or (without a placement) of the whole target: reported once, in the
     * bucket scope. `rules` are the rules the failed read kept from being evaluated.
     */
    fail(placement: Placement | undefined, failure: ReadFailure, rules: readonly string[] = []): void {
      if (!placement) targetFailed = true;
      const run = placement ? runs.get(placement.workspace) : bucketRun;
      if (!run) return;
      const known = run.failures.find((candidate) => sameFailure(candidate.failure, failure));
      if (known) known.rules = [...new Set([...known.rules, ...rules])];
      else run.failures.push({ failure, rules: [...rules] });
    },
    /**
     * The preflight failed: the target's one finding, and no rule ran (anything added is dropped).
     * `reportedByBackendCheck`: the same cause is the backend check's finding in this scan, so this
     * check's own finding only says it did not run (info): one cause, one alert.
     */
    failPreflight(failure: ReadFailure, options: { reportedByBackendCheck?: boolean } = {}): void {
      if (preflight) return;
      preflight = failure;
      preflightReportedElsewhere = options.reportedByBackendCheck === true;
    },
    finish(): ScopeRun[] {
      return [...runs.values()].map(({ placement, drafts, failures }) => {
        if (preflight) {
          const own =
            placement === bucketRun.placement
              ? [preflightDraft(placement, check, target, preflight, preflightReportedElsewhere)]
              : [];
          return { placement, drafts: own, outcome: 'failed' };
        }
        if (failures.length > 0) {
          return {
            placement,
            drafts: [...drafts, checkFailedDraft(placement, check, target.bucket, failures)],
            outcome: 'failed',
          };
        }
        if (targetFailed) return { placement, drafts, outcome: 'failed' };
        const partial = target.prefix !== '' && placement.workspace === target.bucketPlacement.workspace;
        return { placement, drafts, outcome: partial ? 'partial' : 'ok' };
      });
    },
  };
}

/**
 * Causes that stop every read of the bucket, whichever check makes it (the endpoint, credentials,
 * region, the bucket itself), as opposed to a refusal one check's reads may meet alone.
 */
const BUCKET_WIDE_CAUSES: ReadonlySet<string> = new Set([
  'unreachable',
  'no-credentials',
  'rejected-credentials',
  'no-region',
  'wrong-region',
  'no-such-bucket',
]);

export function isBucketWide(failure: ReadFailure): boolean {
  return BUCKET_WIDE_CAUSES.has(classifyReadFailure(failure).kind);
}

/** A failed read and the rules it kept from being evaluated. */
interface ScopeFailure {
  failure: ReadFailure;
  rules: string[];
}

function sameFailure(a: ReadFailure, b: ReadFailure): boolean {
  return a.resource === b.resource && a.code === b.code && a.action === b.action;
}

const CHECK_NAMES = { backend: 'Backend check', locks: 'Lock check' } as const;
/** Rule ids of the preflight findings: one per check, so each check's lifecycle keeps its own. */
export const PREFLIGHT_RULE_IDS = { backend: 'backend.preflight', locks: 'lock.preflight' } as const;

/**
 * The one finding of a target whose preflight failed. Its title is the cause ("connection refused
 * to http://127.0.0.1:1"), stable from night to night while the cause stays the same.
 */
export function preflightDraft(
  placement: Placement,
  check: 'backend' | 'locks',
  target: Pick<BackendTarget, 'bucket' | 'prefix'>,
  failure: ReadFailure,
  reportedByBackendCheck = false,
): FindingDraft {
  const cause = classifyReadFailure(failure);
  const what = CHECK_NAMES[check];
  const message = redactText(failure.message);
  const where = `s3://${target.bucket}${target.prefix ? `/${target.prefix}` : ''}`;
  const evidence: Record<string, unknown> = {
    cause: cause.kind,
    errorName: failure.errorName ?? failure.code,
    code: failure.code,
    action: failure.action,
    resource: failure.resource,
    message,
  };
  if (failure.endpoint !== undefined) evidence.endpoint = failure.endpoint;
  if (failure.bucketRegion !== undefined) evidence.bucketRegion = failure.bucketRegion;
  const prefixWord = target.prefix ? ` --prefix ${shellWord(target.prefix)}` : '';
  const draft: FindingDraft = {
    kind: 'scan-failed',
    ruleId: PREFLIGHT_RULE_IDS[check],
    severity: reportedByBackendCheck ? 'info' : 'high',
    workspace: placement.workspace,
    resource: { bucket: target.bucket },
    title: reportedByBackendCheck
      ? `${what} not run: ${cause.summary} (the alert is ${PREFLIGHT_RULE_IDS.backend})`
      : `${what} failed: ${cause.summary}`,
    detail: `The ${what.toLowerCase()} of ${where} stopped at its first read (${failure.action}): ${cause.summary}. AWS SDK: ${failure.errorName ?? failure.code}: ${message}. No rule was evaluated, so nothing is known about the bucket, its states or its locks, and nothing reported before is resolved.`,
    evidence,
    remediation: {
      summary: cause.advice,
      steps: [
        `Check with the same credentials, region and endpoint settings (it is the preflight's request): aws s3api list-objects-v2 --bucket ${shellWord(target.bucket)}${prefixWord} --max-keys 1`,
        'The next scan checks the bucket again.',
      ],
    },
  };
  if (placement.owner !== undefined) draft.owner = placement.owner;
  if (placement.environment !== undefined) draft.environment = placement.environment;
  return draft;
}

/** One `scan-failed` finding for a scope whose check could not read everything it needs. */
function checkFailedDraft(
  placement: Placement,
  check: 'backend' | 'locks',
  bucket: string,
  failures: readonly ScopeFailure[],
): FindingDraft {
  const what = CHECK_NAMES[check];
  const reads = failures.map(({ failure, rules }) => ({
    failure,
    rules,
    cause: classifyReadFailure(failure),
    message: redactText(failure.message),
  }));
  const lines = reads.map(
    ({ failure, rules, cause, message }) =>
      `${cause.summary} reading ${failure.resource} (${failure.errorName ?? failure.code}: ${message})${
        rules.length > 0
          ? `, so ${rules.join(', ')} ${rules.length === 1 ? 'was' : 'were'} not evaluated`
          : ''
      }`,
  );
  const draft: FindingDraft = {
    kind: 'scan-failed',
    ruleId: `scan.${check}-failed`,
    severity: 'high',
    workspace: placement.workspace,
    resource: { bucket },
    title: `${what} failed: ${titleCauses(reads.map((read) => read.cause))}`,
    detail: `The ${what.toLowerCase()} of s3://${bucket} could not read everything it needs, so what it did not see is unknown (and nothing it reported before is resolved): ${lines.join('; ')}.`,
    evidence: {
      failures: reads.map(({ failure, rules, cause, message }) => ({
        ...failure,
        message,
        cause: cause.kind,
        ...(rules.length > 0 ? { notEvaluated: rules } : {}),
      })),
    },
    remediation: {
      summary: 'Give driftwatch read access to the backend, or fix where the registry points.',
      steps: [...new Set(reads.map((read) => read.cause.advice))],
    },
  };
  if (placement.owner !== undefined) draft.owner = placement.owner;
  if (placement.environment !== undefined) draft.environment = placement.environment;
  return draft;
}

/** "AccessDenied on s3:GetBucketPolicy, s3:GetLifecycleConfiguration": denials of one code share a line. */
function titleCauses(causes: readonly FailureCause[]): string {
  const denied = new Map<string, string[]>();
  const others: string[] = [];
  for (const cause of causes) {
    const match = cause.kind === 'access-denied' ? cause.summary.match(/^(\S+) on (\S+)$/) : null;
    if (match) appendTo(denied, match[1]!, match[2]!);
    else others.push(cause.summary);
  }
  const deniedLines = [...denied].map(
    ([code, actions]) => `${code} on ${[...new Set(actions)].sort().join(', ')}`,
  );
  return [...new Set([...deniedLines, ...others])].join('; ');
}
