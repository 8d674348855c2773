import type { Finding } from '../findings/model.js';
import { terraformAdoptSnippet } from './adopt-snippet.js';
import { clusterAdoptSnippet, clusterRevertPlan } from './cluster-remediation.js';
import type { RemediationMode, RemediationResult, TerraformContext } from './model.js';
import { terraformRevertPlan } from './revert-plan.js';

/**
 * `driftwatch remediate <id> --revert | --adopt` for one finding: the revert plan or the adopt
 * snippet, or why neither applies (a backend policy, a stale lock, a failed scan, a refactor…), with
 * the finding's own remediation steps.
 */
export function prepareRemediation(
  finding: Finding,
  mode: RemediationMode,
  context: TerraformContext = {},
): RemediationResult {
  const reason = notApplicableReason(finding, mode);
  if (reason !== undefined)
    return {
      mode,
      notApplicable: reason,
      summary: finding.remediation.summary,
      steps: [...finding.remediation.steps],
    };
  if (finding.kind === 'cluster-drift')
    return mode === 'revert' ? clusterRevertPlan(finding) : clusterAdoptSnippet(finding);
  return mode === 'revert' ? terraformRevertPlan(finding, context) : terraformAdoptSnippet(finding, context);
}

/** Why --revert/--adopt does not apply to this finding; undefined when it does. */
export function notApplicableReason(finding: Finding, mode: RemediationMode): string | undefined {
  const flag = `--${mode}`;
  switch (finding.kind) {
    case 'terraform-drift':
    case 'pending-change': {
      const resource = finding.resource;
      if (!resource || !('address' in resource))
        return `${flag} needs a Terraform resource, and this ${finding.kind} finding names none`;
      if (finding.ruleId === 'drift.check-failed')
        return `${flag} does not apply to a failed check: it is an assertion about the live infrastructure, not a changed value (the workspace's drift findings have their own)`;
      if (finding.ruleId === 'drift.moved')
        return `${flag} does not apply to a refactor: a moved block renamed the resource and no value changed`;
      if (finding.ruleId === 'drift.ignored-changes')
        return `${flag} does not apply: lifecycle.ignore_changes tells Terraform to leave these attributes as they are`;
      if (!finding.drift) return `${flag} does not apply: the finding records no change`;
      if (mode === 'adopt' && (resource.type === 'output' || resource.address.startsWith('output.')))
        return '--adopt does not apply to an output: outputs follow resources and configuration';
      return undefined;
    }
    case 'cluster-drift': {
      const resource = finding.resource;
      if (!resource || !('kind' in resource))
        return `${flag} needs a cluster object, and this finding names none`;
      if (finding.ruleId === 'cluster.health-degraded' || finding.ruleId === 'cluster.health-missing')
        return `${flag} does not apply to application health: fix the cause in git and sync through review`;
      if (finding.ruleId === 'cluster.sync-policy')
        return `${flag} does not apply to a sync policy finding: it is about how the application syncs, not a changed object`;
      if (!finding.drift && finding.ruleId !== 'cluster.orphaned')
        return `${flag} does not apply: the finding records no change`;
      return undefined;
    }
    default:
      return `${flag} applies to terraform-drift, pending-change and cluster-drift findings, not to ${finding.kind} (${finding.ruleId})`;
  }
}
