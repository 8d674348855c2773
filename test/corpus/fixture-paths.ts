import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Real plans from OpenTofu and terraform-json, read in place from the folder DRIFTWATCH_CORPUS_DIR
 * names (the team's fixtures, DESIGN.md "Real data to test against"); never copied into the
 * repository. Only the opt-in `corpus` project (`npm run test:corpus`) reads them; `npm test` never does.
 */
const configured = process.env.DRIFTWATCH_CORPUS_DIR;

// The corpus exists to read these plans, so without them the corpus file fails with one line naming
// the setting (at import, before any test), never a run that silently skips.
if (!configured || !existsSync(configured)) {
  const error = new Error(
    `corpus: ${configured ? `${configured} does not exist` : 'DRIFTWATCH_CORPUS_DIR is not set'}; set it to the folder of third-party fixture plans (npm test does not need it)`,
  );
  // One line, not a stack trace: the cause and the fix are in the message.
  error.stack = error.message;
  throw error;
}

export const FIXTURES_DIR = `${resolve(configured)}/`;

export function fixturePath(relative: string): string {
  return `${FIXTURES_DIR}${relative}`;
}

export function readFixture(relative: string): Record<string, unknown> {
  return JSON.parse(readFileSync(fixturePath(relative), 'utf8')) as Record<string, unknown>;
}

/** Every plan among the fixtures (`terraform show -json` of a plan file). */
export const PLAN_FIXTURES = [
  'opentofu/equivalence/data_read/plan.json',
  'opentofu/equivalence/drift_refresh_only/plan.json',
  'opentofu/equivalence/drift_relevant_attributes/plan.json',
  'opentofu/equivalence/drift_simple/plan.json',
  'opentofu/equivalence/local_provider_delete/plan.json',
  'opentofu/equivalence/local_provider_update/plan.json',
  'opentofu/equivalence/moved_with_refresh_only/plan.json',
  'opentofu/equivalence/replace_within_list/plan.json',
  'opentofu/equivalence/variables_and_outputs/plan.json',
  'opentofu/show-json/modules/output.json',
  'opentofu/show-json/plan-error/output.json',
  'terraform-json/013_module_depends_on/plan.json',
  'terraform-json/action_reason/plan.json',
  'terraform-json/identity/plan.json',
] as const;
