import { closestMatch } from '../functions/core/registry/suggest.js';

/** `3 days` → `3d`: the words a duration's unit is typed as, by the unit driftwatch writes. */
const UNIT_WORDS: Record<string, { unit: string; times: number }> = {
  d: { unit: 'd', times: 1 },
  day: { unit: 'd', times: 1 },
  days: { unit: 'd', times: 1 },
  w: { unit: 'd', times: 7 },
  week: { unit: 'd', times: 7 },
  weeks: { unit: 'd', times: 7 },
  h: { unit: 'h', times: 1 },
  hour: { unit: 'h', times: 1 },
  hours: { unit: 'h', times: 1 },
  m: { unit: 'm', times: 1 },
  min: { unit: 'm', times: 1 },
  mins: { unit: 'm', times: 1 },
  minute: { unit: 'm', times: 1 },
  minutes: { unit: 'm', times: 1 },
};

/**
 * The one line for more arguments than a command takes, in place of commander's "too many arguments
 * for 'findings'. Expected 0 arguments but got 2.", which names neither the word in excess nor why it
 * is there. The usual causes, said as such:
 * - a mistyped subcommand (`findings shwo 585c`): the command it looks like;
 * - a value in two words (`--since 3 days`): the option took `3`, the rest is left over; a duration
 *   is one word (`--since 3d`), other values are quoted.
 */
export function excessArgumentsLine(
  command: { path: string; expected: readonly string[]; subcommands: readonly string[] },
  received: readonly string[],
  argv: readonly string[],
): string {
  const extra = received.slice(command.expected.length);
  const first = extra[0] ?? '';
  const sub = command.expected.length === 0 ? closestMatch(first, command.subcommands) : undefined;
  if (sub !== undefined && sub !== first)
    return `unknown command '${command.path} ${first}' (Did you mean ${command.path} ${sub}?)`;
  const takes =
    command.expected.length === 0
      ? `${command.path} takes no arguments`
      : `${command.path} takes ${command.expected.length === 1 ? 'one' : command.expected.length}: ${command.expected.map((name) => `<${name}>`).join(' ')}`;
  const shown = `'${first}'${extra.length > 1 ? ` and ${extra.length - 1} more` : ''}`;
  const at = argv.lastIndexOf(first);
  const option = at >= 2 ? argv[at - 2] : undefined;
  const value = at >= 1 ? argv[at - 1] : undefined;
  if (option?.startsWith('--') && value !== undefined && !value.startsWith('-')) {
    const unit = UNIT_WORDS[first.toLowerCase()];
    const fix =
      unit && /^\d+$/.test(value)
        ? `a duration is one word: ${option} ${Number(value) * unit.times}${unit.unit}`
        : `an option's value is one word: quote one with spaces, ${option} "${value} ${first}"`;
    return `unexpected argument ${shown} after ${option} ${value}: ${takes} (${fix})`;
  }
  return `unexpected argument ${shown}: ${takes}`;
}
