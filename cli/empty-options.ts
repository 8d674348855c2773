import type { Command } from 'commander';
import { UsageError } from './usage.js';

/**
 * Options that say themselves what an empty value is, naming what to give instead (context.ts,
 * check-backend-shared.ts, the bucket commands' --region and --lock-table checks).
 */
const OWN_EMPTY_CHECK = new Set(['--store', '--key', '--region', '--lock-table']);

/**
 * An option typed with an empty value (`--owner "$TEAM"` with TEAM unset) is a usage error, as the
 * findings API refuses `owner=`: commands read an empty value as no value, so `findings --owner ''`
 * listed every owner's findings (and failed a team's CI gate on other teams' drift), `--since ''` and
 * `--kind ''` filtered nothing, and `--registry ''` was read as a directory. Leaving the option out
 * is how to say "none". Only values from the command line: an empty environment variable is unset.
 */
export function refuseEmptyOptionValues(command: Command): void {
  const values = command.opts();
  for (const option of command.options) {
    const name = option.attributeName();
    if (option.long === undefined || OWN_EMPTY_CHECK.has(option.long)) continue;
    if (command.getOptionValueSource(name) !== 'cli') continue;
    const value: unknown = values[name];
    const empty = value === '' || (Array.isArray(value) && value.includes(''));
    if (!empty) continue;
    throw new UsageError(
      option.mandatory
        ? `${option.long} is empty: give it a value`
        : `${option.long} is empty: give a value, or leave ${option.long} out`,
    );
  }
}
