import { vi } from 'vitest';
import { suppressAction } from '../../cli/commands/suppress-action.js';

/** `driftwatch suppress <typed>` in process against the store in `store` for a week: what it printed on stdout. */
export async function suppressInProcess(store: string, typed: string): Promise<string> {
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await suppressAction(() => {}, typed, {
      store,
      reason: 'accepted for the migration',
      by: 'ops',
      until: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    });
  } finally {
    write.mockRestore();
  }
  return out;
}
