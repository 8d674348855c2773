/** Public API of the Terraform plan evaluator (pure core: no I/O, no clock, no environment). */
export { formatPath } from './attribute-path.js';
export {
  type CompactOptions,
  compactPlan,
  createPlanCompactor,
  type PlanCompactor,
  secretLiteralsOf,
  streamedLogError,
} from './compact.js';
export { COMPANION_LINKS } from './companions.js';
export type { DeletionGuard } from './deletion-guard.js';
export { evaluateCompactPlan, evaluatePlan, unreadablePlanResult } from './evaluate.js';
export type { EvaluationContext, EvaluationResult } from './evaluate-types.js';
export { createJsonSelector, type JsonSelector, type JsonSelectorOptions } from './json-selector.js';
export { NOISE_RULES, type NoiseRuleName } from './noise.js';
export { PlanFormatError } from './plan-error.js';
export type {
  CompactAttributeChange,
  CompactChange,
  CompactOutputChange,
  CompactPlan,
  IdentityAttribute,
  ManagedResource,
  PathSegment,
} from './plan-model.js';
export { IDENTITY_ATTRIBUTES, UNKNOWN_VALUE } from './plan-model.js';
export type { SelectDecision } from './plan-paths.js';
export { scanFailedFinding } from './scan-failed.js';
export { BASE_SEVERITY, CONTENT_RULES, decideSeverity } from './severity.js';
