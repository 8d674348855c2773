import { suppressAction } from '../../cli/commands/suppress-action.js';
import { actionOutput } from './action-output.js';

/** `driftwatch suppress <typed>` in process against the store in `store` for a week: what it printed on stdout. */
export async function suppressInProcess(store: string, typed: string): Promise<string> {
  const { out } = await actionOutput((run) =>
    suppressAction(run, typed, {
      store,
      reason: 'accepted for the migration',
      by: 'ops',
      until: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    }),
  );
  return out;
}
