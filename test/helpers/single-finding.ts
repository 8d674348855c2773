import { expect } from 'vitest';
import { evaluatePlan } from '../../functions/core/terraform/index.js';
import { context, entry, hashSensitive, plan } from './plan-builders.js';

/**
 * The one finding a plan of one resource change gives: drift (`update`, the default) in
 * `resource_drift`, any other action in `resource_changes`. Fails the test when there is not exactly
 * one. For the severity rules' tests, which each judge one change.
 */
export function onlyFindingOf(
  address: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
  actions: string[] = ['update'],
) {
  const change = entry(address, { actions, before, after });
  const raw = plan(actions[0] === 'update' ? { drift: [change] } : { changes: [change] });
  const result = evaluatePlan(raw, { ...context(), hashSensitive });
  expect(result.findings).toHaveLength(1);
  return result.findings[0]!;
}
