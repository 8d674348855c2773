import type { FindingDraft } from '../findings/model.js';
import { redactText } from '../redaction/secrets.js';
import type { EvaluationContext } from './evaluate-types.js';
import { scanFailedRemediation } from './remediation.js';

export interface ScanFailedOptions {
  /** `scan.plan-errored`, `scan.plan-incomplete`, `scan.plan-invalid`; default `scan.failed`. */
  ruleId?: string;
  title?: string;
  remediation?: { source?: string; backend?: string };
}

/**
 * Principle 3: a scan that did not produce a trustworthy plan is one `scan-failed` finding, never
 * drift. The reason may come from Terraform's output, so it is redacted before it is stored.
 */
export function scanFailedFinding(
  context: Pick<EvaluationContext, 'workspace' | 'owner' | 'environment'>,
  reason: string,
  evidence: Record<string, unknown> = {},
  options: ScanFailedOptions = {},
): FindingDraft {
  const safeReason = redactText(reason);
  const finding: FindingDraft = {
    kind: 'scan-failed',
    ruleId: options.ruleId ?? 'scan.failed',
    severity: 'high',
    workspace: context.workspace,
    title: options.title ?? `Scan of ${context.workspace} failed: ${firstLine(safeReason)}`,
    detail: `The scan of workspace ${context.workspace} failed, so its drift is unknown: ${safeReason}`,
    evidence: { ...evidence, reason: safeReason },
    remediation: scanFailedRemediation({ workspace: context.workspace, ...options.remediation }),
  };
  if (context.owner !== undefined) finding.owner = context.owner;
  if (context.environment !== undefined) finding.environment = context.environment;
  return finding;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
