import type { CorruptObject } from '../functions/core/findings/quarantine.js';
import { stripForTerminal } from '../functions/core/text/sanitize.js';

/**
 * One stderr line per store object a command that is not a scan could not read (`suppress`,
 * `retire`). Such commands leave the object in place: only a scan quarantines, since only a scan
 * records the `store.corrupt-object` finding that says what was lost (docs/cli.md, findings store).
 */
export function reportUnreadObjects(corruptions: readonly CorruptObject[]): void {
  for (const corrupt of corruptions)
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${corrupt.key} in the findings store is not a valid ${corrupt.what} (${corrupt.reason}), left in place: the findings in it were not read; restore a good version of it, or let the next scan write it again`)}\n`,
    );
}
