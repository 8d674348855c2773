import { resourceLabel } from '../../functions/core/findings/describe.js';
import {
  type Finding,
  type FindingKind,
  type FindingStatus,
  type Severity,
  severityRank,
} from '../../functions/core/findings/model.js';

/**
 * Findings as a SARIF 2.1.0 log (OASIS), for code-scanning tools: one run, one reportingDescriptor
 * per rule used, one result per finding. Pure: the tool's version and the source roots come in.
 * Values are already redacted in findings (sensitive ones are `(sensitive:<hash>)`); the log
 * carries the title and detail, never the changed values themselves.
 */

export const SARIF_SCHEMA_URI =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export type SarifLevel = 'error' | 'warning' | 'note';

export interface SarifTool {
  name: string;
  version: string;
  informationUri?: string;
}

export interface SarifOptions {
  tool: SarifTool;
  /**
   * The source directory of a workspace's Terraform root module, as a URI reference relative to the
   * repository root (`infra/payments/`), when known. Code-scanning uploads (GitHub's) need a physical
   * location; without one a result has its resource as a logical location only.
   */
  sourceRootOf?: (workspace: string) => string | undefined;
}

export function sarifLevel(severity: Severity): SarifLevel {
  if (severity === 'critical' || severity === 'high') return 'error';
  if (severity === 'medium') return 'warning';
  return 'note';
}

/**
 * GitHub code scanning ranks results by a rule's `security-severity` (a CVSS-like score: 9.0 and up
 * critical, 7.0 high, 4.0 medium, 0.1 low); each value sits inside its band.
 */
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '2.0',
  info: '0.0',
};

/** What a rule of each kind reports: the rule's short description, with its id. */
const KIND_TEXT: Record<FindingKind, string> = {
  'terraform-drift': 'A Terraform-managed resource was changed outside Terraform',
  'pending-change': 'Terraform configuration that is not applied yet',
  'scan-failed': 'A scan could not complete: nothing is known about drift there',
  'backend-policy': 'A Terraform state backend does not meet a policy',
  'state-integrity': 'A Terraform state object has an integrity problem',
  'stale-lock': 'A Terraform state lock is proven stale',
  'cluster-drift': 'A cluster object differs from its GitOps source',
  'ownership-conflict': 'An object is managed by both Terraform and a GitOps tool',
  'workspace-busy': 'The state changed while the workspace was scanned',
};

/** How a finding's lifecycle status reads as SARIF's baselineState (relative to the previous scan). */
const BASELINE: Record<FindingStatus, 'new' | 'unchanged' | 'updated' | 'absent'> = {
  new: 'new',
  regressed: 'new',
  ongoing: 'unchanged',
  suppressed: 'unchanged',
  changed: 'updated',
  resolved: 'absent',
};

/** The SARIF log as a plain object (the caller serialises it as the JSON output is). */
export function sarifLog(findings: readonly Finding[], options: SarifOptions): Record<string, unknown> {
  // Rules in order of first use: findings come sorted (most severe first), so the order is stable.
  const rules = new Map<string, { index: number; kind: FindingKind; severity: Severity; help: string }>();
  for (const finding of findings) {
    const known = rules.get(finding.ruleId);
    if (!known)
      rules.set(finding.ruleId, {
        index: rules.size,
        kind: finding.kind,
        severity: finding.severity,
        help: finding.remediation.summary,
      });
    else if (severityRank(finding.severity) < severityRank(known.severity)) known.severity = finding.severity;
  }
  const driver: Record<string, unknown> = {
    name: options.tool.name,
    version: options.tool.version,
    ...(options.tool.informationUri ? { informationUri: options.tool.informationUri } : {}),
    rules: [...rules].map(([id, rule]) => ({
      id,
      shortDescription: { text: `${KIND_TEXT[rule.kind] ?? rule.kind} (${id})` },
      ...(rule.help ? { help: { text: rule.help } } : {}),
      // A rule's severity depends on the environment (prod ranks higher): the highest in this log.
      defaultConfiguration: { level: sarifLevel(rule.severity) },
      properties: { 'security-severity': SECURITY_SEVERITY[rule.severity], kind: rule.kind },
    })),
  };
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver },
        results: findings.map((finding) => sarifResult(finding, rules.get(finding.ruleId)!.index, options)),
      },
    ],
  };
}

function sarifResult(finding: Finding, ruleIndex: number, options: SarifOptions): Record<string, unknown> {
  const sourceRoot = options.sourceRootOf?.(finding.workspace);
  const location: Record<string, unknown> = {
    ...(sourceRoot ? { physicalLocation: { artifactLocation: { uri: sourceRoot } } } : {}),
    logicalLocations: [{ fullyQualifiedName: resourceLabel(finding), kind: 'resource' }],
  };
  return {
    ruleId: finding.ruleId,
    ruleIndex,
    level: sarifLevel(finding.severity),
    message: { text: finding.detail ? `${finding.title}\n\n${finding.detail}` : finding.title },
    locations: [location],
    // The finding id is the stable fingerprint (kind, rule, scope, resource, paths): tools match a
    // result across runs by it, as the store does.
    partialFingerprints: { 'driftwatchFindingId/v1': finding.id },
    baselineState: BASELINE[finding.status],
    ...(finding.status === 'suppressed' && finding.suppression
      ? {
          suppressions: [
            {
              kind: 'external',
              status: 'accepted',
              justification: `${finding.suppression.reason} (by ${finding.suppression.by}, until ${finding.suppression.until})`,
            },
          ],
        }
      : {}),
    properties: {
      severity: finding.severity,
      status: finding.status,
      kind: finding.kind,
      findingId: finding.id,
      workspace: finding.workspace,
      ...(finding.environment ? { environment: finding.environment } : {}),
      ...(finding.owner ? { owner: finding.owner } : {}),
      firstSeenAt: finding.firstSeenAt,
    },
  };
}

/** A source directory as a relative URI reference with `/` separators, ending in `/` (a directory). */
export function directoryUri(relativePath: string): string | undefined {
  const parts = relativePath.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) return undefined;
  return `${parts.map(encodeURIComponent).join('/')}/`.replace(/^\/$/, './');
}
