import type { AttributeChange, FindingKind, Severity } from '../findings/model.js';
import { shiftSeverity } from '../findings/model.js';
import { type ClusterConfig, isProductionEnvironment, type Policies } from '../registry/model.js';
import { severityOverrideFinder } from '../terraform/severity.js';
import type { ObjectIdentity } from './kube-object.js';

/**
 * The cluster finding rules (docs/gitops.md): each rule id with its kind and base
 * severity. Severity then follows the same steps as Terraform findings: what changed, the
 * environment (non-production one level lower), and the registry's overrides. `outOfSync`: the
 * rule reports an application that is OutOfSync, so its oldest open finding dates that state.
 */
export const CLUSTER_RULES = {
  'cluster.drift': { kind: 'cluster-drift', severity: 'medium', outOfSync: true },
  'cluster.missing': { kind: 'cluster-drift', severity: 'high', outOfSync: true },
  'cluster.orphaned': { kind: 'cluster-drift', severity: 'low', outOfSync: true },
  'cluster.extraneous': { kind: 'cluster-drift', severity: 'low', outOfSync: true },
  'cluster.health-degraded': { kind: 'cluster-drift', severity: 'high', outOfSync: false },
  'cluster.health-missing': { kind: 'cluster-drift', severity: 'high', outOfSync: false },
  'cluster.sync-policy': { kind: 'cluster-drift', severity: 'medium', outOfSync: true },
  'ownership.conflict': { kind: 'ownership-conflict', severity: 'high', outOfSync: false },
} as const satisfies Record<string, { kind: FindingKind; severity: Severity; outOfSync: boolean }>;
export type ClusterRuleId = keyof typeof CLUSTER_RULES;

/** scan-failed rule ids of cluster scans; a failed scan is high wherever it ran, like Terraform's. */
export const CLUSTER_SCAN_FAILED_RULES = [
  'scan.cluster-unreachable',
  'scan.cluster-unauthorized',
  'scan.cluster-credentials',
  'scan.cluster-invalid-response',
  /** The source answered, but with nothing to compare: zero applications, or a render without objects. */
  'scan.cluster-empty',
  'scan.cluster-application',
  'scan.cluster-comparison',
  'scan.cluster-manifests',
  'scan.cluster-object',
  'scan.terraform-state',
] as const;
export type ClusterScanFailedRule = (typeof CLUSTER_SCAN_FAILED_RULES)[number];

const RBAC_KINDS: ReadonlySet<string> = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export interface SeveritySubject {
  ruleId: ClusterRuleId;
  identity?: ObjectIdentity;
  changes?: readonly AttributeChange[];
}

export interface ClusterSeverity {
  severity: Severity;
  reasons: string[];
}

export type ClusterSeverityDecider = (subject: SeveritySubject) => ClusterSeverity;

export function createClusterSeverity(cluster: ClusterConfig, policies: Policies): ClusterSeverityDecider {
  const environment = cluster.environment;
  const production = isProductionCluster(cluster, policies);
  const { overrides } = policies.severity;
  const findOverride = severityOverrideFinder(overrides, environment);

  return (subject) => {
    let severity: Severity = CLUSTER_RULES[subject.ruleId].severity;
    const reasons = [`base: ${subject.ruleId} is ${severity}`];
    const changes = subject.changes ?? [];
    if (subject.ruleId === 'cluster.drift') {
      if (subject.identity && RBAC_KINDS.has(subject.identity.kind)) {
        severity = 'high';
        reasons.push('rbac: permissions changed: high');
      } else if (changes.some((change) => change.sensitive)) {
        severity = 'high';
        reasons.push('secret: a secret value changed: high');
      } else if (
        changes.length > 0 &&
        changes.every((change) => /^metadata\.(labels|annotations)\b/.test(change.path))
      ) {
        severity = 'low';
        reasons.push('only labels or annotations changed: low');
      }
    }
    if (!production) {
      const lowered = shiftSeverity(severity, -1);
      if (lowered !== severity)
        reasons.push(`environment ${environment} is not production: ${severity} → ${lowered}`);
      severity = lowered;
    }
    const label = subject.identity ? objectAddress(subject.identity) : '';
    const override = overrides[findOverride(subject.ruleId, label)];
    if (override) {
      reasons.push(`registry override: ${override.severity}`);
      severity = override.severity;
    }
    return { severity, reasons };
  };
}

/** What `policies.severity.overrides[].address` globs match for cluster findings: `Kind/namespace/name`. */
export function objectAddress(identity: ObjectIdentity): string {
  return `${identity.kind}/${identity.namespace ? `${identity.namespace}/` : ''}${identity.name}`;
}

export function isProductionCluster(cluster: ClusterConfig, policies: Policies): boolean {
  return isProductionEnvironment(cluster.environment, policies);
}
