import type { AttributeChange, Finding, JsonValue } from '../findings/model.js';
import { isRedacted } from './paths.js';

/**
 * What `driftwatch remediate` prepares for one finding: the reviewed revert (a plan to run through
 * the team's pipeline and the changes it will propose) or the reviewed adopt (the configuration to
 * change). Pure data: printed by the CLI, never executed by driftwatch.
 */
export type RemediationMode = 'revert' | 'adopt';

/** One change the revert will propose: from what exists now to what is declared. */
export interface ProposedChange {
  path: string;
  from: JsonValue;
  to: JsonValue;
  sensitive: boolean;
}

export interface RevertPlan {
  mode: 'revert';
  /** Terraform (a targeted plan) or a cluster (a diff, then a sync through the GitOps tool). */
  system: 'terraform' | 'cluster';
  /** Where to run the commands (the Terraform root module), when known. */
  cwd?: string;
  /** Shell command lines, in order, each quoted for a POSIX shell. */
  commands: string[];
  /** The command whose output is the plan/diff to review (one of `commands`). */
  command: string;
  /** What the plan/diff will propose; empty when the finding holds no values (a deletion). */
  changes: ProposedChange[];
  /** One paragraph: what the plan does to the object (update in place, recreate, replace…). */
  effect: string;
  notes: string[];
}

export interface AdoptSnippet {
  mode: 'adopt';
  system: 'terraform' | 'cluster';
  language: 'hcl' | 'yaml';
  /** The snippet; comments in it say what it cannot know. */
  text: string;
  /** Where to edit it: the file and line of the resource block, when the configuration was read. */
  file?: string;
  line?: number;
  /** Sensitive values that became variables (their values are never shown). */
  variables: string[];
  notes: string[];
}

/** --revert or --adopt does not apply to this finding: why, and the finding's own remediation. */
export interface NotApplicable {
  mode: RemediationMode;
  notApplicable: string;
  summary: string;
  steps: string[];
}

export type RemediationResult = RevertPlan | AdoptSnippet | NotApplicable;

/** Where the configuration of the finding's resource is, found by the caller (who reads files). */
export type ConfigurationLocation =
  | { found: true; file: string; line: number; module?: string }
  | { found: false; reason: string };

export interface TerraformContext {
  /** The Terraform root module directory as the user should `cd` to it (registry source or --config). */
  rootDir?: string;
  /** Where `rootDir` came from, for the text: `registry driftwatch.yaml`, `--config`. */
  rootFrom?: string;
  /** `terraform` (default) or `opentofu` (runs `tofu`). */
  engine?: 'terraform' | 'opentofu';
  /** `-var-file` paths relative to `rootDir`. */
  varFiles?: readonly string[];
  /** Plain `-var name=value` values from the registry. */
  vars?: Readonly<Record<string, string>>;
  /** Names of variables the scan passes as TF_VAR_* from a secret store (never their values). */
  sensitiveVars?: readonly string[];
  /** The registry's backend, for the `terraform init` of a fresh checkout. */
  backend?: { bucket: string; key: string; region: string; workspace?: string };
  /** The resource block, when the configuration was read. */
  location?: ConfigurationLocation;
}

/**
 * Which side of a finding's change is what exists and which is what is declared. Drift (`terraform-drift`
 * and `cluster-drift`) records declared → live; a pending change records applied (what exists) →
 * configured (declared, not yet applied).
 */
export function sidesOf(
  finding: Pick<Finding, 'kind'>,
  change: AttributeChange,
): { current: JsonValue; declared: JsonValue } {
  return finding.kind === 'pending-change'
    ? { current: change.before, declared: change.after }
    : { current: change.after, declared: change.before };
}

/** What a revert proposes for each change of the finding: from the current value back to the declared one. */
export function proposedChanges(finding: Pick<Finding, 'kind' | 'drift'>): ProposedChange[] {
  return (finding.drift?.changes ?? []).map((change) => {
    const { current, declared } = sidesOf(finding, change);
    return {
      path: change.path,
      from: current,
      to: declared,
      sensitive: change.sensitive || isRedacted(current) || isRedacted(declared),
    };
  });
}
