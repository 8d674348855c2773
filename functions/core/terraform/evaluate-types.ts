import type { FindingDraft } from '../findings/model.js';
import type { Policies } from '../registry/model.js';
import type { ConfigurationFacts } from './configuration.js';
import type { DeletionGuard } from './deletion-guard.js';
import type { NoiseRuleName } from './noise.js';

export interface EvaluationContext {
  workspace: string;
  owner?: string;
  environment?: string;
  policies: Policies;
  /** Passed in (core has no clock): decides whether ignore rules have expired. */
  now: Date;
  /** Named in remediation text: where the configuration and the state of this workspace live. */
  remediation?: { source?: string; backend?: string };
  /**
   * What the workspace's configuration says that its plan does not (ignore_changes, removed blocks),
   * when the source is at hand: a scan, or `evaluate-plan --config DIR`.
   */
  configuration?: ConfigurationFacts;
}

export interface EvaluationResult {
  findings: FindingDraft[];
  plan: {
    formatVersion: string;
    terraformVersion?: string;
    errored: boolean;
    complete: boolean;
    managedResourceCount: number;
    reportedDeletions: number;
  };
  /** `removed-block`: drift of a resource the configuration removes with a `removed` block. */
  noiseRemoved: Array<{
    rule: NoiseRuleName | 'removed-block' | 'deposed-object';
    address: string;
    paths: string[];
    reason?: string;
  }>;
  deletionGuard: DeletionGuard;
}
